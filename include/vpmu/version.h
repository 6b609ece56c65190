/* SPDX-License-Identifier: MIT */
/*
 * libvpmu's version: the one place it is written.  The Makefile reads
 * VPMU_VERSION_MAJOR, _MINOR and _PATCH from here (its VERSION: the shared
 * library's file name, libvpmu.pc, the programs' --version), and
 * tests/version.t checks that they all agree.
 *
 * The macros say which headers a program was compiled against; vpmu_version()
 * says which library it runs with (the two differ when libvpmu.so is replaced
 * under a program: the soname changes only with the ABI).
 */
#ifndef VPMU_VERSION_H
#define VPMU_VERSION_H

#define VPMU_VERSION_MAJOR 1
#define VPMU_VERSION_MINOR 0
#define VPMU_VERSION_PATCH 0

/* "MAJOR.MINOR.PATCH", built from the three numbers above so that it cannot
 * disagree with them. */
#define VPMU_VERSION_STR_(x) #x
#define VPMU_VERSION_XSTR_(x) VPMU_VERSION_STR_(x)
#define VPMU_VERSION_STRING                                                      \
	VPMU_VERSION_XSTR_(VPMU_VERSION_MAJOR) "." VPMU_VERSION_XSTR_(VPMU_VERSION_MINOR) "." \
	VPMU_VERSION_XSTR_(VPMU_VERSION_PATCH)

/* For comparisons: VPMU_VERSION_NUMBER >= VPMU_VERSION_AT(1, 1, 0). */
#define VPMU_VERSION_AT(major, minor, patch) ((major) * 10000L + (minor) * 100L + (patch))
#define VPMU_VERSION_NUMBER                                                      \
	VPMU_VERSION_AT(VPMU_VERSION_MAJOR, VPMU_VERSION_MINOR, VPMU_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The version of the libvpmu this program runs with, as VPMU_VERSION_STRING
 * ("1.0.0"): a static string. */
const char *vpmu_version(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif
