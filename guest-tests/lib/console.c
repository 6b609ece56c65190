/* SPDX-License-Identifier: MIT */
#include "console.h"

#include "../../guest-tests/guest_abi.h"
#include "timing.h"
#include "x86.h"

static volatile uint32_t lock;

void console_line(const char *s)
{
	/* If the holder died mid-line (an exception on another vCPU), print
	 * anyway after 100 ms rather than lose the line. */
	bool locked = WAIT_UNTIL(xchg32(&lock, 1) == 0, 100);
	for (; *s; s++)
		outb(VPMU_PORT_SERIAL, (uint8_t)*s);
	outb(VPMU_PORT_SERIAL, '\n');
	if (locked)
		xchg32(&lock, 0);
}
