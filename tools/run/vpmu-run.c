/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run: a small VMM that boots a flat or multiboot x86 guest under KVM with
 * a libvpmu virtual PMU (docs/vpmu-run.md; the guest contract is
 * guest-tests/guest_abi.h).  One thread per vCPU, each on its own host CPU slot of
 * the virtual PMU; the serial console on 0x3F8, the exit status on port 0xF4,
 * test reports (TAP) on port 0xF0, a wall-clock limit, and the per-vCPU and
 * per-VM accounting at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vpmu/backend.h"
#include "vpmu/kvm_x86.h"
#include "vpmu/vpmu.h"
#include "../../guest-tests/guest_abi.h"
#include "run_accounting.h"
#include "run_backend.h"
#include "run_filter.h"
#include "common/cli.h"
#include "live/live_vm.h"
#include "live/stat_dir.h"
#include "accounting/acct_formats.h"
#include "console_input.h"
#include "dev_rtc.h"
#include "dev_uart.h"
#include "guest_boot.h"
#include "linux_boot.h"
#include "kvm_host.h"
#include "kvm_pvclock.h"
#include "mptable.h"
#include "vpmu_run.h"

static bool run_done(struct run *rn)
{
	pthread_mutex_lock(&rn->lock);
	bool d = rn->done;
	pthread_mutex_unlock(&rn->lock);
	return d;
}

/* The same MSR exits (the glue's filter) answered by a handler that does
 * nothing (reads 0, writes ignored): the baseline of bench/kvm-exits.sh's
 * side-by-side measurement, switched on and off by the guest
 * (VPMU_UCALL_NULL_PMU) where vpmu-run --null-pmu allows it.  A run loop of
 * the glue's steps (kvm_x86.h, "The steps") with the vPMU paused: pre_run and
 * post_run do only what every entry needs (the LVTPC write gate, the kick's
 * consumption), and the handler stands where vpmu_kvm_vcpu_handle_exit would. */
static int null_pmu_run(struct vcpu_ctx *c)
{
	for (;;) {
		int r = vpmu_kvm_vcpu_pre_run(c->kv, c->err);
		if (r < 0)
			return r;
		r = ioctl(c->fd, KVM_RUN, 0) < 0 ? -errno : 0;
		vpmu_kvm_vcpu_post_run(c->kv, r);
		if (r == -EAGAIN)   /* a vCPU waiting for INIT/SIPI (kvm_steps.c) */
			continue;
		if (r < 0) {
			if (r != -EINTR)
				snprintf(c->err, sizeof(c->err), "KVM_RUN: %s", strerror(-r));
			return r;
		}
		if (c->run->exit_reason == KVM_EXIT_X86_RDMSR)
			c->run->msr.data = 0;
		else if (c->run->exit_reason != KVM_EXIT_X86_WRMSR)
			return 0;
		c->run->msr.error = 0;
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu_ctx *c = arg;
	struct run *rn = c->rn;
	/* The guest's TSC rate scales the task clock into its cycles (perf.c). */
	int khz = ioctl(c->fd, KVM_GET_TSC_KHZ, 0);
	if (rn->perf && vpmu_perf_bind(rn->perf, c->index, khz > 0 ? (uint32_t)khz : 0) < 0)
		/* The VM runs on; the counters the clock would count read zero, and
		 * the refusal was logged (run_backend.c perf_log) and shows in the accounting. */
		fprintf(stderr, "vpmu-run: vCPU %u runs without a task clock\n", c->index);
	if (vpmu_kvm_vcpu_setup(rn->vm, c->fd, c->run, c->vcpu, KICK_SIGNAL, &c->kv, c->err) < 0) {
		run_finish(rn, EXIT_VMM_ERROR, "vCPU %u: %s", c->index, c->err);
		return NULL;
	}
	/* Linux on a legacy model's CPUID cannot calibrate its TSC under nested
	 * KVM: kvmclock gives it the rate (tools/run/kvm_pvclock.h). */
	if (rn->o.kernel && !rn->o.no_kvmclock &&
	    kvm_pvclock_present(c->fd, rn->pvm, c->index, c->err, sizeof(c->err)) < 0) {
		run_finish(rn, EXIT_VMM_ERROR, "vCPU %u: %s", c->index, c->err);
		return NULL;
	}
	pthread_mutex_lock(&rn->lock);
	rn->ready++;
	pthread_cond_broadcast(&rn->done_cv);
	pthread_mutex_unlock(&rn->lock);
	/* How the guest's RDPMC (Linux perf's counter reads) reaches the model,
	 * and the clock its cycles follow without a host PMU. */
	if (c->index == 0) {
		fprintf(stderr, "vpmu-run: guest RDPMC: %s\n",
			vpmu_kvm_rdpmc_name(vpmu_kvm_vcpu_rdpmc(c->kv)));
		if (khz > 0)
			fprintf(stderr, "vpmu-run: guest TSC: %d kHz (KVM_GET_TSC_KHZ)\n", khz);
	}
	while (!run_done(rn)) {
		int r = c->null_now ? null_pmu_run(c) : vpmu_kvm_vcpu_run(c->kv, c->index, c->err);
		if (r == -EINTR)
			continue;
		if (r < 0) {
			run_finish(rn, EXIT_VMM_ERROR, "vCPU %u: %s", c->index, c->err);
			break;
		}
		switch (c->run->exit_reason) {
		case KVM_EXIT_IO:
			run_handle_io(c);
			break;
		case KVM_EXIT_MMIO: /* nothing is mapped there: reads see all-ones */
			if (!c->run->mmio.is_write)
				memset(c->run->mmio.data, 0xFF, sizeof(c->run->mmio.data));
			break;
		case KVM_EXIT_HLT: /* a halted vCPU with the in-kernel LAPIC does not exit */
			break;
		default:
			run_report_exit(c);
		}
	}
	/* The thread stops running the vCPU: its virtual PMU switches out. */
	vpmu_kvm_vcpu_pause(c->kv);
	return NULL;
}

static void kick_handler(int sig) { (void)sig; }

static int die(struct run *rn, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "vpmu-run: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	(void)rn;
	return EXIT_VMM_ERROR;
}

/* The library side: host with the chosen backend, the VM and its vCPUs. */
static int setup_pmu(struct run *rn)
{
	int r = run_backend_create(rn->o.backend, rn->o.vcpus, KICK_SIGNAL,
				   rn->o.no_host_pmu ? VPMU_PERF_NO_HOST_PMU : 0, &rn->perf, &rn->sim,
				   &rn->host);
	if (r < 0)
		return die(rn, "creating the %s backend: %s", rn->o.backend, strerror(-r));
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct vpmu_model_info info = { 0 };
	cfg.model = rn->o.model;
	cfg.flags = rn->o.strict ? VPMU_VM_STRICT : 0;
	cfg.cpumodel = rn->o.cpumodel;
	cfg.stepping = rn->o.stepping;
	cfg.ht = rn->o.ht;
	cfg.pmu_version = rn->o.pmu_version;
	cfg.nr_general = rn->o.nr_general;
	cfg.nr_fixed = rn->o.nr_fixed;
	if ((r = vpmu_vm_create(rn->host, &cfg, &rn->pvm)) < 0) {
		vpmu_model_info(rn->o.model, &info);
		if (r == -EINVAL && cfg.ht && !info.hyper_threading)
			return die(rn, "--ht: the %s model's CPUs had no hyper-threading (p4 and "
				   "p4-em64t had)", rn->o.model);
		if (r == -EINVAL && (cfg.pmu_version >= 0 || cfg.nr_general >= 0 || cfg.nr_fixed >= 0))
			return die(rn, "the %s model's PMU cannot be narrowed so: it has at most "
				   "version %u, %u general and %u fixed counters%s", rn->o.model,
				   info.pmu_version, info.nr_general, info.nr_fixed,
				   info.pmu_version ? "" : " (a legacy PMU has one geometry)");
		return die(rn, "vpmu_vm_create(%s): %s", rn->o.model, strerror(-r));
	}
	if (rn->o.filter) {
		char err[512];
		if (run_filter_apply(rn->o.filter, rn->pvm, err, sizeof(err)) < 0)
			return die(rn, "--event-filter: %s", err);
	}
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if ((r = vpmu_vcpu_create(rn->pvm, i, &rn->cpu[i].vcpu)) < 0)
			return die(rn, "vpmu_vcpu_create(%u): %s", i, strerror(-r));
	return 0;
}

/* The KVM side: VM, memory, irqchip, the PMU glue, vCPUs at the entry point. */
static int setup_kvm(struct run *rn)
{
	char err[VPMU_KVM_ERRLEN];
	rn->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (rn->kvm < 0) {
		char why[320];
		kvm_host_open_error(errno, why, sizeof(why));
		return die(rn, "%s", why);
	}
	rn->vm = ioctl(rn->kvm, KVM_CREATE_VM, 0);
	if (rn->vm < 0)
		return die(rn, "KVM_CREATE_VM: %s", strerror(errno));
	ioctl(rn->vm, KVM_SET_TSS_ADDR, 0xFFFBD000ul); /* VMX needs it; SVM ignores it */
	struct kvm_userspace_memory_region region = {
		.slot = 0, .guest_phys_addr = 0, .memory_size = rn->mem_size,
		.userspace_addr = (uint64_t)(uintptr_t)rn->mem,
	};
	if (ioctl(rn->vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return die(rn, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	if (ioctl(rn->vm, KVM_CREATE_IRQCHIP, 0) < 0)
		return die(rn, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
	/* The in-kernel 8254 PIT on IRQ 0, with port 0x61's speaker bits (Linux
	 * calibrates the TSC against them), as QEMU's and kvmtool's PCs have. */
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	if (ioctl(rn->vm, KVM_CREATE_PIT2, &pit) < 0)
		return die(rn, "KVM_CREATE_PIT2: %s", strerror(errno));
	if (vpmu_kvm_vm_setup(rn->vm, rn->pvm, err) < 0)
		return die(rn, "%s", err);
	int rs = ioctl(rn->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (rs <= 0)
		return die(rn, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	rn->run_size = (size_t)rs;
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		struct vcpu_ctx *c = &rn->cpu[i];
		c->rn = rn;
		c->index = i;
		c->fd = ioctl(rn->vm, KVM_CREATE_VCPU, (unsigned long)i);
		if (c->fd < 0)
			return die(rn, "KVM_CREATE_VCPU %u: %s", i, strerror(errno));
		c->run = mmap(NULL, rn->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
		if (c->run == MAP_FAILED) {
			c->run = NULL;
			return die(rn, "mmap of vCPU %u's kvm_run: %s", i, strerror(errno));
		}
	}
	return 0;
}

/* The accounting at exit, in --accounting's format (accounting.h). */
static void print_accounting(struct run *rn)
{
	const struct vpmu_kvm_stats *kvm[MAX_VCPUS];
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		kvm[i] = rn->cpu[i].kv ? vpmu_kvm_vcpu_stats(rn->cpu[i].kv) : NULL;
	const struct accounting_run ar = {
		.format = rn->o.accounting, .out = rn->acct_out,
		.tap = rn->o.tap && rn->acct_out == stdout, .backend = rn->o.backend,
		.perf = rn->perf, .host = rn->host, .vm = rn->pvm, .kvm = kvm, .nr_vcpus = rn->o.vcpus,
	};
	accounting_print_run(&ar);
}

static void cleanup(struct run *rn)
{
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		vpmu_kvm_vcpu_destroy(rn->cpu[i].kv);
		if (rn->cpu[i].run)
			munmap(rn->cpu[i].run, rn->run_size);
		if (rn->cpu[i].fd > 0)
			close(rn->cpu[i].fd);
	}
	if (rn->vm >= 0)
		close(rn->vm);
	if (rn->kvm >= 0)
		close(rn->kvm);
	if (rn->mem)
		munmap(rn->mem, rn->mem_size);
	vpmu_vm_destroy(rn->pvm);
	vpmu_host_destroy(rn->host);
	vpmu_perf_destroy(rn->perf);
	vpmu_sim_destroy(rn->sim);
}

/* What the guest's tests may expect to count (guest-tests/lib/cmdline.h):
 * every event (a host PMU), the clock-class ones (the scaled task clock), or
 * none (the sim: nothing ticks it under KVM). */
static const char *host_counts_word(const struct run *rn)
{
	if (!rn->perf)
		return "none";
	if (vpmu_host_event_source(rn->host, VPMU_EV_INSTRUCTIONS, NULL) != VPMU_COUNT_NONE)
		return "all";
	return vpmu_host_event_source(rn->host, VPMU_EV_CYCLES, NULL) != VPMU_COUNT_NONE ? "clock"
											   : "none";
}

/* A multiboot or flat IMAGE: loaded, and every vCPU at its entry (guest_abi.h). */
static int boot_image(struct run *rn, const uint8_t *data, size_t size)
{
	char err[256];
	char cmdline[GUEST_CMDLINE_MAX + 112], ident[48] = "";
	if (rn->o.cpumodel >= 0)
		snprintf(ident, sizeof(ident), " cpumodel=%d", rn->o.cpumodel);
	if (rn->o.stepping >= 0)
		snprintf(ident + strlen(ident), sizeof(ident) - strlen(ident), " stepping=%d",
			 rn->o.stepping);
	snprintf(cmdline, sizeof(cmdline), "model=%s vcpus=%u strict=%d backend=%s counts=%s%s%s%s",
		 rn->o.model, rn->o.vcpus, rn->o.strict, rn->o.backend, host_counts_word(rn), ident,
		 *rn->o.append ? " " : "", rn->o.append);
	struct guest_image img;
	int r = guest_load(rn->mem, rn->mem_size, data, size, cmdline, &img, err, sizeof(err));
	if (r < 0)
		return die(rn, "%s: %s", rn->o.image, err);
	if ((r = setup_kvm(rn)))
		return r;
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if (guest_enter_protected_mode(rn->cpu[i].fd, &img, err, sizeof(err)) < 0)
			return die(rn, "vCPU %u: %s", i, err);
	return 0;
}

/* A Linux kernel (linux_boot.h): the boot vCPU at the 32-bit entry, the
 * others waiting for the INIT/SIPI that Linux sends them (KVM's LAPIC). */
static int boot_linux(struct run *rn, const uint8_t *k, size_t ksize, const uint8_t *rd,
		      size_t isize)
{
	char err[256];
	struct linux_image img;
	int r = linux_load(rn->mem, rn->mem_size, k, ksize, rd, isize, rn->o.append, &img, err,
			   sizeof(err));
	if (r < 0)
		return die(rn, "%s: %s", rn->o.kernel, err);
	/* No ACPI: the MP table tells Linux the vCPUs and the I/O APIC. */
	struct vpmu_cpu_identity id;
	if (vpmu_vm_cpu(rn->pvm, &id) < 0)
		return die(rn, "vpmu_vm_cpu failed");
	uint32_t sig = ((id.family > 15 ? 15 : id.family) << 8) | ((id.cpumodel & 0xF) << 4) |
		       (id.stepping & 0xF);
	if (mptable_write(rn->mem, rn->mem_size, LINUX_EBDA, rn->o.vcpus, sig, id.cpuid1_edx, err,
			  sizeof(err)) < 0)
		return die(rn, "%s", err);
	if ((r = setup_kvm(rn)))
		return r;
	if (linux_enter(rn->cpu[0].fd, &img, err, sizeof(err)) < 0)
		return die(rn, "vCPU 0: %s", err);
	return 0;
}

static int boot(struct run *rn)
{
	/* The files first, before the PMU, KVM or any thread: a file that is
	 * refused costs nothing else, and needs no /dev/kvm (run_file.c). */
	struct { const char *what, *path; uint8_t *data; size_t size; } f[2] = {
		{ .what = rn->o.kernel ? "kernel" : "guest image",
		  .path = rn->o.kernel ? rn->o.kernel : rn->o.image },
		{ .what = "initrd", .path = rn->o.initrd },
	};
	char err[256];
	int r = 0;
	for (unsigned i = 0; i < 2 && !r; i++)
		if (f[i].path && run_read_file(f[i].path, rn->mem_size, &f[i].data, &f[i].size, err,
					       sizeof(err)) < 0)
			r = die(rn, "cannot read %s %s: %s", f[i].what, f[i].path, err);
	/* The PMU next: the command line says what its host counts. */
	if (!r)
		r = setup_pmu(rn);
	if (!r)
		r = rn->o.kernel ? boot_linux(rn, f[0].data, f[0].size, f[1].data, f[1].size)
				 : boot_image(rn, f[0].data, f[0].size);
	free(f[0].data);
	free(f[1].data);
	if (r)
		return r;

	/* What the guest's counters will count here, before it prints a profile. */
	if (rn->perf)
		fprintf(stderr, "vpmu-run: host counters: %s\n", vpmu_perf_source(rn->perf));
	clock_gettime(CLOCK_MONOTONIC, &rn->t0);
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if (pthread_create(&rn->cpu[i].thread, NULL, vcpu_thread, &rn->cpu[i]))
			return die(rn, "cannot start vCPU thread %u", i);
	/* A terminal on stdin is the console's keyboard (not in --tap mode, whose
	 * stdin belongs to the test harness); --console-input makes any stdin one. */
	struct console_input *input = NULL;
	if (rn->o.console_input || (isatty(STDIN_FILENO) && !rn->o.tap))
		if (console_input_start(STDIN_FILENO, run_com1_input, rn, &input) < 0)
			fprintf(stderr, "vpmu-run: no console input: cannot start its thread\n");
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += rn->o.timeout_s;
	pthread_mutex_lock(&rn->lock);
	/* The live socket opens once every vCPU is set up: what it reads of
	 * them (their glue, the host's event sources) no longer changes. */
	while (!rn->done && rn->ready < rn->o.vcpus)
		if (pthread_cond_timedwait(&rn->done_cv, &rn->lock, &deadline) == ETIMEDOUT)
			break;
	bool serve = rn->o.name && !rn->done && rn->ready == rn->o.vcpus;
	pthread_mutex_unlock(&rn->lock);
	static struct live_vm live;
	struct stat_server *server = NULL;
	if (serve) {
		live = (struct live_vm){ .name = rn->o.name, .vm = rn->pvm, .host = rn->host,
					 .kick_signal = KICK_SIGNAL, .nr_vcpus = rn->o.vcpus,
					 .shared = rn->o.stat_shared, .group = rn->o.stat_group };
		for (unsigned i = 0; i < rn->o.vcpus; i++)
			live.vcpu[i] = (struct live_vcpu){ .kv = rn->cpu[i].kv,
							   .thread = rn->cpu[i].thread };
		server = live_vm_serve(&live);
	}
	pthread_mutex_lock(&rn->lock);
	while (!rn->done)
		if (pthread_cond_timedwait(&rn->done_cv, &rn->lock, &deadline) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&rn->lock);
	/* The socket closes before the vCPU threads end: it kicks them. */
	live_vm_unserve(server, &live);
	/* A guest spinning without exits never leaves KVM_RUN by itself: the kick does. */
	run_finish(rn, EXIT_TIMEOUT, "TIMEOUT: the guest did not finish within %u s", rn->o.timeout_s);
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		pthread_join(rn->cpu[i].thread, NULL);
	console_input_stop(input);
	fflush(rn->console);
	if (rn->o.tap || rn->cases)
		printf("1..%u\n", rn->cases);
	print_accounting(rn);
	if (*rn->why)
		fprintf(stderr, "vpmu-run: %s\n", rn->why);
	if (rn->status == EXIT_TIMEOUT)
		run_report_where(rn);
	return rn->status;
}

int main(int argc, char **argv)
{
	static struct run rn;
	run_parse_args(argc, argv, &rn.o);
	rn.acct_out = run_accounting_output(&rn.o);
	rn.kvm = rn.vm = -1;
	rn.console = rn.o.tap ? stderr : stdout;
	uart__init(&rn.com1);
	rtc__init(&rn.cmos);
	pthread_mutex_init(&rn.lock, NULL);
	pthread_cond_init(&rn.done_cv, NULL);

	/* The kick signal is blocked everywhere but inside KVM_RUN (kvm_x86.h); its
	 * handler does nothing, it only has to interrupt KVM_RUN. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick_handler;
	sigaction(KICK_SIGNAL, &sa, NULL);
	sigset_t kick;
	sigemptyset(&kick);
	sigaddset(&kick, KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &kick, NULL);

	rn.mem_size = (size_t)rn.o.mem_mb << 20;
	rn.mem = mmap(NULL, rn.mem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
		      MAP_NORESERVE, -1, 0);
	int status;
	if (rn.mem == MAP_FAILED) {
		rn.mem = NULL;
		status = die(&rn, "cannot map %u MiB of guest memory: %s", rn.o.mem_mb, strerror(errno));
	} else {
		status = boot(&rn);
	}
	cleanup(&rn);
	if (rn.acct_out != stdout && cli_output_close("vpmu-run", rn.acct_out, rn.o.output) < 0 &&
	    status == 0)
		status = EXIT_VMM_ERROR;
	return status;
}
