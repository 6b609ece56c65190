/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run for RISC-V (docs/riscv.md, "vpmu-run on RISC-V"): a Linux Image
 * under KVM with libvpmu's SBI PMU, one thread per hart, each on its own host
 * CPU slot of the virtual PMU, the SBI debug console on stdout, the run's end
 * at the guest's system reset or --timeout, and the accounting at exit as the
 * x86 vpmu-run prints it (tools/run/run_accounting.c).  The riscv64 build's
 * main (Makefile, "make riscv64"); the x86 one is tools/run/vpmu-run.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "riscv_boot.h"
#include "riscv_run.h"
#include "run_accounting.h"
#include "run_backend.h"
#include "run_file.h"

void rv_finish(struct rv_run *rn, int status, const char *fmt, ...)
{
	pthread_mutex_lock(&rn->lock);
	if (!rn->done) {
		rn->done = true;
		rn->status = status;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rn->why, sizeof(rn->why), fmt, ap);
		va_end(ap);
		pthread_cond_broadcast(&rn->done_cv);
	}
	pthread_mutex_unlock(&rn->lock);
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if (rn->cpu[i].started)
			pthread_kill(rn->cpu[i].thread, RV_KICK_SIGNAL);
}

static bool run_done(struct rv_run *rn)
{
	pthread_mutex_lock(&rn->lock);
	bool d = rn->done;
	pthread_mutex_unlock(&rn->lock);
	return d;
}

static void *vcpu_thread(void *arg)
{
	struct rv_vcpu *c = arg;
	struct rv_run *rn = c->rn;
	/* Without a host PMU the perf backend counts cycles from the thread's
	 * task clock; the guest's clock is its timebase (the time CSR), the
	 * one rate KVM tells it (x86 passes the TSC's). */
	if (rn->perf && vpmu_perf_bind(rn->perf, c->index, rn->timebase_hz / 1000) < 0)
		fprintf(stderr, "vpmu-run: hart %u runs without a task clock\n", c->index);
	if (c->vcpu && vpmu_vcpu_switch_in(c->vcpu, c->index) < 0) {
		rv_finish(rn, RV_EXIT_VMM_ERROR, "hart %u: vpmu_vcpu_switch_in failed", c->index);
		return NULL;
	}
	while (!run_done(rn)) {
		int r = kvm_riscv_pmu_pre_run(&c->pmu, c->err, sizeof(c->err));
		if (r < 0) {
			rv_finish(rn, RV_EXIT_VMM_ERROR, "hart %u: %s", c->index, c->err);
			break;
		}
		r = ioctl(c->fd, KVM_RUN, 0) < 0 ? -errno : 0;
		kvm_riscv_pmu_post_run(&c->pmu, r);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0) {
			rv_finish(rn, RV_EXIT_VMM_ERROR, "hart %u: KVM_RUN: %s", c->index, strerror(-r));
			break;
		}
		if (rv_handle_exit(c))
			break;
	}
	/* The thread stops running the hart: its virtual PMU switches out. */
	if (c->vcpu && vpmu_vcpu_running(c->vcpu, NULL))
		vpmu_vcpu_switch_out(c->vcpu);
	return NULL;
}

static void kick_handler(int sig) { (void)sig; }

static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "vpmu-run: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return RV_EXIT_VMM_ERROR;
}

/* The library side: the host with its backend, the VM, a vPMU per hart, and
 * the guest's RAM for the snapshot page (vpmu_vm_set_guest_memory). */
static int setup_pmu(struct rv_run *rn)
{
	int r = run_backend_create(rn->o.backend, rn->o.vcpus, RV_KICK_SIGNAL, 0, &rn->perf,
				   &rn->sim, &rn->host);
	if (r < 0)
		return die("creating the %s backend: %s", rn->o.backend, strerror(-r));
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	cfg.model = rn->o.model;
	cfg.flags = rn->o.strict ? VPMU_VM_STRICT : 0;
	if ((r = vpmu_vm_create(rn->host, &cfg, &rn->pvm)) < 0)
		return die("vpmu_vm_create(%s): %s", rn->o.model, strerror(-r));
	const struct vpmu_guest_memory mem = {
		.read = kvm_riscv_ram_read, .write = kvm_riscv_ram_write, .opaque = &rn->ram,
	};
	if ((r = vpmu_vm_set_guest_memory(rn->pvm, &mem)) < 0)
		return die("vpmu_vm_set_guest_memory: %s", strerror(-r));
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		if ((r = vpmu_vcpu_create(rn->pvm, i, &rn->cpu[i].vcpu)) < 0)
			return die("vpmu_vcpu_create(%u): %s", i, strerror(-r));
	return 0;
}

/* The glue's and the VMM's exits per hart, after the totals (text format). */
static void glue_lines(FILE *out, void *arg)
{
	const struct rv_run *rn = arg;
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		const struct kvm_riscv_pmu_stats *p = &rn->cpu[i].pmu.stats;
		const struct rv_exit_stats *e = &rn->cpu[i].stats;
		fprintf(out, "  hart %u KVM: sbi-pmu-calls=%" PRIu64 " csr-reads=%" PRIu64
			" csr-faults=%" PRIu64 " lcofis=%" PRIu64 " kicks=%" PRIu64
			" other-sbi-exits=%" PRIu64 " console-bytes=%" PRIu64 " other-csr-exits=%" PRIu64
			" mmio-exits=%" PRIu64 "\n", i, p->sbi_calls, p->csr_reads, p->csr_faults,
			p->lcofis, p->kicks, e->sbi_exits, e->console_bytes, e->csr_other, e->mmio);
	}
}

static void print_accounting(struct rv_run *rn)
{
	if (!rn->pvm)
		return;
	const struct accounting_run ar = {
		.format = rn->o.accounting, .out = rn->acct_out, .backend = rn->o.backend,
		.perf = rn->perf, .host = rn->host, .vm = rn->pvm, .nr_vcpus = rn->o.vcpus,
		.glue_lines = glue_lines, .glue_arg = rn,
	};
	accounting_print_run(&ar);
}

static int run_guest(struct rv_run *rn)
{
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		if (pthread_create(&rn->cpu[i].thread, NULL, vcpu_thread, &rn->cpu[i]))
			return die("cannot start hart %u's thread", i);
		rn->cpu[i].started = true;
	}
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += rn->o.timeout_s;
	pthread_mutex_lock(&rn->lock);
	while (!rn->done)
		if (pthread_cond_timedwait(&rn->done_cv, &rn->lock, &deadline) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&rn->lock);
	rv_finish(rn, RV_EXIT_TIMEOUT, "TIMEOUT: the guest did not finish within %u s",
		  rn->o.timeout_s);
	for (unsigned i = 0; i < rn->o.vcpus; i++)
		pthread_join(rn->cpu[i].thread, NULL);
	fflush(rn->console);
	print_accounting(rn);
	fprintf(stderr, "vpmu-run: %s\n", rn->why);
	return rn->status;
}

static int boot(struct rv_run *rn)
{
	/* The files first: a file that is refused costs nothing else. */
	uint8_t *k = NULL, *rd = NULL;
	size_t ksize = 0, rdsize = 0;
	char err[512];
	int r = 0;
	if (run_read_file(rn->o.kernel, rn->mem_size, &k, &ksize, err, sizeof(err)) < 0)
		r = die("cannot read kernel %s: %s", rn->o.kernel, err);
	else if (rn->o.initrd &&
		 run_read_file(rn->o.initrd, rn->mem_size, &rd, &rdsize, err, sizeof(err)) < 0)
		r = die("cannot read initrd %s: %s", rn->o.initrd, err);
	if (!r && !rn->o.no_pmu)
		r = setup_pmu(rn);
	if (!r && rv_create_vm(rn, err, sizeof(err)) < 0)
		r = die("%s", err);
	if (!r && rv_boot_linux(rn, k, ksize, rd, rdsize, err, sizeof(err)) < 0)
		r = die("%s", err);
	free(k);
	free(rd);
	if (r)
		return r;
	if (rn->perf)
		fprintf(stderr, "vpmu-run: host counters: %s\n", vpmu_perf_source(rn->perf));
	return run_guest(rn);
}

static void cleanup(struct rv_run *rn)
{
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
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

int main(int argc, char **argv)
{
	static struct rv_run rn;
	rv_parse_args(argc, argv, &rn.o);
	rn.kvm = rn.vm = -1;
	/* A document of the accounting on stdout has it alone: the console
	 * goes to stderr then (as the x86 vpmu-run's run_accounting_output). */
	rn.acct_out = cli_output("vpmu-run", rn.o.output, RV_EXIT_VMM_ERROR);
	rn.console = rn.o.accounting != ACCT_TEXT && rn.acct_out == stdout ? stderr : stdout;
	pthread_mutex_init(&rn.lock, NULL);
	pthread_cond_init(&rn.done_cv, NULL);

	/* The kick is blocked everywhere but inside KVM_RUN (riscv_boot.c). */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick_handler;
	sigaction(RV_KICK_SIGNAL, &sa, NULL);
	sigset_t kick;
	sigemptyset(&kick);
	sigaddset(&kick, RV_KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &kick, NULL);

	rn.mem_size = (size_t)rn.o.mem_mb << 20;
	rn.mem = mmap(NULL, rn.mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int status;
	if (rn.mem == MAP_FAILED) {
		rn.mem = NULL;
		status = die("cannot map %u MiB of guest memory: %s", rn.o.mem_mb, strerror(errno));
	} else {
		rn.ram = (struct kvm_riscv_ram){ .host = rn.mem, .gpa = 0x80000000ull,
						 .size = rn.mem_size };
		status = boot(&rn);
	}
	cleanup(&rn);
	if (rn.acct_out != stdout && cli_output_close("vpmu-run", rn.acct_out, rn.o.output) < 0 &&
	    status == 0)
		status = RV_EXIT_VMM_ERROR;
	return status;
}
