/* SPDX-License-Identifier: MIT */
/*
 * The accounting as `virsh domstats --perf` prints a domain's perf group
 * (libvirt's virsh-domain-monitor.c, virshDomainStatsPrintRecord: "Domain:
 * 'NAME'", then "  KEY=VALUE" per typed parameter, a number in decimal, a
 * string as it is).  The keys, their order and their values are
 * acct_domstats_walk's (tools/accounting/acct_keys.c), the one walk the libvirt typed
 * parameters (tools/accounting/libvirt/acct_typed_params.c) are built from too, so this
 * text is what virsh prints for those parameters (docs/accounting.md;
 * tests/unit/acct_typed_params.c compares the two).  The walk copies rather
 * than formats, and the lines go through acct_buf (acct_buf.h), because
 * issue 10 asks for 1,000 VMs of 8 vCPUs in 10 ms.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct_buf.h"
#include "acct_formats.h"
#include "acct_keys.h"

/* What line() writes of a number key at most: "  ", the key, "=", 20 digits
 * copied as 24 bytes, "\n"; the buffer has ACCT_BUF_SLACK past cap. */
_Static_assert(2 + ACCT_KEY_MAX + 1 + 24 + 1 <= ACCT_BUF_SLACK, "ACCT_BUF_SLACK holds a line");

static int line(void *ctx, const struct acct_key *k)
{
	struct acct_buf *b = ctx;
	char num[48], *d, *o;
	if (k->type == ACCT_KEY_STRING || k->len >= ACCT_KEY_MAX) {
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
	/* a number: the line in place, fixed-size copies advanced by their real
	 * length (two thirds of domstats' 140,000 lines: docs/performance.md) */
	if (b->len > b->cap)
		acct_buf_flush(b);
	d = acct_u64_dec(num + 24, k->u);
	o = b->buf + b->len;
	o[0] = ' ';
	o[1] = ' ';
	memcpy(o + 2, k->key, k->len);
	o += 2 + k->len;
	*o++ = '=';
	memcpy(o, d, 24);
	o += num + 24 - d;
	*o++ = '\n';
	b->len = (size_t)(o - b->buf);
	return b->err;
}

static void dom_unit(void *ctx, unsigned u, struct acct_buf *b)
{
	const struct acct_vm_units *d = ctx;
	for (unsigned k = d->first[u]; k < d->first[u + 1] && !b->err; k++) {
		const struct acct_vm *vm = &d->vms[k];
		int err;
		ACCT_PUT_LIT(b, "Domain: '");
		acct_put(b, vm->name, strnlen(vm->name, sizeof(vm->name)));
		ACCT_PUT_LIT(b, "'\n");
		err = acct_domstats_walk(vm, line, b);
		if (err && !b->err)
			b->err = err;
		acct_put(b, "\n", 1);
	}
}

int acct_write_domstats(FILE *out, const struct acct_vm *vms, unsigned n)
{
	/* ~40 bytes a key */
	return acct_write_by_vm(out, vms, n, (16u + VPMU_MAX_CTRS / 2 + VPMU_EV_NR) * 40u, dom_unit);
}
