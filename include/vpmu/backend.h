/* SPDX-License-Identifier: MIT */
/*
 * Host backends (docs/principles.md §3, §4).  The core programs "host hardware"
 * exactly the way the perfctr driver programs real hardware: control-register
 * images by slot (EVNTSELn, CESR, CCCR/ESCR, MMCRn) and counter registers by
 * counter number.  A backend turns that into something real (perf events) or
 * simulates it (sim).  Overflow of an interrupt-enabled host counter is reported
 * back with vpmu_host_overflow().
 */
#ifndef VPMU_BACKEND_H
#define VPMU_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include "vpmu/vpmu.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The library is built with -fvisibility=hidden: what is declared here is its ABI. */
#pragma GCC visibility push(default)

/* Control-register slots a layout may have (the P4: 18 CCCRs, 45 ESCRs and the
 * PEBS pair, with room): write_ctrl's slot is below it. */
#define VPMU_MAX_CTRL_SLOTS 72

/* The PMU a VM presents (its model's register layout, counter geometry and
 * event table), opaque to backends: they ask it with the vpmu_pmu_*() calls
 * below. */
struct vpmu_pmu;

struct vpmu_backend_ops {
	const char *name;
	/* `pmu` is the PMU of the VM whose vCPU is switched in: its register
	 * layout (vpmu_pmu_layout) is what the images use. */
	void (*write_ctrl)(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu,
			   unsigned slot, uint64_t value);
	void (*write_ctr)(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu,
			  unsigned pmc, uint64_t value);
	/* A backend's counters are 64 bits wide, whatever the model's width: the
	 * core takes the difference of two reads at 64 bits, so no count is lost
	 * however long a vCPU stays switched in (a backend over narrower hardware
	 * extends it, as perf_event does).  A write loads a model-width value. */
	uint64_t (*read_ctr)(void *ctx, unsigned cpu, const struct vpmu_pmu *pmu,
			     unsigned pmc);
	/* Optional, for backends whose counters count while the guest runs (perf).
	 * enter: at the end of a switch-in and before each guest entry
	 * (vpmu_vcpu_enter): apply what the register writes since the last entry
	 * changed; a write only records it, so that the syscalls a change needs
	 * happen once per entry and only for the counters whose configuration
	 * changed.  It must be cheap when nothing changed.
	 * poll: after a run the backend's overflow signal ended (vpmu_vcpu_poll) and
	 * at the start of a switch-out, before perfctr's suspend reads the counters:
	 * report the overflows of what counted since (vpmu_host_overflow). */
	void (*enter)(void *ctx, unsigned cpu);
	void (*poll)(void *ctx, unsigned cpu);
	/* Optional: how generic event ev is counted (vpmu_host_event_source); NULL:
	 * VPMU_COUNT_SIM.  *why gets a line saying how, or why not. */
	enum vpmu_count_source (*event_source)(void *ctx, enum vpmu_event ev, const char **why);
	/* Optional: the VM whose PMU this is is being destroyed; a backend that
	 * keeps the PMU a host CPU last ran (the sim decodes its controls with
	 * it) forgets it here.  Called with no vCPU of the VM switched in. */
	void (*forget_pmu)(void *ctx, const struct vpmu_pmu *pmu);
	/* Optional: how the events of event table `table` that guests programmed
	 * were counted (vpmu_vm_event_sources): fills out[0..max) and returns how
	 * many there are. */
	unsigned (*event_sources)(void *ctx, const char *table, struct vpmu_event_source *out,
				  unsigned max);
};

struct vpmu_backend {
	const struct vpmu_backend_ops *ops;
	void *ctx;
};

/* What a counter programmed with control images `ctrl` counts on `pmu`:
 * returns the generic event (or VPMU_EV_NONE when it counts nothing), the privilege
 * mask (VPMU_PRIV_*) and whether its overflow interrupts. */
int vpmu_pmu_decode_ctr(const struct vpmu_pmu *pmu, const uint64_t *ctrl,
			unsigned pmc, unsigned *priv, bool *interrupt);
/* The event table the PMU's events come from (include/vpmu/event_table.h:
 * vpmu_events_get and friends take this name), NULL: none. */
const char *vpmu_pmu_event_table(const struct vpmu_pmu *pmu);
/* vpmu_pmu_decode_ctr, and *entry: the index in that table of the event the
 * counter counts, or -1 when it counts nothing or its encoding is not exactly
 * one of the table's (an event with a counter mask its data does not list). */
int vpmu_pmu_decode_event(const struct vpmu_pmu *pmu, const uint64_t *ctrl, unsigned pmc,
			  unsigned *priv, bool *interrupt, int *entry);
/* Counter pmc's width in bits (0 past the PMU's counters), and how many there are. */
unsigned vpmu_pmu_ctr_width(const struct vpmu_pmu *pmu, unsigned pmc);
unsigned vpmu_pmu_nr_ctrs(const struct vpmu_pmu *pmu);
/* Whether a counter overflows when its MSB becomes 1 (PowerPC), not at the
 * wrap from all-ones to zero (x86). */
bool vpmu_pmu_overflows_at_msb(const struct vpmu_pmu *pmu);
/* The register layout the images are in: equal for two VMs of one model (a
 * backend keeps its registers across them), different otherwise (a backend
 * resets its registers when another layout comes). */
const void *vpmu_pmu_layout(const struct vpmu_pmu *pmu);

/* ---- sim: the deterministic reference backend (docs/trace.md "Semantics") ---- */
struct vpmu_sim;
int vpmu_sim_create(unsigned nr_cpus, struct vpmu_sim **out);
void vpmu_sim_destroy(struct vpmu_sim *sim);
void vpmu_sim_backend(struct vpmu_sim *sim, struct vpmu_backend *out);
/* The host the sim reports overflows to (set once the host exists). */
void vpmu_sim_attach(struct vpmu_sim *sim, struct vpmu_host *host);
/* `count` occurrences of `ev` at privilege `mode` on host CPU `cpu`. */
int vpmu_sim_tick(struct vpmu_sim *sim, unsigned cpu, enum vpmu_event ev,
		  uint64_t count, enum vpmu_mode mode);
/* How the VMM that ticks the sim counts generic event `ev`, as
 * vpmu_host_event_source() and the accounting report it: an emulator that
 * ticks the instructions it retires exactly and cycles by a rule says so
 * (VPMU_COUNT_SIM, with `why` in words: a string that outlives the sim), and
 * an event it never ticks is VPMU_COUNT_NONE.  Without it an event is
 * VPMU_COUNT_SIM ("counted as the trace's ticks say").  -EINVAL for a bad
 * argument. */
int vpmu_sim_set_event_source(struct vpmu_sim *sim, enum vpmu_event ev,
			      enum vpmu_count_source src, const char *why);
uint64_t vpmu_sim_ctrl_writes(const struct vpmu_sim *sim);
uint64_t vpmu_sim_ctr_writes(const struct vpmu_sim *sim);

/* ---- perf: the host's perf_event subsystem (docs/integration.md "What the host
 * counts") ----
 * Host CPU slot n is the vCPU thread that called vpmu_perf_bind(p, n, ...).
 * Where the host has a PMU, each counting guest counter is a pinned hardware
 * perf event of its thread, in guest mode only (exclude_host), filtered by the
 * guest's privilege bits, an i-mode counter sampling at its overflow.  Where it
 * has none (or with VPMU_PERF_NO_HOST_PMU), cycles and ref-cycles advance with
 * the thread's task clock scaled by the guest's TSC frequency, and every other
 * event counts zero and is reported as not countable.  An overflow sends
 * `signo` to the vCPU thread, which makes KVM_RUN return -EINTR (the VMM
 * unblocks `signo` only inside KVM_RUN, with KVM_SET_SIGNAL_MASK); the VMM then
 * calls vpmu_vcpu_poll(), which raises the PMI.  A host that refuses an event
 * (perf_event_paranoid, no counters or file descriptors left, an event it does
 * not have, counters held by a host user) leaves the VM running and the
 * counter at zero; the refusal is counted (vpmu_perf_stats) and logged once
 * per cause. */
struct vpmu_perf;
#define VPMU_PERF_NO_HOST_PMU 0x1u   /* count with the task clock even on a host PMU */
int vpmu_perf_create(unsigned nr_cpus, int signo, unsigned flags, struct vpmu_perf **out);
void vpmu_perf_destroy(struct vpmu_perf *p);
void vpmu_perf_backend(struct vpmu_perf *p, struct vpmu_backend *out);
void vpmu_perf_attach(struct vpmu_perf *p, struct vpmu_host *host);
/* On the vCPU thread that will switch in on slot `cpu`; tsc_khz is the guest's
 * TSC frequency (KVM_GET_TSC_KHZ), which scales the task clock.  -errno (with a
 * message in vpmu_perf_error()) when the host refuses the thread's clock: the
 * slot then runs with its clock-counted events at zero (not countable). */
int vpmu_perf_bind(struct vpmu_perf *p, unsigned cpu, uint32_t tsc_khz);
const char *vpmu_perf_error(const struct vpmu_perf *p);
/* Whether the host has a PMU that counts the guest (detected at creation), and
 * what the counters count, in words. */
bool vpmu_perf_host_pmu(const struct vpmu_perf *p);
const char *vpmu_perf_source(const struct vpmu_perf *p);
enum vpmu_perf_refusal {
	VPMU_PERF_REFUSED_ACCESS = 0,   /* EACCES/EPERM: kernel.perf_event_paranoid */
	VPMU_PERF_REFUSED_RESOURCES,    /* EMFILE/ENFILE/ENOSPC/EBUSY: no fd or counter left */
	VPMU_PERF_REFUSED_UNSUPPORTED,  /* ENOENT/EOPNOTSUPP/ENODEV/EINVAL: no such event here */
	VPMU_PERF_REFUSED_HELD,         /* a pinned event the host could not schedule */
	VPMU_PERF_REFUSED_OTHER,
	VPMU_PERF_REFUSAL_NR,
};
const char *vpmu_perf_refusal_name(enum vpmu_perf_refusal r);
struct vpmu_perf_stats {
	uint64_t opens, reads, period_sets, closes;  /* perf system calls made */
	uint64_t clock_reads_saved;     /* task-clock readings that needed no read(2) */
	uint64_t refused[VPMU_PERF_REFUSAL_NR];      /* host events refused, by cause */
};
/* Summed over the slots; safe while vCPU threads run. */
void vpmu_perf_stats(const struct vpmu_perf *p, struct vpmu_perf_stats *out);
/* Where refusals are logged, once per cause (NULL: not logged); may be called
 * from any vCPU thread. */
typedef void vpmu_perf_log_fn(void *arg, const char *line);
void vpmu_perf_set_log(struct vpmu_perf *p, vpmu_perf_log_fn *fn, void *arg);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
