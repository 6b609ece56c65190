/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run --event-filter: a VM's event filter (vpmu_vm_set_event_filter) read
 * from a line-based file (docs/vpmu-run.md, "Event filter files"), or the
 * cross-tenant preset.  Parsing needs no VM, so that a malformed file is a
 * usage error; names and the preset are resolved against the VM.
 */
#ifndef VPMU_RUN_FILTER_H
#define VPMU_RUN_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "vpmu/vpmu.h"

#define RUN_FILTER_TEXT_MAX 65536
#define RUN_FILTER_NAME_MAX 128

struct run_filter {
	char file[256];                 /* what messages name it by */
	int preset;                     /* 1: cross-tenant (resolved per vendor) */
	unsigned action, flags;         /* enum vpmu_filter_action, VPMU_FILTER_MASKED_EVENTS */
	uint32_t fixed;
	unsigned nevents, nnames;
	uint64_t events[VPMU_FILTER_MAX_EVENTS];
	char names[VPMU_FILTER_MAX_EVENTS][RUN_FILTER_NAME_MAX];
	unsigned event_line[VPMU_FILTER_MAX_EVENTS], name_line[VPMU_FILTER_MAX_EVENTS];
};

/* Parse `len` bytes of a filter file into *out; -EINVAL with "FILE:LINE: what"
 * in err (and *out unchanged) for a malformed one. */
int run_filter_parse(const char *text, size_t len, const char *file, struct run_filter *out,
		     char *err, size_t errlen);
/* "cross-tenant", or a file to read and parse: -errno with the message in err. */
int run_filter_load(const char *arg, struct run_filter *out, char *err, size_t errlen);
/* Set it on vm (the preset: its entries for the VM's vendor).  -errno with
 * "FILE:LINE: what" (or what without an entry at fault) in err; the VM keeps
 * the filter it had. */
int run_filter_apply(const struct run_filter *rf, struct vpmu_vm *vm, char *err, size_t errlen);

#endif
