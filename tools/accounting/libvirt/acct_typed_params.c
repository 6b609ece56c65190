/* SPDX-License-Identifier: MIT */
/*
 * libvirt typed parameters from the domstats walk (acct_typed_params.h).
 * Each key becomes one parameter of the type acct_domstats_walk gives it,
 * added with libvirt's virTypedParamsAdd* (include/libvirt/libvirt-common.h),
 * so a libvirt client reads them as it reads virConnectGetAllDomainStats'
 * perf group.
 */
#include <errno.h>
#include <limits.h>

#include "accounting/acct_keys.h"
#include "acct_typed_params.h"

struct build {
	virTypedParameterPtr params;
	int n, max;
};

static int add(void *ctx, const struct acct_key *k)
{
	struct build *b = ctx;
	int rc;
	/* Checked here, not left to libvirt: its own check reports through
	 * virDispatchError, which prints to stderr and leaves a thread-local error
	 * behind (virerror.c). */
	if (k->len >= VIR_TYPED_PARAM_FIELD_LENGTH)
		return -ENAMETOOLONG;
	if (b->n == INT_MAX)
		return -ENOMEM;
	switch (k->type) {
	case ACCT_KEY_ULLONG:
		rc = virTypedParamsAddULLong(&b->params, &b->n, &b->max, k->key, k->u);
		break;
	case ACCT_KEY_UINT:
		if (k->u > UINT_MAX)
			return -ERANGE;
		rc = virTypedParamsAddUInt(&b->params, &b->n, &b->max, k->key, (unsigned)k->u);
		break;
	case ACCT_KEY_STRING:
		rc = virTypedParamsAddString(&b->params, &b->n, &b->max, k->key, k->s);
		break;
	default:
		return -EINVAL;
	}
	/* with the name checked above, what is left to fail is memory */
	return rc < 0 ? -ENOMEM : 0;
}

int acct_typed_params(const struct acct_vm *vm, virTypedParameterPtr *params, int *nparams)
{
	struct build b = { NULL, 0, 0 };
	int err;
	if (params)
		*params = NULL;
	if (nparams)
		*nparams = 0;
	if (!vm || !params || !nparams)
		return -EINVAL;
	/* virTypedParamsAdd* keep their error in a thread-local slot whose key
	 * virInitialize creates (virerror.c, virErrorInitialize); without it they
	 * use pthread key 0, someone else's.  virInitialize runs once however
	 * often it is called (libvirt >= 1.0.0: docs of virInitialize, libvirt.c). */
	if (virInitialize() < 0)
		return -ENOMEM;
	err = acct_domstats_walk(vm, add, &b);
	if (err) {
		virTypedParamsFree(b.params, b.n);
		return err;
	}
	*params = b.params;
	*nparams = b.n;
	return 0;
}
