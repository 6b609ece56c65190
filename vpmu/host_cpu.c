/* SPDX-License-Identifier: MIT */
/* The CPU this program runs on, by CPUID (include/vpmu/event_table.h). */
#include <errno.h>
#include <string.h>

#include "vpmu/event_table.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

int vpmu_events_host_cpu(char vendor[13], unsigned *family, unsigned *cpumodel,
			 unsigned *stepping)
{
	if (!vendor || !family || !cpumodel || !stepping)
		return -EINVAL;
	unsigned a, b, cx, d;
	char v[13];
	if (!__get_cpuid(0, &a, &b, &cx, &d))
		return -ENODEV;
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &cx, 4);
	v[12] = 0;
	if (a < 1 || !__get_cpuid(1, &a, &b, &cx, &d))
		return -ENODEV;
	memcpy(vendor, v, sizeof(v));
	/* The display family and model (Intel SDM vol. 2A, CPUID leaf 01H,
	 * "Version Information"; AMD's CPUID Specification, Fn0000_0001_EAX):
	 * the extended family adds to family 0FH, and the extended model is the
	 * model's high nibble for families 06H and 0FH (AMD: 0FH and above). */
	unsigned fam = (a >> 8) & 0xF, mod = (a >> 4) & 0xF;
	if (fam == 0xF)
		fam += (a >> 20) & 0xFF;
	if (fam == 6 || fam >= 0xF)
		mod |= ((a >> 16) & 0xF) << 4;
	*family = fam;
	*cpumodel = mod;
	*stepping = a & 0xF;
	return 0;
}
#else
int vpmu_events_host_cpu(char vendor[13], unsigned *family, unsigned *cpumodel,
			 unsigned *stepping)
{
	(void)vendor, (void)family, (void)cpumodel, (void)stepping;
	return -ENODEV;
}
#endif
