/* SPDX-License-Identifier: MIT */
/*
 * Hidden hardware state carried by save/restore (VPMU_SPACE_STATE): a P4
 * counter armed to cascade (IA-32 SDM vol. 3, "Cascading Counters") that its
 * alternate's overflow started keeps counting on the destination of a
 * migration, where no MSR says it started.  A guest access never reaches
 * hidden state.
 */
#include <errno.h>
#include <stdlib.h>

#include "tap.h"
#include "vpmu/backend.h"
#include "vpmu/vpmu.h"

static struct vpmu_sim *sim;
static struct vpmu_host *host;

static struct vpmu_vcpu *p4_vcpu(struct vpmu_vm **vm)
{
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_vcpu *v = NULL;
	cfg.model = "p4";
	if (vpmu_vm_create(host, &cfg, vm) || vpmu_vcpu_create(*vm, 0, &v)) {
		printf("Bail out! p4 VM\n");
		exit(1);
	}
	return v;
}

static void wr(struct vpmu_vcpu *v, uint32_t msr, uint64_t val)
{
	enum vpmu_fault f;
	if (vpmu_reg_write(v, VPMU_SPACE_MSR, msr, val, &f) || f) {
		printf("Bail out! wrmsr %#x\n", msr);
		exit(1);
	}
}

static uint64_t rd(struct vpmu_vcpu *v, uint32_t msr)
{
	enum vpmu_fault f;
	uint64_t val = 0;
	vpmu_reg_read(v, VPMU_SPACE_MSR, msr, &val, &f);
	return val;
}

/* Every register of both spaces, in vpmu_vm_regs() order (the state last). */
static unsigned copy_space(struct vpmu_vcpu *from, struct vpmu_vcpu *to, enum vpmu_regspace space)
{
	uint32_t regs[128];
	unsigned n = vpmu_vm_regs(vpmu_vcpu_vm(from), space, regs, 128), bad = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t val;
		int rc = vpmu_reg_get(from, space, regs[i], &val);
		if (rc == -ENOENT)
			continue;
		bad += rc != 0 || vpmu_reg_set(to, space, regs[i], val) != 0;
	}
	return bad;
}

int main(void)
{
	struct vpmu_backend be;
	if (vpmu_sim_create(2, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 2, &host))) {
		printf("Bail out! no host\n");
		return 1;
	}
	vpmu_sim_attach(sim, host);
	struct vpmu_vm *va, *vb;
	struct vpmu_vcpu *a = p4_vcpu(&va), *b = p4_vcpu(&vb);
	vpmu_vcpu_switch_in(a, 0);
	/* Counter 0 counts cycles from -10; counter 2 waits for it (CASCADE). */
	wr(a, 0x3A2, 0x2600020C);
	wr(a, 0x3A3, 0x2600020C);
	wr(a, 0x300, 0xFFFFFFFFF6ull);
	wr(a, 0x360, 0x3D000);
	wr(a, 0x362, 0x4003D000);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 10, VPMU_MODE_USER);
	vpmu_vcpu_enter(a);
	vpmu_sim_tick(sim, 0, VPMU_EV_CYCLES, 5, VPMU_MODE_USER);
	is_u64(rd(a, 0x302), 5, "source: counter 0's overflow started counter 2");
	uint32_t st[4];
	ok(vpmu_vm_regs(va, VPMU_SPACE_STATE, st, 4) == 1 && st[0] == VPMU_STATE_BASE,
	   "the P4 lists one hidden-state register");
	uint64_t started = 0;
	ok(vpmu_reg_get(a, VPMU_SPACE_STATE, VPMU_STATE_BASE, &started) == 0 && started == 0x4,
	   "its value: counter 2 started (got %#llx)", (unsigned long long)started);
	vpmu_vcpu_switch_out(a);

	ok(copy_space(a, b, VPMU_SPACE_MSR) == 0 && copy_space(a, b, VPMU_SPACE_STATE) == 0,
	   "save on the source, restore on the destination: MSRs, then the hidden state");
	vpmu_vcpu_switch_in(b, 1);
	vpmu_sim_tick(sim, 1, VPMU_EV_CYCLES, 7, VPMU_MODE_USER);
	is_u64(rd(b, 0x302), 12, "destination: counter 2 counts on, as it did on the source");

	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t val = 1;
	ok(vpmu_reg_read(b, VPMU_SPACE_STATE, VPMU_STATE_BASE, &val, &f) == 0 &&
	   f == VPMU_FAULT_NO_REG && val == 0, "a guest read of hidden state: no such register");
	ok(vpmu_reg_write(b, VPMU_SPACE_MSR, VPMU_STATE_BASE, 0, &f) == 0 && f == VPMU_FAULT_NO_REG,
	   "an MSR at the state's pseudo-address is none");
	ok(vpmu_reg_set(b, VPMU_SPACE_STATE, VPMU_STATE_BASE, 1ull << 18) == -EINVAL,
	   "a restore of a counter the P4 lacks is bad state");
	vpmu_vcpu_switch_out(b);
	vpmu_vm_destroy(va);
	vpmu_vm_destroy(vb);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
