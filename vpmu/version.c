/* SPDX-License-Identifier: MIT */
/* The library's version (include/vpmu/version.h). */
#include "vpmu/version.h"

const char *vpmu_version(void)
{
	return VPMU_VERSION_STRING;
}
