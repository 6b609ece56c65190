/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus format's insides, shared by tools/accounting/acct_prom.c (the families
 * and their lines) and tools/accounting/acct_prom_gather.c (the columns the lines are
 * made of, and the cut into units for acct_buf_units).  Not an interface.
 */
#ifndef VPMU_TOOLS_ACCT_PROM_H
#define VPMU_TOOLS_ACCT_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "acct_buf.h"
#include "acct_formats.h"

static inline unsigned nr_vcpus(const struct acct_vm *vm)
{
	return vm->nr_vcpus < VPMU_MAX_VCPUS ? vm->nr_vcpus : VPMU_MAX_VCPUS;
}

static inline unsigned nr_ctrs(const struct acct_vm *vm)
{
	return vm->nr_ctrs < VPMU_MAX_CTRS ? vm->nr_ctrs : VPMU_MAX_CTRS;
}

static inline unsigned nr_rules(const struct acct_vm *vm)
{
	return vm->nr_rules < VPMU_MAX_RULES ? vm->nr_rules : VPMU_MAX_RULES;
}

/*
 * The families are grouped, so every family reads a field or two of every
 * vCPU; in the snapshots those lie ~660 bytes apart, in one allocation per VM,
 * so that cache and TLB misses would cost more than the formatting.  One pass
 * over the snapshots first copies the values into columns (one array per
 * value, every vCPU of every VM in order), and the families read those.
 */
enum col {
	C_EV = 0,                       /* + event */
	C_PMC = C_EV + VPMU_EV_NR,      /* + guest counter */
	C_COUNT = C_PMC + VPMU_MAX_CTRS, /* + enum vpmu_totals_count (VPMU_TOTALS_COUNTS) */
	C_FIXED = C_COUNT + VPMU_TOTALS_NR, C_NMI, C_MASKED, C_APIC_OFF, C_BAD_MODE,
	C_HELD, C_MSR_EXITS, C_RDPMC_EXITS,
	C_NR,
};

#define DOM_CAP 200u    /* an escaped domain: 63 bytes, 3 each at most */

_Static_assert(VPMU_EV_NR <= 8, "vm_cols.countable holds a bit per event");

struct vm_cols {
	char dom[DOM_CAP];      /* the domain, escaped as a label value */
	uint16_t dlen;
	uint8_t nr_ctrs;
	uint8_t countable;      /* bit e: event e is countable */
	unsigned nv;            /* its vCPUs, in the columns */
	size_t j0;              /* its first vCPU's place in the columns */
};

enum { R_KVM = 1, R_VIOLATIONS = 2 };

/* A vCPU's index in decimal, written once rather than once per family:
 * digits[0 .. len), and room to copy 16 bytes whole. */
struct vidx {
	char digits[15];
	uint8_t len;
};

/* One of a family's samples per vCPU: the rest of the line up to the value
 * (`",event="cycles"} `), and the value's column. */
struct sub {
	char sfx[48];
	size_t len;
	unsigned col;
};

enum kind { K_INFO, K_COUNTABLE, K_SOURCES, K_COUNTER, K_RULES };

struct fam {
	enum kind kind;
	const char *name, *help;
	size_t nlen;            /* strlen(name) */
	const struct sub *subs;
	unsigned nsubs, flags;
};

/* A unit of acct_buf_units: family fam over VMs m0 .. m1-1. */
struct unit {
	unsigned fam, m0, m1;
};

#define NR_FAMS 18      /* the families of families() */

struct prom {
	const struct acct_vm *vms;
	unsigned n;
	size_t nv;              /* vCPUs of all the VMs */
	uint64_t *col;          /* value c of vCPU j: col[c * nv + j] */
	struct vidx *index;     /* vCPU j's index, in decimal */
	uint8_t *rflags;        /* R_* */
	struct vm_cols *vm;
	size_t mem_size;        /* of col's block (acct_mem_get) */
	struct fam fam[NR_FAMS];
	unsigned nfam, nunits;
	struct unit *unit;
	struct sub ev[VPMU_EV_NR], ctr[VPMU_MAX_CTRS], deliv[2], lost[3], one[NR_FAMS];
	struct sub count[VPMU_TOTALS_NR];       /* the labelled ones (vpmu_register_accesses_total) */
};

enum {
	F_KVM = 1,      /* only the vCPUs with the glue's statistics */
	F_EVENTS = 2,   /* sub k is event k: countable ones only */
	F_CTRS = 4,     /* sub k is counter k: k < nr_ctrs only */
};

/* Fills p's columns from p->vms (two threads from acct_par_min_vcpus on);
 * 0 or -ENOMEM.  The block it takes is p->col's (acct_mem_put, mem_size). */
int acct_prom_gather(struct prom *p);
/* Cuts p's families into units of about ACCT_UNIT_BYTES (unit NULL: only
 * counts them); how many. */
unsigned acct_prom_plan(const struct prom *p, struct unit *unit);

#endif
