/* SPDX-License-Identifier: MIT */
/* The MC146818A of dev_rtc.h. */
#include <stdbool.h>
#include <string.h>

#include "dev_rtc.h"

enum { SEC = 0x00, MIN = 0x02, HOUR = 0x04, WDAY = 0x06, MDAY = 0x07, MON = 0x08, YEAR = 0x09,
       REG_A = 0x0A, REG_B = 0x0B, REG_C = 0x0C, REG_D = 0x0D, CENTURY = 0x32 };

#define B_SET   0x80   /* the guest sets the clock: updates stop */
#define B_DM    0x04   /* binary, not BCD */
#define B_24H   0x02
#define D_VRT   0x80   /* valid RAM and time */
#define HOUR_PM 0x80   /* 12-hour mode */

void rtc__init(struct rtc *r)
{
	memset(r, 0, sizeof(*r));
	r->ram[REG_A] = 0x26;            /* 32.768 kHz time base, 1024 Hz rate; UIP clear */
	r->ram[REG_B] = B_24H;           /* BCD, 24-hour: what a PC BIOS leaves */
	r->ram[REG_D] = D_VRT;
}

static uint8_t enc(const struct rtc *r, unsigned v)
{
	return (r->ram[REG_B] & B_DM) ? (uint8_t)v : (uint8_t)(((v / 10) << 4) | (v % 10));
}

static unsigned dec(const struct rtc *r, uint8_t v)
{
	return (r->ram[REG_B] & B_DM) ? v : (unsigned)(v >> 4) * 10 + (v & 0x0F);
}

static uint8_t enc_hour(const struct rtc *r, unsigned h)
{
	if (r->ram[REG_B] & B_24H)
		return enc(r, h);
	unsigned h12 = h % 12 ? h % 12 : 12;
	return (uint8_t)(enc(r, h12) | (h >= 12 ? HOUR_PM : 0));
}

static unsigned dec_hour(const struct rtc *r, uint8_t v)
{
	if (r->ram[REG_B] & B_24H)
		return dec(r, v);
	unsigned h = dec(r, v & 0x7F) % 12;
	return (v & HOUR_PM) ? h + 12 : h;
}

/* The clock's time registers for guest time t. */
static void fill_time(struct rtc *r, time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	r->ram[SEC] = enc(r, (unsigned)tm.tm_sec);
	r->ram[MIN] = enc(r, (unsigned)tm.tm_min);
	r->ram[HOUR] = enc_hour(r, (unsigned)tm.tm_hour);
	r->ram[WDAY] = enc(r, (unsigned)tm.tm_wday + 1);
	r->ram[MDAY] = enc(r, (unsigned)tm.tm_mday);
	r->ram[MON] = enc(r, (unsigned)tm.tm_mon + 1);
	r->ram[YEAR] = enc(r, (unsigned)(tm.tm_year % 100));
	r->ram[CENTURY] = enc(r, (unsigned)(1900 + tm.tm_year) / 100);
}

/* The time the guest wrote while SET was on, as seconds since the epoch. */
static time_t written_time(const struct rtc *r)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	tm.tm_sec = (int)dec(r, r->ram[SEC]);
	tm.tm_min = (int)dec(r, r->ram[MIN]);
	tm.tm_hour = (int)dec_hour(r, r->ram[HOUR]);
	tm.tm_mday = (int)dec(r, r->ram[MDAY]);
	tm.tm_mon = (int)dec(r, r->ram[MON]) - 1;
	tm.tm_year = (int)(dec(r, r->ram[CENTURY]) * 100 + dec(r, r->ram[YEAR])) - 1900;
	return timegm(&tm);
}

void rtc__out(struct rtc *r, unsigned port, uint8_t v, time_t now)
{
	if (port == RTC_PORT_INDEX) {
		r->index = v & 0x7F;
		return;
	}
	switch (r->index) {
	case REG_B: {
		bool was_set = r->ram[REG_B] & B_SET;
		if (!was_set && (v & B_SET))
			fill_time(r, now + r->offset);   /* frozen where the guest will edit it */
		r->ram[REG_B] = v;
		if (was_set && !(v & B_SET)) {
			time_t t = written_time(r);
			if (t != (time_t)-1)
				r->offset = (int64_t)t - (int64_t)now;
		}
		return;
	}
	case REG_A:
		r->ram[REG_A] = v & 0x7F;   /* UIP is read-only */
		return;
	case REG_C:
	case REG_D:
		return;                      /* read-only */
	default:
		r->ram[r->index] = v;
	}
}

uint8_t rtc__in(struct rtc *r, unsigned port, time_t now)
{
	if (port == RTC_PORT_INDEX)
		return 0xFF;
	switch (r->index) {
	case SEC: case MIN: case HOUR: case WDAY: case MDAY: case MON: case YEAR: case CENTURY:
		if (!(r->ram[REG_B] & B_SET))
			fill_time(r, now + r->offset);
		return r->ram[r->index];
	case REG_C: {
		uint8_t c = r->ram[REG_C];
		r->ram[REG_C] = 0;           /* reading C clears the interrupt flags */
		return c;
	}
	default:
		return r->ram[r->index];
	}
}
