/* SPDX-License-Identifier: MIT */
/*
 * A VM's accounting snapshot (tools/accounting/acct_snapshot.h) as libvirt typed
 * parameters, for a VMM or a libvirt driver that answers
 * virConnectGetAllDomainStats: the keys of the domstats format
 * (docs/accounting.md), from the same walk (tools/accounting/acct_keys.h), built with
 * libvirt's own virTypedParamsAdd* and typed as libvirt types its perf group
 * (perf.* VIR_TYPED_PARAM_ULLONG, include/libvirt/libvirt-domain.h).
 *
 * Only this directory links libvirt (-lvirt, Debian's libvirt-dev): it is
 * built into libvpmu-acct-libvirt.a, never into libvpmu or the programs.
 */
#ifndef VPMU_TOOLS_LIBVIRT_ACCT_TYPED_PARAMS_H
#define VPMU_TOOLS_LIBVIRT_ACCT_TYPED_PARAMS_H

#include <libvirt/libvirt.h>

#include "accounting/acct_snapshot.h"

/*
 * *params gets vm's accounting, *nparams of them, in domstats order; free them
 * with virTypedParamsFree(*params, *nparams).  Returns 0; -EINVAL for a NULL
 * argument; -ENAMETOOLONG for a key longer than VIR_TYPED_PARAM_FIELD_LENGTH
 * allows; -ERANGE for an unsigned int key above UINT_MAX (the walk yields
 * none); -ENOMEM when libvirt fails.  On failure nothing is left allocated:
 * *params is NULL and *nparams 0.
 */
int acct_typed_params(const struct acct_vm *vm, virTypedParameterPtr *params, int *nparams);

#endif
