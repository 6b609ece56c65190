/* SPDX-License-Identifier: MIT */
/*
 * Generic PowerPC with a time base and no performance monitor (perfctr
 * low-level-ppc32.txt, "Generic PowerPC with timebase": only tsc_on with no
 * counters is valid).  The model owns no SPR: every PMU SPR access is the
 * emulator's illegal-SPR program exception, as on a CPU without them, and the
 * time base is the VMM's, not the vPMU's.  Page: docs/models/ppc-generic.md.
 */
#include "ppc_pmu.h"

static const struct ppc_variant ppc_generic_variant = { 0, 0, false, false, false };

const struct vpmu_model vpmu_model_ppc_generic = {
	.name = "ppc-generic",
	.description = "Generic PowerPC with a time base and no performance counters",
	/* A PowerPC 603e (PVR 0x00060101), which has no performance monitor. */
	.id = { "PowerPC", 0x0006, 0x01, 0x01, 0, 0, 0, 0 },
	.regspace = VPMU_SPACE_SPR,
	.caps = 0,
	.nr_ctrs = 0, .ctr_width = 0, .nr_ctrl_slots = 0,
	.regs = NULL, .nr_regs = 0,
	.priv = &ppc_generic_variant,
	.ops = &ppc_ops,
};
