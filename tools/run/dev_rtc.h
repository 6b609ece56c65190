/* SPDX-License-Identifier: MIT */
/*
 * The PC's CMOS clock (a Motorola MC146818A at ports 0x70/0x71), enough for
 * Linux's rtc-cmos and mc146818_get_time() (drivers/rtc/rtc-mc146818-lib.c):
 * the time and date in BCD or binary, 24- or 12-hour, register A's
 * update-in-progress bit never set, register D's valid-RAM-and-time bit set,
 * the century at 0x32, and the rest of the 128 bytes as RAM.  A guest may set
 * the clock (register B's SET bit, then the time registers); the clock then
 * runs from there.  Registers: the MC146818A data sheet, "Address map".  Pure:
 * the VMM passes the host's time.
 */
#ifndef VPMU_TOOLS_DEV_RTC_H
#define VPMU_TOOLS_DEV_RTC_H

#include <stdint.h>
#include <time.h>

#define RTC_PORT_INDEX 0x70u
#define RTC_PORT_DATA  0x71u

struct rtc {
	uint8_t index;       /* the selected register (bit 7 of the index port is NMI mask) */
	uint8_t ram[128];    /* registers A-D and CMOS RAM; the time registers when set */
	int64_t offset;      /* guest time - host time, seconds */
};

void rtc__init(struct rtc *r);
void rtc__out(struct rtc *r, unsigned port, uint8_t v, time_t now);
uint8_t rtc__in(struct rtc *r, unsigned port, time_t now);

#endif
