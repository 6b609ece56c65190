/* SPDX-License-Identifier: MIT */
/* vpmu-run's port I/O (a PC with COM1 and the CMOS clock, the PIT being KVM's),
 * the guest contract's exit and ucall ports (guest-tests/guest_abi.h), and the
 * exits that end a run. */
#include <inttypes.h>
#include <linux/kvm.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../guest-tests/guest_abi.h"
#include "kvm_host.h"
#include "vpmu_run.h"

/* A guest string: NUL-terminated within guest memory and VPMU_UCALL_STR_MAX. */
static const char *guest_str(struct run *rn, uint32_t gpa)
{
	if (gpa >= rn->mem_size)
		return NULL;
	size_t max = rn->mem_size - gpa < VPMU_UCALL_STR_MAX ? rn->mem_size - gpa : VPMU_UCALL_STR_MAX;
	const char *s = (const char *)rn->mem + gpa;
	return memchr(s, '\0', max) ? s : NULL;
}

static double elapsed_s(const struct run *rn)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - rn->t0.tv_sec) + (double)(t.tv_nsec - rn->t0.tv_nsec) / 1e9;
}

static void ucall(struct vcpu_ctx *c, uint32_t gpa)
{
	struct run *rn = c->rn;
	struct vpmu_ucall u;
	if (gpa > rn->mem_size || rn->mem_size - gpa < sizeof(u)) {
		run_finish(rn, EXIT_VMM_ERROR, "vCPU %u: ucall record at 0x%x is outside guest memory",
		       c->index, gpa);
		return;
	}
	memcpy(&u, rn->mem + gpa, sizeof(u));
	const char *s = guest_str(rn, u.str);
	if (!s) {
		run_finish(rn, EXIT_VMM_ERROR, "vCPU %u: ucall string at 0x%x is not NUL-terminated in "
		       "guest memory", c->index, u.str);
		return;
	}
	pthread_mutex_lock(&rn->lock);
	switch (u.cmd) {
	case VPMU_UCALL_DIAG:
		printf("# %s\n", s);
		break;
	case VPMU_UCALL_CASE:
		rn->cases++;
		rn->failed_cases += u.arg == VPMU_CASE_FAIL;
		printf("%s %u - %s\n", u.arg == VPMU_CASE_FAIL ? "not ok" : "ok", rn->cases, s);
		break;
	case VPMU_UCALL_MARK: {
		uint64_t mask;
		struct vpmu_totals t;
		vpmu_vcpu_totals(c->vcpu, &t);
		printf("# mark vCPU %u %s: guest value %" PRIu64 ", host %.6f s, PMIs raised %" PRIu64
		       "%s\n", c->index, s, u.arg, elapsed_s(rn), t.pmis,
		       vpmu_vcpu_pmi_pending(c->vcpu, &mask) ? " (one pending)" : "");
		break;
	}
	case VPMU_UCALL_RDPMC_MODE:
		/* The answer goes into the record: the guest reads it after its OUT. */
		u.arg = (uint64_t)vpmu_kvm_vcpu_rdpmc(c->kv);
		memcpy(rn->mem + gpa, &u, sizeof(u));
		break;
	case VPMU_UCALL_NULL_PMU:
		/* The bench's baseline, in the same run: the vPMU is paused (switched
		 * out) while the null handler answers, so libvpmu is not on the path. */
		if (!rn->o.null_pmu) {
			printf("# vCPU %u: null PMU handler refused (vpmu-run --null-pmu allows it)\n",
			       c->index);
			break;
		}
		if (u.arg && !c->null_now)
			vpmu_kvm_vcpu_pause(c->kv);
		c->null_now = u.arg != 0;
		break;
	default:
		printf("# vCPU %u: unknown ucall %u ignored\n", c->index, u.cmd);
	}
	fflush(stdout);
	pthread_mutex_unlock(&rn->lock);
}

/* COM1's interrupt line to the in-kernel PIC/IOAPIC when it moved (under lock);
 * not while the glue rewrites a vCPU's LAPIC page (vpmu_kvm_irq_begin). */
static void com1_irq_update(struct run *rn)
{
	bool line = uart__irq_line(&rn->com1);
	if (line != rn->com1_irq) {
		struct kvm_irq_level irq = { .irq = UART_COM1_IRQ, .level = line };
		vpmu_kvm_irq_begin(rn->pvm);
		if (ioctl(rn->vm, KVM_IRQ_LINE, &irq) == 0)
			rn->com1_irq = line;
		vpmu_kvm_irq_end(rn->pvm);
	}
}

/* COM1 (dev_uart.h): an access under the run's lock, and what it prints to the
 * console. */
static uint32_t com1_access(struct run *rn, unsigned off, bool in, uint8_t v)
{
	uint32_t r = 0;
	pthread_mutex_lock(&rn->lock);
	if (in) {
		r = uart__in(&rn->com1, off);
	} else {
		int out = uart__out(&rn->com1, off, v);
		if (out >= 0) {
			fputc(out, rn->console);
			if (out == '\n')
				fflush(rn->console);
		}
	}
	com1_irq_update(rn);
	pthread_mutex_unlock(&rn->lock);
	return r;
}

/* Console input (console_input.h): into COM1's receiver once the guest's driver
 * listens (its received-data interrupt is on). */
unsigned run_com1_input(void *arg, const uint8_t *bytes, unsigned n)
{
	struct run *rn = arg;
	unsigned took = 0;
	pthread_mutex_lock(&rn->lock);
	if (uart__rx_ready(&rn->com1)) {
		took = uart__input(&rn->com1, bytes, n);
		com1_irq_update(rn);
	}
	pthread_mutex_unlock(&rn->lock);
	return took;
}

static uint32_t cmos_access(struct run *rn, unsigned port, bool in, uint8_t v)
{
	uint32_t r = 0;
	pthread_mutex_lock(&rn->lock);
	if (in)
		r = rtc__in(&rn->cmos, port, time(NULL));
	else
		rtc__out(&rn->cmos, port, v, time(NULL));
	pthread_mutex_unlock(&rn->lock);
	return r;
}

/* Port I/O: a PC with COM1, the CMOS clock, the exit port and the test port
 * (the PIT is KVM's). */
void run_handle_io(struct vcpu_ctx *c)
{
	struct kvm_run *run = c->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	uint16_t port = run->io.port;
	for (uint32_t k = 0; k < run->io.count; k++, data += run->io.size) {
		uint32_t v = 0;
		memcpy(&v, data, run->io.size < 4 ? run->io.size : 4);
		bool com1 = port >= UART_COM1_BASE && port < UART_COM1_BASE + 8;
		bool cmos = port == RTC_PORT_INDEX || port == RTC_PORT_DATA;
		if (run->io.direction == KVM_EXIT_IO_IN) {
			uint32_t in = com1 ? com1_access(c->rn, port - UART_COM1_BASE, true, 0)
				    : cmos ? cmos_access(c->rn, port, true, 0) : 0xFFFFFFFF;
			memcpy(data, &in, run->io.size < 4 ? run->io.size : 4);
		} else if (com1) {
			com1_access(c->rn, port - UART_COM1_BASE, false, (uint8_t)v);
		} else if (cmos) {
			cmos_access(c->rn, port, false, (uint8_t)v);
		} else if (port == VPMU_PORT_EXIT) {
			/* A guest's status must not read as vpmu-run's own (124, 125). */
			int st = (int)(v & 0xFF);
			if (st >= EXIT_TIMEOUT)
				run_finish(c->rn, EXIT_GUEST_HIGH, "the guest exited with status %d, reported "
				       "as %d (124 and 125 are vpmu-run's own)", st, EXIT_GUEST_HIGH);
			else
				run_finish(c->rn, st, NULL);
		} else if (port == VPMU_PORT_UCALL && run->io.size == 4) {
			ucall(c, v);
		}
	}
}

void run_report_exit(struct vcpu_ctx *c)
{
	struct kvm_run *run = c->run;
	struct kvm_regs r;
	memset(&r, 0, sizeof(r));
	ioctl(c->fd, KVM_GET_REGS, &r);
	switch (run->exit_reason) {
	case KVM_EXIT_SHUTDOWN:
		/* Linux with reboot=t ends with a triple fault: its normal end. */
		if (c->rn->o.kernel)
			run_finish(c->rn, 0, "the guest rebooted (a triple fault at RIP 0x%llx: Linux's "
			       "reboot=t)", (unsigned long long)r.rip);
		else
			run_finish(c->rn, EXIT_VMM_ERROR, "vCPU %u: guest shut down (triple fault) at "
			       "EIP 0x%llx", c->index, (unsigned long long)r.rip);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		run_finish(c->rn, EXIT_VMM_ERROR, "vCPU %u: KVM internal error, suberror %u, at EIP 0x%llx%s",
		       c->index, run->internal.suberror, (unsigned long long)r.rip,
		       kvm_host_internal_error_hint(run->internal.suberror,
						    kvm_host_is_pvm("/sys/module")));
		break;
	case KVM_EXIT_FAIL_ENTRY:
		run_finish(c->rn, EXIT_VMM_ERROR, "vCPU %u: VM entry failed, reason 0x%llx", c->index,
		       (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	default:
		run_finish(c->rn, EXIT_VMM_ERROR, "vCPU %u: unexpected KVM exit %u at EIP 0x%llx",
		       c->index, run->exit_reason, (unsigned long long)r.rip);
	}
}

/* What mode a vCPU's registers say it runs in (Intel SDM Vol. 3A, 2.2 "Modes
 * of operation": CR0.PE, IA32_EFER.LMA and CS.L). */
static const char *cpu_mode(const struct kvm_sregs *s)
{
	if (!(s->cr0 & 1))
		return "real mode";
	if (s->efer & (1u << 10))
		return s->cs.l ? "64-bit mode" : "compatibility mode";
	return s->cs.db ? "32-bit protected mode" : "16-bit protected mode";
}

static const char *mp_state_name(uint32_t st)
{
	switch (st) {
	case KVM_MP_STATE_RUNNABLE: return "runnable";
	case KVM_MP_STATE_UNINITIALIZED: return "waiting for INIT";
	case KVM_MP_STATE_INIT_RECEIVED: return "waiting for SIPI";
	case KVM_MP_STATE_HALTED: return "halted";
	case KVM_MP_STATE_SIPI_RECEIVED: return "SIPI received";
	default: return "in an unknown state";
	}
}

void run_report_where(struct run *rn)
{
	for (unsigned i = 0; i < rn->o.vcpus; i++) {
		struct vcpu_ctx *c = &rn->cpu[i];
		struct kvm_regs r;
		struct kvm_sregs s;
		struct kvm_mp_state mp;
		if (c->fd <= 0 || ioctl(c->fd, KVM_GET_REGS, &r) < 0 || ioctl(c->fd, KVM_GET_SREGS, &s) < 0 ||
		    ioctl(c->fd, KVM_GET_MP_STATE, &mp) < 0) {
			fprintf(stderr, "vpmu-run: vCPU %u: its registers cannot be read\n", i);
			continue;
		}
		/* RFLAGS.IF is bit 9 (SDM Vol. 1, 3.4.3). */
		fprintf(stderr, "vpmu-run: vCPU %u was at RIP 0x%llx, CS 0x%x, in %s, interrupts %s, %s\n",
			i, (unsigned long long)r.rip, s.cs.selector, cpu_mode(&s),
			(r.rflags & (1u << 9)) ? "on" : "off", mp_state_name(mp.mp_state));
	}
}
