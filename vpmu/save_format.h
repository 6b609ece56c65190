/* SPDX-License-Identifier: MIT */
/*
 * The state blob's wire format (include/vpmu/save.h; docs/integration.md
 * "Save, restore and migration"): what save.c captures from a vCPU or VM, as
 * plain values, and the functions that write it as bytes and read it back.
 * Every field is written little-endian at a fixed width, one by one: the
 * format does not depend on this build's struct layout, padding or byte order.
 */
#ifndef VPMU_SAVE_FORMAT_H
#define VPMU_SAVE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "vpmu/save.h"

#define STATE_MAGIC 0x554D5056u        /* "VPMU" */
#define STATE_HEADER_LEN 104u
#define STATE_CHECKSUM_LEN 8u
#define STATE_KIND_VCPU 1u
#define STATE_KIND_VM 2u
#define STATE_NAME_LEN 32u
#define STATE_VENDOR_LEN 16u
#define STATE_FLAG_HT 0x1u
#define STATE_FLAG_STRICT 0x2u

/* What the header says: the kind of blob, and the vPMU it is of. */
struct state_header {
	unsigned kind;
	char model[STATE_NAME_LEN];
	char vendor[STATE_VENDOR_LEN];
	uint32_t family, cpumodel, stepping;
	uint8_t pmu_version, nr_ctrs, nr_general, nr_fixed, fixed_base;
	uint8_t general_width, fixed_width, flags;
	uint16_t nr_regs, thread;
	uint32_t vcpu;
	uint64_t ctr_regs;
};

/* One register as vpmu_reg_get gave it; index: its place in the VM's list
 * (vpmu_pmu.regs), which a capture sets and the blob does not carry. */
struct state_reg {
	uint32_t addr;
	uint8_t space, index;
	uint64_t value;
};

/* A vCPU's state. */
struct state_vcpu {
	unsigned nr_regs;
	struct state_reg reg[VPMU_MAX_REGS];
	uint64_t ctr[VPMU_MAX_CTRS];         /* counters 0..header nr_ctrs-1 */
	uint64_t imode;                      /* interrupting counters, and */
	uint64_t ireset[VPMU_MAX_CTRS];      /* their i-mode starts, by counter */
	bool pmi_pending;
	uint64_t pmi_ctrs;
	struct vpmu_totals totals;
};

/* A VM's state: its event filter's digest (0: no filter). */
struct state_vm {
	bool filter;
	uint64_t filter_digest;
};

/* The header of a VM (vcpu NULL) or of one of its vCPUs. */
void state_header_of(const struct vpmu_vm *vm, const struct vpmu_vcpu *vcpu,
		     struct state_header *h);

/* The blob's size, and the blob written into buf (which has that size). */
size_t state_vcpu_size(const struct state_header *h, const struct state_vcpu *s);
void state_vcpu_write(const struct state_header *h, const struct state_vcpu *s, uint8_t *buf);
size_t state_vm_size(void);
void state_vm_write(const struct state_header *h, const struct state_vm *s, uint8_t *buf);

/* Read a blob of `kind`, checking what the format says (magic, version,
 * lengths, checksum, a well-formed payload) and that its header is `want`'s
 * vPMU.  0, or -EINVAL / -EPROTO (save.h) with err written. */
int state_vcpu_read(const uint8_t *buf, size_t len, const struct state_header *want,
		    struct state_vcpu *s, char *err);
int state_vm_read(const uint8_t *buf, size_t len, const struct state_header *want,
		  struct state_vm *s, char *err);

/* A line into err (VPMU_STATE_ERR_LEN bytes; NULL: none); returns rc. */
int state_error(char *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
