/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vpmu-stat's reader of a VM's accounting (acct_read_json,
 * tools/accounting/acct_json_read.c), which parses what a live socket answers
 * (docs/accounting.md, "Live view"): a server that lies, a truncated answer,
 * any bytes.  Invariants (abort()):
 *   - the reader returns 0 or -EINVAL/-ENOMEM; -EINVAL comes with a message,
 *     and a failure leaves no snapshot (NULL, 0);
 *   - what it accepts has at most VPMU_MAX_VCPUS vCPUs per VM, each index
 *     below it and once, and writes in every format without an error; the
 *     JSON it writes reads back to the same JSON (a fixed point).
 * ASan/UBSan catch reads past the input; LSan a snapshot left allocated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/acct_formats.h"

static FILE *devnull;

static char *write_json(const struct acct_vm *vms, unsigned n, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	if (!m || acct_write(m, ACCT_JSON, vms, n) != 0)
		abort();
	fclose(m);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct acct_vm *vms = (struct acct_vm *)1;
	unsigned n = 99;
	char err[256] = "";
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	int r = acct_read_json((const char *)data, size, &vms, &n, err, sizeof(err));
	if (r != 0) {
		if ((r != -EINVAL && r != -ENOMEM) || vms || n || (r == -EINVAL && !err[0]))
			abort();
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		if (vms[i].nr_vcpus > VPMU_MAX_VCPUS)
			abort();
		uint64_t seen = 0;
		for (unsigned k = 0; k < vms[i].nr_vcpus; k++) {
			unsigned x = vms[i].vcpu[k].index;
			if (x >= VPMU_MAX_VCPUS || (seen & (1ull << x)))
				abort();
			seen |= 1ull << x;
		}
	}
	for (int f = ACCT_TEXT; f <= ACCT_JSON; f++)
		if (acct_write(devnull, (enum acct_format)f, vms, n) != 0)
			abort();
	size_t l1, l2;
	char *j1 = write_json(vms, n, &l1);
	struct acct_vm *again = NULL;
	unsigned n2 = 0;
	if (acct_read_json(j1, l1, &again, &n2, err, sizeof(err)) != 0 || n2 != n)
		abort();
	char *j2 = write_json(again, n2, &l2);
	if (l1 != l2 || memcmp(j1, j2, l1))
		abort();
	free(j1);
	free(j2);
	acct_vms_release(again, n2);
	acct_vms_release(vms, n);
	return 0;
}
