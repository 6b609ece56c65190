/* SPDX-License-Identifier: MIT */
#include "timing.h"

void spin_us(uint64_t us)
{
	struct deadline d;
	deadline_init_us(&d, us);
	while (!deadline_passed(&d))
		cpu_relax();
}
