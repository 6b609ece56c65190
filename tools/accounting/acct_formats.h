/* SPDX-License-Identifier: MIT */
/*
 * The accounting formats (docs/accounting.md): each writes the snapshots of the
 * n VMs given (acct_snapshot.h, the data model, which knows no format) to out,
 * and returns 0 or -errno; acct_write() picks one by name (acct_write.c), and
 * acct_read_json() reads the JSON one back (acct_json_read.c).
 */
#ifndef VPMU_TOOLS_ACCT_FORMATS_H
#define VPMU_TOOLS_ACCT_FORMATS_H

#include <errno.h>
#include <stdio.h>

#include "acct_snapshot.h"

int acct_write_text(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_domstats(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_prometheus(FILE *out, const struct acct_vm *vms, unsigned n);
int acct_write_json(FILE *out, const struct acct_vm *vms, unsigned n);

/* The formats: every one writes all the VMs given, and returns 0 or -errno. */
enum acct_format {
	ACCT_TEXT,        /* the human-readable blocks (vpmu-run's and vpmu-trace's) */
	ACCT_DOMSTATS,    /* "vpmu.cpu_cycles=N" lines laid out as virsh domstats prints them */
	ACCT_PROMETHEUS,  /* the Prometheus text exposition format */
	ACCT_JSON,        /* docs/accounting.md's schema */
};
int acct_format_from_name(const char *name);   /* enum acct_format, or -1 */
int acct_write(FILE *out, enum acct_format f, const struct acct_vm *vms, unsigned n);

/*
 * Parses JSON of docs/accounting.md's schema 1 (text: len bytes, no NUL
 * needed) back into snapshots: *vms gets an array of *n of them (release with
 * acct_vms_release), and writing them in any format gives what writing the
 * snapshots the JSON was written from gave.  0; -EINVAL with a message in err
 * (errlen bytes) for anything malformed, a string that is not UTF-8, or more
 * than ACCT_JSON_MAX bytes (before parsing); -ENOMEM.  Nothing is left allocated
 * on failure (*vms NULL, *n 0).
 */
#define ACCT_JSON_MAX (16u << 20)   /* the largest document acct_read_json reads */
int acct_read_json(const char *text, size_t len, struct acct_vm **vms, unsigned *n,
		   char *err, size_t errlen);

#endif
