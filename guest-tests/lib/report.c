/* SPDX-License-Identifier: MIT */
#include "cmdline.h"
#include "report.h"

#include <stdarg.h>

#include "../../guest-tests/guest_abi.h"
#include "console.h"
#include "layout.h"
#include "printf.h"
#include "smp.h"
#include "x86.h"

/* Per vCPU, because the host reads the record and its string during the OUT's
 * exit and another vCPU may report at the same time (guest_abi.h). */
static struct percpu_ucall {
	struct vpmu_ucall u;
	char str[VPMU_UCALL_STR_MAX];
	char line[VPMU_UCALL_STR_MAX + 32];
} uc[MAX_CPUS] __attribute__((aligned(16)));

/* Case state: cases are run and reported by the BSP only. */
static char case_name[256];
static bool in_case, cur_failed, any_failed;
static unsigned ncases;

static void ucall(uint32_t cmd, uint64_t arg)
{
	struct percpu_ucall *p = &uc[this_cpu()];
	p->u.cmd = cmd;
	p->u.str = (uint32_t)(uintptr_t)p->str;
	p->u.arg = arg;
	mb();
	outl(VPMU_PORT_UCALL, (uint32_t)(uintptr_t)&p->u);
}

static void vdiag(const char *fmt, va_list ap)
{
	struct percpu_ucall *p = &uc[this_cpu()];
	vsnprintf(p->str, sizeof(p->str), fmt, ap);
	snprintf(p->line, sizeof(p->line), "vpmu-guest: # %s", p->str);
	console_line(p->line);
	ucall(VPMU_UCALL_DIAG, 0);
}

void diag(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

void mark(const char *label, uint64_t value)
{
	struct percpu_ucall *p = &uc[this_cpu()];
	snprintf(p->str, sizeof(p->str), "%s", label);
	snprintf(p->line, sizeof(p->line), "vpmu-guest: # mark %s = %llu", label,
		 (unsigned long long)value);
	console_line(p->line);
	ucall(VPMU_UCALL_MARK, value);
}

void bench_null_pmu(bool on)
{
	struct percpu_ucall *p = &uc[this_cpu()];
	p->str[0] = '\0';
	ucall(VPMU_UCALL_NULL_PMU, on);
}

uint64_t host_rdpmc_mode(void)
{
	/* A VMM that does not answer the ucall says it on the command line. */
	if (opts.rdpmc)
		return opts.rdpmc;
	struct percpu_ucall *p = &uc[this_cpu()];
	p->str[0] = '\0';
	ucall(VPMU_UCALL_RDPMC_MODE, 0);
	mb();
	return *(volatile uint64_t *)&p->u.arg;
}

static void report_case(const char *name, uint32_t result, const char *why)
{
	struct percpu_ucall *p = &uc[this_cpu()];
	if (result == VPMU_CASE_SKIP)
		snprintf(p->str, sizeof(p->str), "%s # SKIP %s", name, why);
	else
		snprintf(p->str, sizeof(p->str), "%s", name);
	snprintf(p->line, sizeof(p->line), "vpmu-guest: %s - %s",
		 result == VPMU_CASE_FAIL ? "not ok" : "ok", p->str);
	console_line(p->line);
	ucall(VPMU_UCALL_CASE, result);
	ncases++;
	if (result == VPMU_CASE_FAIL)
		any_failed = true;
}

void begin_case(const char *fmt, ...)
{
	va_list ap;
	if (in_case)
		end_case();
	va_start(ap, fmt);
	vsnprintf(case_name, sizeof(case_name), fmt, ap);
	va_end(ap);
	in_case = true;
	cur_failed = false;
}

bool end_case(void)
{
	if (!in_case)
		return false;
	in_case = false;
	report_case(case_name, cur_failed ? VPMU_CASE_FAIL : VPMU_CASE_PASS, 0);
	return !cur_failed;
}

bool case_failed(void)
{
	return in_case && cur_failed;
}

void case_result(const char *name, bool pass)
{
	report_case(name, pass ? VPMU_CASE_PASS : VPMU_CASE_FAIL, 0);
}

void case_skip(const char *name, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	report_case(name, VPMU_CASE_SKIP, why);
}

void expect_fail_at(const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag("%s:%d: %s", file, line, msg);
	if (in_case)
		cur_failed = true;
	else
		any_failed = true;
}

bool expect_true_at(const char *file, int line, const char *expr, bool ok)
{
	if (!ok)
		expect_fail_at(file, line, "expected %s", expr);
	return ok;
}

bool expect_eq_at(const char *file, int line, const char *expr, uint64_t got, uint64_t want)
{
	if (got != want)
		expect_fail_at(file, line, "%s: expected 0x%llx, got 0x%llx", expr,
			       (unsigned long long)want, (unsigned long long)got);
	return got == want;
}

bool expect_ne_at(const char *file, int line, const char *expr, uint64_t got, uint64_t unwanted)
{
	if (got == unwanted)
		expect_fail_at(file, line, "%s: expected anything but 0x%llx", expr,
			       (unsigned long long)unwanted);
	return got != unwanted;
}

__attribute__((noreturn)) static void do_exit(uint32_t status)
{
	char line[64];
	snprintf(line, sizeof(line), "vpmu-guest: exit %u (%u cases)", status, ncases);
	console_line(line);
	outl(VPMU_PORT_EXIT, status);
	/* Not reached under vpmu-run (the first exit write ends the VM); a
	 * machine without the exit port just stops here. */
	for (;;)
		__asm__ volatile("cli; hlt");
}

void guest_exit(void)
{
	if (in_case)
		end_case();
	do_exit(any_failed ? 1 : 0);
}

void guest_abort(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag("%s", msg);
	/* Close the running case as failed and report the abort itself, so the
	 * TAP stream shows where the run died. */
	if (in_case && this_cpu() == 0) {
		cur_failed = true;
		end_case();
	}
	report_case("guest aborted", VPMU_CASE_FAIL, 0);
	do_exit(1);
}
