/* SPDX-License-Identifier: MIT */
/*
 * One accounting export at issue 10's scale: 1,000 VMs of 8 vCPUs each, on
 * libvpmu with the sim backend.  An export is what an exporter does each
 * scrape: acct_collect of every VM (each vCPU's totals read once), one
 * acct_write of all the snapshots in one format, and acct_vm_release.
 * Timed per format, to /dev/null and to a new file (bench/README.md,
 * docs/performance.md "Accounting export at scale").
 *
 *   acct_export [--runs R] [--vms N] [--vcpus K] [--dir DIR] [--trim] [--single]
 *        ms per export, median (min-max) of R runs per format and target;
 *        --single: the formats on one thread (acct_par_min_vcpus, acct_buf.h)
 *
 * An exporter scrapes again and again, and keeps its heap between scrapes:
 * this sets glibc's M_TRIM_THRESHOLD to 256 MiB as such a process would.
 * With glibc's default (128 KiB: --trim), free() hands the ~6 MB of snapshots
 * back to the kernel after each export and the next one faults them in again,
 * ~1,500 page faults, a few ms on a VM (docs/performance.md).
 *   acct_export --callgrind FORMAT
 *        one export in FORMAT with callgrind's collection on only around it
 *        (valgrind --tool=callgrind --collect-atstart=no)
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <valgrind/callgrind.h>

#include "vpmu/backend.h"
#include "vpmu/vpmu.h"
#include "accounting/acct_buf.h"
#include "accounting/acct_formats.h"

#define P6_EVNTSEL0 0x186
#define P6_EVNTSEL1 0x187
#define P6_PERFCTR0 0xC1
#define NR_HOST_CPUS 8

struct fleet {
	struct vpmu_sim *sim;
	struct vpmu_host *host;
	struct vpmu_vm **vm;
	char (*name)[24];
	unsigned nvm, nvcpu;
	struct acct_vm *snap;
};

/* Every vCPU counts cycles and instructions as the guest programs them
 * (p6: EVNTSEL1 instructions retired, EVNTSEL0 cycles with EN: docs/models/p6.md),
 * and ends switched out, as a scrape finds most vCPUs between runs. */
static int drive(struct fleet *f, struct vpmu_vcpu *v, unsigned cpu, uint64_t seed)
{
	enum vpmu_fault fault;
	uint64_t val;
	int err = vpmu_vcpu_switch_in(v, cpu);
	err = err ? err : vpmu_reg_write(v, VPMU_SPACE_MSR, P6_EVNTSEL1, 0x0300c0, &fault);
	err = err ? err : vpmu_reg_write(v, VPMU_SPACE_MSR, P6_EVNTSEL0, 0x430079, &fault);
	err = err ? err : vpmu_sim_tick(f->sim, cpu, VPMU_EV_CYCLES, 1000003 * seed, VPMU_MODE_USER);
	err = err ? err : vpmu_sim_tick(f->sim, cpu, VPMU_EV_INSTRUCTIONS, 700001 * seed, VPMU_MODE_KERNEL);
	err = err ? err : vpmu_reg_read(v, VPMU_SPACE_MSR, P6_PERFCTR0, &val, &fault);
	err = err ? err : vpmu_vcpu_switch_out(v);
	return err;
}

static int fleet_create(struct fleet *f)
{
	struct vpmu_backend be;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	int err;
	cfg.model = "p6";
	f->vm = calloc(f->nvm, sizeof(*f->vm));
	f->name = calloc(f->nvm, sizeof(*f->name));
	f->snap = calloc(f->nvm, sizeof(*f->snap));
	if (!f->vm || !f->name || !f->snap)
		return -ENOMEM;
	if ((err = vpmu_sim_create(NR_HOST_CPUS, &f->sim)))
		return err;
	vpmu_sim_backend(f->sim, &be);
	if ((err = vpmu_host_create(&be, NR_HOST_CPUS, &f->host)))
		return err;
	vpmu_sim_attach(f->sim, f->host);
	for (unsigned m = 0; m < f->nvm; m++) {
		snprintf(f->name[m], sizeof(f->name[m]), "guest-%04u", m);
		if ((err = vpmu_vm_create(f->host, &cfg, &f->vm[m])))
			return err;
		for (unsigned i = 0; i < f->nvcpu; i++) {
			struct vpmu_vcpu *v;
			if ((err = vpmu_vcpu_create(f->vm[m], i, &v)) ||
			    (err = drive(f, v, i % NR_HOST_CPUS, (uint64_t)m * f->nvcpu + i + 1)))
				return err;
		}
	}
	return 0;
}

static void fleet_destroy(struct fleet *f)
{
	for (unsigned m = 0; f->vm && m < f->nvm; m++)
		vpmu_vm_destroy(f->vm[m]);
	vpmu_host_destroy(f->host);
	vpmu_sim_destroy(f->sim);
	free(f->vm);
	free(f->name);
	free(f->snap);
}

/* One export: collect every VM, write them all, release. */
static int export(struct fleet *f, FILE *out, enum acct_format fmt)
{
	int err = 0;
	unsigned n = 0;
	for (; n < f->nvm && !err; n++)
		err = acct_collect(&f->snap[n], f->name[n], f->vm[n], f->host, NULL);
	if (!err && out)
		err = acct_write(out, fmt, f->snap, f->nvm);
	for (unsigned m = 0; m < n; m++)
		acct_vm_release(&f->snap[m]);
	return err;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static const char *const fmt_names[] = { "text", "domstats", "prometheus", "json" };

/* The collection alone (no format): what every export above pays first. */
static void time_collect(struct fleet *f, unsigned runs)
{
	double *ms = calloc(runs, sizeof(*ms));
	int err = 0;
	if (!ms)
		return;
	for (unsigned r = 0; r < runs && !err; r++) {
		double t0 = now_ms();
		err = export(f, NULL, ACCT_TEXT);
		ms[r] = now_ms() - t0;
	}
	qsort(ms, runs, sizeof(*ms), cmp_double);
	if (err)
		printf("collect: error %d\n", err);
	else
		printf("%-20s %8.2f ms  (%.2f-%.2f)\n", "collect+release only", ms[runs / 2], ms[0],
		       ms[runs - 1]);
	free(ms);
}

/* R exports of fmt to path (a new file each run unless it is /dev/null). */
static int time_format(struct fleet *f, enum acct_format fmt, const char *path, unsigned runs)
{
	double *ms = calloc(runs, sizeof(*ms));
	long size = 0;
	int err = 0;
	int fresh = strcmp(path, "/dev/null") != 0;
	if (!ms)
		return -ENOMEM;
	for (unsigned r = 0; r < runs && !err; r++) {
		FILE *out;
		double t0;
		if (fresh)
			unlink(path);   /* a new file each time, as an exporter writes one */
		out = fopen(path, "w");
		if (!out) {
			err = -errno;
			break;
		}
		t0 = now_ms();
		err = export(f, out, fmt);
		ms[r] = now_ms() - t0;
		size = ftell(out);
		if (fclose(out) && !err)
			err = -errno;
	}
	if (fresh)
		unlink(path);
	if (!err) {
		qsort(ms, runs, sizeof(*ms), cmp_double);
		printf("%-10s %-9s %8.2f ms  (%.2f-%.2f)  %s", fmt_names[fmt],
		       fresh ? "new file" : "/dev/null", ms[runs / 2], ms[0], ms[runs - 1],
		       ms[runs / 2] <= 10.0 ? "<= 10 ms" : "> 10 ms");
		if (fresh)
			printf("  %ld bytes", size);
		printf("\n");
	} else {
		printf("%-10s %s: error %d\n", fmt_names[fmt], path, err);
	}
	free(ms);
	return err;
}

static int usage(void)
{
	fprintf(stderr, "usage: acct_export [--runs R] [--vms N] [--vcpus K] [--dir DIR] [--trim] [--single]\n"
			"       acct_export [--single] --callgrind text|domstats|prometheus|json\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct fleet f = { .nvm = 1000, .nvcpu = 8 };
	unsigned runs = 11;
	const char *dir = getenv("TMPDIR"), *cg = NULL;
	int trim = 0;
	char path[512];
	int err, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--vms") && i + 1 < argc)
			f.nvm = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--vcpus") && i + 1 < argc)
			f.nvcpu = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--trim"))
			trim = 1;
		else if (!strcmp(argv[i], "--single"))
			acct_par_min_vcpus = SIZE_MAX;
		else if (!strcmp(argv[i], "--callgrind") && i + 1 < argc)
			cg = argv[++i];
		else
			return usage();
	}
	if (!runs || !f.nvm || !f.nvcpu || f.nvcpu > VPMU_MAX_VCPUS)
		return usage();
	if (!trim)
		mallopt(M_TRIM_THRESHOLD, 256 << 20);
	err = fleet_create(&f);
	if (err) {
		fprintf(stderr, "acct_export: setting up %u VMs of %u vCPUs: %d\n", f.nvm, f.nvcpu, err);
		fleet_destroy(&f);
		return 1;
	}
	if (cg) {
		int fmt = acct_format_from_name(cg);
		FILE *out = fopen("/dev/null", "w");
		if (fmt < 0 || !out) {
			fleet_destroy(&f);
			return usage();
		}
		export(&f, out, (enum acct_format)fmt);     /* warm: the allocator, the caches */
		CALLGRIND_TOGGLE_COLLECT;
		err = export(&f, out, (enum acct_format)fmt);
		CALLGRIND_TOGGLE_COLLECT;
		fclose(out);
		printf("%s: one export of %u VMs x %u vCPUs: %d\n", cg, f.nvm, f.nvcpu, err);
		fleet_destroy(&f);
		return err ? 1 : 0;
	}
	snprintf(path, sizeof(path), "%s/vpmu-acct-export-%d", dir && *dir ? dir : "/tmp", (int)getpid());
	printf("# one export = acct_collect of %u VMs x %u vCPUs (p6, sim) + acct_write + release;\n"
	       "# ms: median (min-max) of %u runs; M_TRIM_THRESHOLD %s; formats on %s\n", f.nvm,
	       f.nvcpu, runs, trim ? "glibc's default (--trim)" : "256 MiB",
	       acct_par_min_vcpus == SIZE_MAX ? "one thread (--single)" : "two threads");
	time_collect(&f, runs);
	for (int fmt = ACCT_TEXT; fmt <= ACCT_JSON; fmt++) {
		rc |= time_format(&f, (enum acct_format)fmt, "/dev/null", runs) != 0;
		rc |= time_format(&f, (enum acct_format)fmt, path, runs) != 0;
	}
	fleet_destroy(&f);
	return rc;
}
