// SPDX-License-Identifier: MIT
/*
 * /init of the PowerPC guest (issue 23; scripts/ppc-guest boots it): a static
 * ppc32 program, the only process of the initramfs.  It mounts proc, sysfs
 * and devtmpfs, reads its checks from the kernel command line
 * (vpmucheck=count,sample,six,sysfs,upmc,profile,rules,strict), runs them in order,
 * prints their results on the console (vpmu-init.h) and powers the machine
 * off (reboot(2) RB_POWER_OFF: Linux's pmac_power_off() through the PMU or
 * CUDA, which QEMU's mac99 and g3beige turn into an exit with status 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vpmu-init.h"

static int n_pass, n_fail;

static void vline(const char *head, const char *check, const char *fmt, va_list ap, const char *tail)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	printf("%s%s: %s%s\n", head, check, buf, tail ? tail : "");
	fflush(stdout);
}

void pass(const char *check, const char *fmt, ...)
{
	char head[32];
	va_list ap;

	snprintf(head, sizeof(head), "VPMU ok %d - ", n_pass + n_fail + 1);
	n_pass++;
	va_start(ap, fmt);
	vline(head, check, fmt, ap, NULL);
	va_end(ap);
}

void fail(const char *check, const char *expected, const char *seen, const char *fmt, ...)
{
	char head[32], tail[160];
	va_list ap;

	snprintf(head, sizeof(head), "VPMU not ok %d - ", n_pass + n_fail + 1);
	snprintf(tail, sizeof(tail), " # expected %s seen %s", expected, seen);
	n_fail++;
	va_start(ap, fmt);
	vline(head, check, fmt, ap, tail);
	va_end(ap);
}

void expect(int cond, const char *check, uint64_t expected, uint64_t seen, const char *fmt, ...)
{
	char head[32], tail[160];
	va_list ap;

	snprintf(head, sizeof(head), "VPMU %s %d - ", cond ? "ok" : "not ok", n_pass + n_fail + 1);
	snprintf(tail, sizeof(tail), " # expected %llu seen %llu", (unsigned long long)expected,
		 (unsigned long long)seen);
	if (cond)
		n_pass++;
	else
		n_fail++;
	va_start(ap, fmt);
	vline(head, check, fmt, ap, cond ? NULL : tail);
	va_end(ap);
}

void info(const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("VPMU info ", check, fmt, ap, NULL);
	va_end(ap);
}

/* CPU 0's column of /proc/interrupts: of the line named NAME, or summed over
 * every line when NAME is NULL. */
static uint64_t irq_col0(const char *name)
{
	char line[256];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *lbl = line, *end;
		unsigned long long v;

		if (!c)
			continue;
		*c = 0;
		while (*lbl == ' ')
			lbl++;
		v = strtoull(c + 1, &end, 10);
		if (end == c + 1)
			continue; /* the header line, or ERR without a column */
		if (!name || !strcmp(lbl, name))
			sum += v;
	}
	fclose(f);
	return sum;
}

uint64_t irq_pmi(void) { return irq_col0("PMI"); }
uint64_t irq_all(void) { return irq_col0(NULL); }

int perf_open(struct perf_event_attr *attr, int group_fd)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, 0);
}

void perf_attr(struct perf_event_attr *a, uint32_t type, uint64_t config, int excl_user, int excl_kernel)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_user = excl_user ? 1 : 0;
	a->exclude_kernel = excl_kernel ? 1 : 0;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

static int proc_write(const char *file, const char *v)
{
	int fd = open(file, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
	close(fd);
	return rc;
}

static void cpuinfo(void)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f) {
		fail("probe", "/proc/cpuinfo", strerror(errno), "/proc/cpuinfo readable");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "cpu\t", 4) || !strncmp(line, "revision", 8))
			info("probe", "cpuinfo %s", line);
	}
	fclose(f);
	/* A PMU the perf core took is listed as event source "cpu". */
	info("probe", "perf event source cpu: %s",
	     access("/sys/bus/event_source/devices/cpu", F_OK) ? "absent" : "present");
}

static const struct {
	const char *name;
	void (*run)(void);
} checks[] = {
	{ "count", check_count },   { "sample", check_sample }, { "six", check_six },
	{ "sysfs", check_sysfs },   { "upmc", check_upmc },     { "profile", check_profile },
	{ "rules", check_rules },   { "strict", check_strict },
};

/* The value of WORD= in /proc/cmdline, into buf (empty when absent). */
static void cmdline_word(const char *word, char *buf, size_t len)
{
	char line[1024], *p;
	size_t wl = strlen(word);
	FILE *f = fopen("/proc/cmdline", "r");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		for (p = strtok(line, " \n"); p; p = strtok(NULL, " \n"))
			if (!strncmp(p, word, wl) && p[wl] == '=')
				snprintf(buf, len, "%s", p + wl + 1);
	fclose(f);
}

int main(void)
{
	char list[256], *w, *save = NULL;
	size_t i;

	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	/* The kernel opened /dev/console of its built-in initramfs for us
	 * (usr/default_cpio_list); open it again if that was missing. */
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("VPMU start\n");
	cpuinfo();
	/* perf lowers its sample rate, and throttles (stops) a sampling event,
	 * when PMIs take longer than perf_cpu_time_max_percent of a tick in
	 * wall-clock time: under an emulator that depends on the host's load.
	 * 0 turns the check off (Documentation/admin-guide/sysctl/kernel.rst);
	 * the rate stays at its default, 100000 per second. */
	if (proc_write("/proc/sys/kernel/perf_cpu_time_max_percent", "0"))
		fail("init", "0", strerror(errno), "perf_cpu_time_max_percent set to 0");
	cmdline_word("vpmucheck", list, sizeof(list));
	for (w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
			if (!strcmp(w, checks[i].name))
				break;
		if (i == sizeof(checks) / sizeof(checks[0]))
			fail("init", "a check of count,sample,six,sysfs,upmc,profile,rules,strict", w, "vpmucheck= names known checks");
		else
			checks[i].run();
	}
	printf("VPMU done passed %d failed %d\n", n_pass, n_fail);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	/* reboot() returns only on failure; init must not exit (a panic). */
	printf("VPMU poweroff failed: %s\n", strerror(errno));
	for (;;)
		pause();
}
