/* SPDX-License-Identifier: MIT */
/*
 * The accounting as `virsh domstats --perf` prints a domain's perf group
 * (libvirt's virsh-domain-monitor.c, virshDomainStatsPrintRecord: "Domain:
 * 'NAME'", then "  KEY=VALUE" per typed parameter, a number in decimal, a
 * string as it is).  The keys, their order and their values are
 * acct_domstats_walk's (tools/acct_keys.c), the one walk the libvirt typed
 * parameters (tools/libvirt/acct_typed_params.c) are built from too, so this
 * text is what virsh prints for those parameters (docs/accounting.md;
 * tests/unit/acct_typed_params.c compares the two).  The walk copies rather
 * than formats, and the lines go through acct_buf (acct_buf.h), because
 * issue 10 asks for 1,000 VMs of 8 vCPUs in 10 ms.
 */
#include <errno.h>
#include <string.h>

#include "acct_buf.h"
#include "acct_formats.h"
#include "acct_keys.h"

static int line(void *ctx, const struct acct_key *k)
{
	struct acct_buf *b = ctx;
	acct_put(b, "  ", 2);
	acct_put(b, k->key, k->len);
	acct_put(b, "=", 1);
	if (k->type == ACCT_KEY_STRING)
		acct_put_str(b, k->s);
	else
		acct_put_u64(b, k->u);
	acct_put(b, "\n", 1);
	return b->err;
}

int acct_write_domstats(FILE *out, const struct acct_vm *vms, unsigned n)
{
	struct acct_buf b;
	int err = 0, cerr;
	if (!out || (n && !vms))
		return -EINVAL;
	if (acct_buf_open(&b, out))
		return -ENOMEM;
	for (unsigned k = 0; k < n && !err; k++) {
		const struct acct_vm *vm = &vms[k];
		ACCT_PUT_LIT(&b, "Domain: '");
		acct_put(&b, vm->name, strnlen(vm->name, sizeof(vm->name)));
		ACCT_PUT_LIT(&b, "'\n");
		err = acct_domstats_walk(vm, line, &b);
		acct_put(&b, "\n", 1);
	}
	cerr = acct_buf_close(&b);
	return err ? err : cerr;
}
