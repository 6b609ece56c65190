/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V machine vpmu-run builds: the VM, its RAM at 0x80000000, the
 * user-space PMU of the tier's patched KVM, the harts, and Linux booted as
 * Documentation/arch/riscv/boot.rst asks: the Image at RAM + text_offset,
 * a0 = the hart id, a1 = the device tree's physical address, in S-mode with
 * the MMU off (KVM's reset state: arch/riscv/kvm/vcpu.c kvm_riscv_reset_vcpu).
 * The secondary harts stay stopped until Linux starts them with SBI HSM,
 * which KVM answers in the kernel (vcpu_sbi_hsm.c; kvm_arch_vcpu_postcreate
 * powers off every vCPU but the first).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "riscv_boot.h"
#include "riscv_fdt.h"
#include "riscv_image.h"
#include "../../vmm-glue/kvm_riscv_uapi.h"

#define BERR(...) (snprintf(err, errlen, __VA_ARGS__), -1)

/* The kick signal unblocked inside KVM_RUN only (api.rst,
 * "KVM_SET_SIGNAL_MASK"), as the x86 glue does (vmm-glue/kvm_x86.c). */
static int set_signal_mask(int fd, int signo)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	sigdelset(&cur, signo);
	union {
		struct kvm_signal_mask m;
		unsigned char bytes[sizeof(struct kvm_signal_mask) + 8];
	} mask;
	mask.m.len = 8;   /* the kernel's sigset_t: 64 bits on rv64 */
	memcpy(mask.m.sigset, &cur, 8);
	return ioctl(fd, KVM_SET_SIGNAL_MASK, &mask) < 0 ? -errno : 0;
}

int rv_create_vm(struct rv_run *rn, char *err, size_t errlen)
{
	rn->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (rn->kvm < 0)
		return BERR("/dev/kvm: %s (a RISC-V host with the H extension and kvm.ko "
			    "loaded: docs/riscv.md)", strerror(errno));
	rn->vm = ioctl(rn->kvm, KVM_CREATE_VM, 0);
	if (rn->vm < 0)
		return BERR("KVM_CREATE_VM: %s", strerror(errno));
	struct kvm_userspace_memory_region region = {
		.slot = 0, .guest_phys_addr = RISCV_RAM_BASE, .memory_size = rn->mem_size,
		.userspace_addr = (uint64_t)(uintptr_t)rn->mem,
	};
	if (ioctl(rn->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return BERR("KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	/* Before any vCPU: the series forwards the PMU for vCPUs created after. */
	if (!rn->o.no_pmu && kvm_riscv_user_pmu_enable(rn->vm, err, errlen) < 0) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, ": this KVM keeps the SBI PMU in the kernel; libvpmu "
			 "needs the patched KVM of docs/riscv.md (\"vpmu-run on RISC-V\"), or run "
			 "with --no-pmu");
		return -1;
	}
	int rs = ioctl(rn->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (rs <= 0)
		return BERR("KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	rn->run_size = (size_t)rs;
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		struct rv_vcpu *c = &rn->cpu[i];
		c->rn = rn;
		c->index = i;
		c->fd = ioctl(rn->vm, KVM_CREATE_VCPU, (unsigned long)i);
		if (c->fd < 0)
			return BERR("KVM_CREATE_VCPU %u: %s", i, strerror(errno));
		c->run = mmap(NULL, rn->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
		if (c->run == MAP_FAILED) {
			c->run = NULL;
			return BERR("mmap of hart %u's kvm_run: %s", i, strerror(errno));
		}
		int r = set_signal_mask(c->fd, RV_KICK_SIGNAL);
		if (r < 0)
			return BERR("hart %u: KVM_SET_SIGNAL_MASK: %s", i, strerror(-r));
		/* The debug console is KVM's to forward but off by default (Linux
		 * 6.8+, vcpu_sbi_replace.c: default_disabled); a KVM without it
		 * leaves the guest the v0.1 console, also forwarded. */
		r = kvm_riscv_set_reg(c->fd, RV_REG(RV_REG_TYPE_SBI_EXT, 0, RV_SBI_EXT_DBCN), 1);
		if (r < 0 && i == 0)
			fprintf(stderr, "vpmu-run: no SBI debug console (ONE_REG SBI_EXT DBCN: %s): "
				"the guest's console is SBI v0.1's, if its kernel has one\n",
				strerror(-r));
		kvm_riscv_pmu_init(&c->pmu, c->fd, c->run, c->vcpu, RV_KICK_SIGNAL);
	}
	return 0;
}

/* riscv,isa for the harts: KVM's single letters, then the multi-letter
 * extensions Linux needs to see for its counters (Zicntr, Zihpm: the
 * counter CSRs; Sscofpmf: LCOFI and the overflow the SBI PMU reports), and
 * Sstc where KVM has it (the guest's own timer compare). */
static void isa_string(int fd, char *isa, size_t len)
{
	uint64_t letters = 0, sstc = 0;
	if (kvm_riscv_get_reg(fd, RV_REG(RV_REG_TYPE_CONFIG, 0, RV_CONFIG_ISA), &letters) < 0)
		letters = 0x112D;   /* imafdc: a c d f i m */
	size_t n = (size_t)snprintf(isa, len, "rv64");
	for (const char *l = "imafdqcbv"; *l && n + 1 < len; l++)
		if (letters & (1ull << (*l - 'a')))
			isa[n++] = *l, isa[n] = 0;
	kvm_riscv_get_reg(fd, RV_REG(RV_REG_TYPE_ISA_EXT, 0, RV_ISA_EXT_SSTC), &sstc);
	snprintf(isa + n, len - n, "_zicntr_zicsr_zifencei_zihpm_sscofpmf%s", sstc ? "_sstc" : "");
}

static const char *mmu_type(int fd)
{
	uint64_t mode = 0;
	kvm_riscv_get_reg(fd, RV_REG(RV_REG_TYPE_CONFIG, 0, RV_CONFIG_SATP_MODE), &mode);
	return mode == 10 ? "riscv,sv57" : mode == 9 ? "riscv,sv48" : "riscv,sv39";
}

int rv_boot_linux(struct rv_run *rn, const uint8_t *k, size_t ksize, const uint8_t *rd,
		  size_t rdsize, char *err, size_t errlen)
{
	struct riscv_image img;
	struct riscv_layout lay;
	char why[200];
	if (riscv_image_parse(k, ksize, &img, why, sizeof(why)) < 0)
		return BERR("%s: %s", rn->o.kernel, why);
	if (riscv_layout_plan(rn->mem_size, &img, ksize, rdsize, &lay, why, sizeof(why)) < 0)
		return BERR("%s", why);
	memcpy(rn->mem + (lay.kernel - RISCV_RAM_BASE), k, ksize);
	if (rdsize)
		memcpy(rn->mem + (lay.initrd - RISCV_RAM_BASE), rd, rdsize);

	/* The time CSR's rate, as KVM gives it its guests (ONE_REG timer
	 * frequency: the host's riscv_timebase). */
	uint64_t freq = 0;
	int r = kvm_riscv_get_reg(rn->cpu[0].fd, RV_REG(RV_REG_TYPE_TIMER, 0, RV_TIMER_FREQUENCY),
				  &freq);
	if (r < 0 || !freq || freq > UINT32_MAX)
		return BERR("ONE_REG timer frequency: %s", r < 0 ? strerror(-r) : "implausible");
	rn->timebase_hz = (uint32_t)freq;
	char isa[128];
	isa_string(rn->cpu[0].fd, isa, sizeof(isa));
	const struct riscv_dt_params dt = {
		.nr_harts = rn->o.vcpus, .isa = isa, .mmu_type = mmu_type(rn->cpu[0].fd),
		.timebase_hz = rn->timebase_hz, .ram_base = RISCV_RAM_BASE, .ram_size = rn->mem_size,
		.bootargs = rn->o.append, .initrd_start = lay.initrd, .initrd_end = lay.initrd_end,
	};
	int len = riscv_dt_build(&dt, rn->mem + (lay.dtb - RISCV_RAM_BASE), RISCV_DTB_MAX);
	if (len < 0)
		return BERR("the device tree: %s", strerror(-len));

	int fd = rn->cpu[0].fd;
	if ((r = kvm_riscv_set_reg(fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_PC), lay.kernel)) ||
	    (r = kvm_riscv_set_reg(fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_A0), 0)) ||
	    (r = kvm_riscv_set_reg(fd, RV_REG(RV_REG_TYPE_CORE, 0, RV_CORE_A1), lay.dtb)))
		return BERR("hart 0: ONE_REG core registers: %s", strerror(-r));
	fprintf(stderr, "vpmu-run: Image at 0x%llx-0x%llx, initrd at 0x%llx (%zu bytes), device "
		"tree at 0x%llx (%d bytes), timebase %u Hz, riscv,isa %s\n",
		(unsigned long long)lay.kernel, (unsigned long long)lay.kernel_end,
		(unsigned long long)lay.initrd, rdsize, (unsigned long long)lay.dtb, len,
		rn->timebase_hz, isa);
	return 0;
}
