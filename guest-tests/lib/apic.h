/* SPDX-License-Identifier: MIT */
/*
 * Local APIC (xAPIC MMIO at 0xFEE00000, guest_abi.h).  It starts
 * software-disabled (docs/guest-abi.md), so SVR bit 8 must be set before a
 * fixed-vector PMI (or any interrupt) can arrive; LVTPC holds the PMI's vector
 * (bits 0-7), delivery mode (bits 8-10: 000 fixed, 100 NMI) and mask (bit 16).
 */
#ifndef GUEST_APIC_H
#define GUEST_APIC_H

#include <stdint.h>

#define APIC_ID       0x020
#define APIC_EOI      0x0B0
#define APIC_SVR      0x0F0
#define APIC_ICR_LO   0x300
#define APIC_ICR_HI   0x310
#define APIC_LVTT     0x320
#define APIC_LVTPC    0x340
#define APIC_LVT0     0x350
#define APIC_LVT1     0x360
#define APIC_TMICT    0x380
#define APIC_TDCR     0x3E0

#define APIC_SVR_ENABLE   (1u << 8)
#define APIC_LVT_MASKED   (1u << 16)
#define APIC_DM_FIXED     (0u << 8)
#define APIC_DM_NMI       (4u << 8)
#define APIC_LVT_PERIODIC (1u << 17)

uint32_t apic_read(uint32_t reg);
void apic_write(uint32_t reg, uint32_t v);
unsigned apic_id(void);
/* SVR = enable | spurious vector 0xFF, LINT0/LINT1 masked. */
void apic_enable(void);
/* Masks every input of the legacy 8259 PICs. */
void pic_mask_all(void);
void apic_eoi(void);
void apic_send_ipi(unsigned dest, uint8_t vector);
/* INIT, then two STARTUPs at page 'page' (QEMU aid, smp.h); false on timeout. */
int apic_send_init_sipi(uint8_t page);
/* Periodic LAPIC timer interrupts at 'vector' roughly every 'us' microseconds
 * (KVM's and QEMU's APIC timers run at 1 GHz before the divider). */
void apic_timer_periodic(uint8_t vector, uint32_t us);
void apic_timer_stop(void);

#endif
