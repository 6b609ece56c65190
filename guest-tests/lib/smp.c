/* SPDX-License-Identifier: MIT */
#include "smp.h"

#include "apic.h"
#include "idt.h"
#include "report.h"
#include "string.h"
#include "timing.h"
#include "x86.h"

/* An AP that gets no work for this long stops waiting (every wait is bounded);
 * the BSP's run is far shorter, and the VM ends with the BSP's exit anyway. */
#define AP_IDLE_LIMIT_MS 120000u
#define AP_TICK_US       100000u

/* Work for one AP: the BSP fills fn/arg and bumps 'posted'; the AP runs it and
 * sets 'done' = 'posted'. */
static struct ap_slot {
	volatile uint32_t online;
	volatile ap_work_fn fn;
	void *volatile arg;
	volatile uint32_t posted, done;
} slots[MAX_CPUS];

static void eoi_only(struct irq_frame *f)
{
	(void)f;
	apic_eoi();
}

void ap_entry(unsigned cpu)
{
	struct ap_slot *s = &slots[cpu];
	struct deadline d;

	idt_init_this_cpu();
	set_irq_handler(VEC_TIMER, eoi_only);
	set_irq_handler(VEC_IPI, eoi_only);
	/* Idle in HLT between timer ticks: a spinning AP would compete with the
	 * BSP for the host CPU (the nested test tier may have only one), and the
	 * tick bounds the wait even if the BSP's wake-up IPI is lost. */
	apic_enable();
	apic_timer_periodic(VEC_TIMER, AP_TICK_US);
	mb();
	s->online = 1;
	deadline_init_us(&d, (uint64_t)AP_IDLE_LIMIT_MS * 1000);
	for (;;) {
		cli();
		if (s->posted != s->done) {
			uint32_t seq = s->posted;
			mb();
			s->fn(s->arg);
			mb();
			s->done = seq;
			deadline_init_us(&d, (uint64_t)AP_IDLE_LIMIT_MS * 1000);
			continue;
		}
		if (deadline_passed(&d))
			break;
		sti_hlt();
	}
	apic_timer_stop();
	diag("cpu %u: no work from the BSP for %u s: parking", cpu, AP_IDLE_LIMIT_MS / 1000);
	for (;;)
		__asm__ volatile("cli; hlt");
}

bool ap_is_online(unsigned cpu)
{
	return cpu < MAX_CPUS && slots[cpu].online;
}

bool smp_wait_online(unsigned ncpus, uint32_t ms)
{
	return WAIT_UNTIL(__extension__({
		bool all = true;
		for (unsigned c = 1; c < ncpus && c < MAX_CPUS; c++)
			all = all && slots[c].online;
		all;
	}), ms);
}

bool ap_run(unsigned cpu, ap_work_fn fn, void *arg)
{
	if (!ap_is_online(cpu) || cpu == 0)
		return false;
	struct ap_slot *s = &slots[cpu];
	if (s->posted != s->done)
		return false;
	s->fn = fn;
	s->arg = arg;
	mb();
	s->posted = s->posted + 1;
	mb();
	apic_send_ipi(cpu, VEC_IPI);
	return true;
}

bool ap_wait_done(unsigned cpu, uint32_t ms)
{
	struct ap_slot *s = &slots[cpu];
	return WAIT_UNTIL(s->done == s->posted, ms);
}

/* ---- QEMU test aid: INIT/SIPI start-up (smp.h) ---------------------------- */

#define SIPI_PAGE 0x07   /* trampoline at 0x7000, below QEMU's multiboot info */

extern const char sipi_tramp_start[], sipi_tramp_end[];

void smp_start_aps_sipi(unsigned ncpus)
{
	memcpy((void *)(uintptr_t)(SIPI_PAGE << 12), sipi_tramp_start,
	       (size_t)(sipi_tramp_end - sipi_tramp_start));
	mb();
	if (apic_send_init_sipi(SIPI_PAGE))
		diag("ap-boot=sipi: the ICR stayed busy");
	if (!smp_wait_online(ncpus, 2000))
		diag("ap-boot=sipi: not every AP came up");
}
