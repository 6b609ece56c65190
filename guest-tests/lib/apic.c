/* SPDX-License-Identifier: MIT */
#include "apic.h"

#include "layout.h"
#include "timing.h"
#include "x86.h"

#define ICR_BUSY      (1u << 12)
#define ICR_INIT      (5u << 8)
#define ICR_STARTUP   (6u << 8)
#define ICR_ASSERT    (1u << 14)
#define ICR_ALL_BUT_SELF (3u << 18)

uint32_t apic_read(uint32_t reg)
{
	return mmio_read32(LAPIC_BASE + reg);
}

void apic_write(uint32_t reg, uint32_t v)
{
	mmio_write32(LAPIC_BASE + reg, v);
}

unsigned apic_id(void)
{
	return apic_read(APIC_ID) >> 24;
}

void apic_enable(void)
{
	apic_write(APIC_SVR, apic_read(APIC_SVR) | APIC_SVR_ENABLE | 0xFF);
	/* KVM resets the BSP's LINT0 to ExtINT (8259 interrupts, whose vectors
	 * QEMU's BIOS leaves at 0x08-0x0F, where exceptions live); the only
	 * interrupts a guest here expects are its own (PMI, IPI, timer). */
	apic_write(APIC_LVT0, APIC_LVT_MASKED);
	apic_write(APIC_LVT1, APIC_LVT_MASKED);
}

void pic_mask_all(void)
{
	outb(0x21, 0xFF);
	outb(0xA1, 0xFF);
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

static int icr_wait_idle(void)
{
	return WAIT_UNTIL(!(apic_read(APIC_ICR_LO) & ICR_BUSY), 100) ? 0 : -1;
}

void apic_send_ipi(unsigned dest, uint8_t vector)
{
	icr_wait_idle();
	apic_write(APIC_ICR_HI, dest << 24);
	apic_write(APIC_ICR_LO, APIC_DM_FIXED | ICR_ASSERT | vector);
}

int apic_send_init_sipi(uint8_t page)
{
	/* The universal start-up algorithm (MP spec B.4): INIT, 10 ms, SIPI, 200 us,
	 * SIPI. */
	if (icr_wait_idle())
		return -1;
	apic_write(APIC_ICR_HI, 0);
	apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_INIT | ICR_ASSERT);
	spin_us(10000);
	for (int i = 0; i < 2; i++) {
		if (icr_wait_idle())
			return -1;
		apic_write(APIC_ICR_LO, ICR_ALL_BUT_SELF | ICR_STARTUP | ICR_ASSERT | page);
		spin_us(200);
	}
	return icr_wait_idle();
}

void apic_timer_periodic(uint8_t vector, uint32_t us)
{
	apic_write(APIC_TDCR, 0x3);                   /* divide by 16 */
	apic_write(APIC_LVTT, APIC_LVT_PERIODIC | vector);
	apic_write(APIC_TMICT, us * (1000 / 16));     /* 1 GHz / 16 = 62.5 per us */
}

void apic_timer_stop(void)
{
	apic_write(APIC_TMICT, 0);
	apic_write(APIC_LVTT, APIC_LVT_MASKED);
}
