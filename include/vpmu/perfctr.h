/* SPDX-License-Identifier: MIT */
/*
 * The perfctr low-level ABI structures, x86 layout (perfctr low-level-x86.txt,
 * "Contents of <asm-i386/perfctr.h>") and PPC32 layout (perfctr low-level-ppc32.txt).  libvpmu keeps an ISA-neutral
 * control internally and exports each vCPU's derived control and state in these
 * layouts (vpmu_vcpu_perfctr_x86(), vpmu_vcpu_perfctr_ppc32()) so that perfctr-aware
 * tools can read them.  Field order and sizes are those documents' exactly.
 */
#ifndef VPMU_PERFCTR_H
#define VPMU_PERFCTR_H

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

struct vpmu_vcpu;

/* ---- x86 (low-level-x86.txt) ---- */
struct perfctr_sum_ctrs {
	unsigned long long tsc;
	unsigned long long pmc[18];
};

struct perfctr_cpu_control {
	unsigned int tsc_on;
	unsigned int nractrs;		/* # of a-mode counters */
	unsigned int nrictrs;		/* # of i-mode counters */
	unsigned int pmc_map[18];
	unsigned int evntsel[18];	/* one per counter, even on P5 */
	struct {
		unsigned int escr[18];
		unsigned int pebs_enable;	/* for replay tagging */
		unsigned int pebs_matrix_vert;	/* for replay tagging */
	} p4;
	int ireset[18];			/* < 0, for i-mode counters */
	unsigned int _reserved1;
	unsigned int _reserved2;
	unsigned int _reserved3;
	unsigned int _reserved4;
};

struct perfctr_cpu_state {
	unsigned int cstatus;
	struct {	/* k1 is opaque in the user ABI */
		unsigned int id;
		int isuspend_cpu;
	} k1;
	unsigned int tsc_start;
	unsigned long long tsc_sum;
	struct {
		unsigned int map;
		unsigned int start;
		unsigned long long sum;
	} pmc[18];
	struct perfctr_cpu_control control;
	unsigned int p4_escr_map[18];
};

/* ---- PPC32 (low-level-ppc32.txt) ---- */
struct perfctr_ppc32_sum_ctrs {
	unsigned long long tsc;
	unsigned long long pmc[8];
};

struct perfctr_ppc32_cpu_control {
	unsigned int tsc_on;
	unsigned int nractrs;
	unsigned int nrictrs;
	unsigned int pmc_map[8];
	unsigned int evntsel[8];
	int ireset[8];			/* [0,0x7fffffff], for i-mode counters */
	struct {
		unsigned int mmcr0;	/* sans PMC{1,2}SEL */
		unsigned int mmcr2;	/* only THRESHMULT */
	} ppc;
	unsigned int _reserved1;
	unsigned int _reserved2;
	unsigned int _reserved3;
	unsigned int _reserved4;
};

struct perfctr_ppc32_cpu_state {
	unsigned int cstatus;
	struct {
		unsigned int id;
		int isuspend_cpu;
	} k1;
	unsigned int tsc_start;
	unsigned long long tsc_sum;
	struct {
		unsigned int map;
		unsigned int start;
		unsigned long long sum;
	} pmc[8];
	unsigned int ppc_mmcr[3];
	struct perfctr_ppc32_cpu_control control;
};

/* perfctr's cstatus encoding (1c): (tsc_on<<31)|(nri<<16)|((nra+nri)<<8)|nra. */
static inline unsigned int perfctr_mk_cstatus(unsigned tsc_on, unsigned nra, unsigned nri)
{
	return (tsc_on << 31) | (nri << 16) | ((nra + nri) << 8) | nra;
}

/* Export a vCPU's derived control and state.  -EINVAL if the VM's model is not of
 * that ISA.  k1.id is the low 32 bits of the 64-bit content id. */
int vpmu_vcpu_perfctr_x86(const struct vpmu_vcpu *vcpu, struct perfctr_cpu_state *out);
int vpmu_vcpu_perfctr_ppc32(const struct vpmu_vcpu *vcpu, struct perfctr_ppc32_cpu_state *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
