/* SPDX-License-Identifier: MIT */
/*
 * Reporting to the host (guest_abi.h): every call is a struct vpmu_ucall whose
 * address is written to VPMU_PORT_UCALL; the host turns the stream into TAP, one
 * line per case.  Each report is mirrored on the serial console as a readable
 * line ("vpmu-guest: ok - NAME", "vpmu-guest: # TEXT"), which is all one sees
 * under QEMU (which ignores port 0xF0).
 *
 * A case:
 *	begin_case("counting: cycles");
 *	EXPECT_EQ(value, 0x430079);     // on mismatch: "file.c:LINE: ..." diag, case fails
 *	end_case();                      // one CASE report: pass unless an EXPECT failed
 * or, for a result known at once, case_result(name, pass) / case_skip(name, why).
 * guest_exit() ends the run: exit status 0 if every case passed, 1 otherwise.
 */
#ifndef GUEST_REPORT_H
#define GUEST_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#ifndef __FILE_NAME__
#define __FILE_NAME__ __FILE__
#endif

void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mark(const char *label, uint64_t value);
/* A bench aid (guest_abi.h VPMU_UCALL_NULL_PMU): this vCPU's PMU MSR exits are
 * answered by the host's null handler while on, if the host allows it. */
void bench_null_pmu(bool on);
/* How the host's KVM delivers this vCPU's RDPMC (VPMU_UCALL_RDPMC_MODE). */
uint64_t host_rdpmc_mode(void);

void begin_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool end_case(void);                 /* true if the case passed */
bool case_failed(void);              /* an EXPECT of the current case failed */
void case_result(const char *name, bool pass);
void case_skip(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records "FILE:LINE: message" as a diagnostic and fails the current case (or
 * the run, outside a case). */
void expect_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool expect_true_at(const char *file, int line, const char *expr, bool ok);
bool expect_eq_at(const char *file, int line, const char *expr, uint64_t got, uint64_t want);
bool expect_ne_at(const char *file, int line, const char *expr, uint64_t got, uint64_t unwanted);

#define FAIL(...)          expect_fail_at(__FILE_NAME__, __LINE__, __VA_ARGS__)
#define EXPECT(cond)       expect_true_at(__FILE_NAME__, __LINE__, #cond, (cond))
#define EXPECT_EQ(got, want) expect_eq_at(__FILE_NAME__, __LINE__, #got, (uint64_t)(got), (uint64_t)(want))
#define EXPECT_NE(got, bad)  expect_ne_at(__FILE_NAME__, __LINE__, #got, (uint64_t)(got), (uint64_t)(bad))

__attribute__((noreturn)) void guest_exit(void);
/* An unrecoverable failure: reports it as a failed case and exits with 1. */
__attribute__((noreturn)) void guest_abort(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
