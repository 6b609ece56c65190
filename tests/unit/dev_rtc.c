/* SPDX-License-Identifier: MIT */
/*
 * The CMOS clock model (tools/run/dev_rtc.c) as Linux's mc146818_get_time() and
 * hwclock use it, at fixed host times: 2000-02-29 13:45:07 UTC (a Tuesday of a
 * leap day; 951831907 s since the epoch) read in BCD and binary, 24- and
 * 12-hour mode; a clock the guest sets keeps running from what it wrote.
 */
#include "run/dev_rtc.h"
#include "tap.h"

static uint8_t reg(struct rtc *r, uint8_t index, time_t now)
{
	rtc__out(r, RTC_PORT_INDEX, index, now);
	return rtc__in(r, RTC_PORT_DATA, now);
}

static void set(struct rtc *r, uint8_t index, uint8_t v, time_t now)
{
	rtc__out(r, RTC_PORT_INDEX, index, now);
	rtc__out(r, RTC_PORT_DATA, v, now);
}

int main(void)
{
	const time_t t = 951831907;
	struct rtc r;
	rtc__init(&r);
	is_u64(reg(&r, 0x0A, t) & 0x80, 0, "register A: update in progress never set");
	is_u64(reg(&r, 0x0B, t), 0x02, "register B: BCD, 24-hour, as a PC BIOS leaves it");
	is_u64(reg(&r, 0x0D, t), 0x80, "register D: valid RAM and time");
	is_u64(reg(&r, 0x00, t), 0x07, "seconds 07 (BCD)");
	is_u64(reg(&r, 0x02, t), 0x45, "minutes 45");
	is_u64(reg(&r, 0x04, t), 0x13, "hours 13");
	is_u64(reg(&r, 0x06, t), 0x03, "day of week 3 (Tuesday; Sunday is 1)");
	is_u64(reg(&r, 0x07, t), 0x29, "day of month 29 (a leap day)");
	is_u64(reg(&r, 0x08, t), 0x02, "month 02");
	is_u64(reg(&r, 0x09, t), 0x00, "year 00");
	is_u64(reg(&r, 0x32, t), 0x20, "century 20");
	is_u64(reg(&r, 0x00, t + 61), 0x08, "61 s later the seconds read 08 ...");
	is_u64(reg(&r, 0x02, t + 61), 0x46, "... and the minutes 46");
	rtc__out(&r, RTC_PORT_INDEX, 0x80 | 0x0D, t);
	is_u64(rtc__in(&r, RTC_PORT_DATA, t), 0x80, "index bit 7 (NMI mask) does not change the register");

	set(&r, 0x0B, 0x06, t);
	is_u64(reg(&r, 0x04, t), 13, "binary mode: hours 13");
	is_u64(reg(&r, 0x07, t), 29, "binary mode: day 29");
	is_u64(reg(&r, 0x32, t), 20, "binary mode: century 20");
	set(&r, 0x0B, 0x00, t);
	is_u64(reg(&r, 0x04, t), 0x81, "12-hour BCD: 1 PM reads 0x81");
	is_u64(reg(&r, 0x04, t - 13 * 3600), 0x12, "12-hour BCD: midnight reads 12 AM (0x12)");

	/* hwclock --systohc: SET, the time registers, SET cleared. */
	set(&r, 0x0B, 0x82, t);
	set(&r, 0x00, 0x05, t);
	set(&r, 0x02, 0x04, t);
	set(&r, 0x04, 0x03, t);
	set(&r, 0x07, 0x02, t);
	set(&r, 0x08, 0x01, t);
	set(&r, 0x09, 0x30, t);
	set(&r, 0x32, 0x20, t);
	is_u64(reg(&r, 0x00, t + 5), 0x05, "while SET is on the clock does not update");
	set(&r, 0x0B, 0x02, t);
	is_u64(reg(&r, 0x00, t + 10), 0x15, "the set clock runs: 03:04:05 + 10 s reads 15 s");
	ok(reg(&r, 0x04, t + 10) == 0x03 && reg(&r, 0x07, t + 10) == 0x02 &&
	   reg(&r, 0x08, t + 10) == 0x01 && reg(&r, 0x09, t + 10) == 0x30 && reg(&r, 0x32, t + 10) == 0x20,
	   "... on 2030-01-02 at 03 hours");

	set(&r, 0x40, 0x5A, t);
	is_u64(reg(&r, 0x40, t), 0x5A, "CMOS RAM byte 0x40 reads back");
	set(&r, 0x0D, 0x00, t);
	is_u64(reg(&r, 0x0D, t), 0x80, "register D is read-only");
	return tap_done();
}
