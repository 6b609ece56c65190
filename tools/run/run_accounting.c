/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "run_accounting.h"

/* How the host counts each generic event (hardware, task clock, not at all). */
static void accounting_print_sources(FILE *out, const struct vpmu_host *host)
{
	for (int e = 0; e < VPMU_EV_NR; e++) {
		const char *why;
		enum vpmu_count_source src = vpmu_host_event_source(host, (enum vpmu_event)e, &why);
		fprintf(out, "  %-16s %-13s %s\n", vpmu_event_name((enum vpmu_event)e),
			vpmu_count_source_name(src), why);
	}
}

/* The perf backend's system calls and the host's refusals by cause. */
static void accounting_print_perf(FILE *out, const struct vpmu_perf *p)
{
	struct vpmu_perf_stats st;
	vpmu_perf_stats(p, &st);
	fprintf(out, "  perf syscalls: open=%" PRIu64 " read=%" PRIu64 " period=%" PRIu64
		" close=%" PRIu64 " (clock readings without a syscall: %" PRIu64 ")\n",
		st.opens, st.reads, st.period_sets, st.closes, st.clock_reads_saved);
	fprintf(out, "  host refusals:");
	int any = 0;
	for (int r = 0; r < VPMU_PERF_REFUSAL_NR; r++)
		if (st.refused[r]) {
			fprintf(out, " %s=%" PRIu64, vpmu_perf_refusal_name((enum vpmu_perf_refusal)r),
				st.refused[r]);
			any = 1;
		}
	fprintf(out, "%s\n", any ? "" : " none");
	if (any)
		fprintf(out, "  last refusal: %s\n", vpmu_perf_error(p));
}

void accounting_print_run(const struct accounting_run *ar)
{
	FILE *out = ar->out ? ar->out : stdout;
	/* One snapshot: each vCPU's totals and its glue's statistics, read once. */
	struct acct_vm snap;
	if (acct_collect(&snap, "guest", ar->vm, ar->host, ar->kvm) < 0)
		return;
	if (ar->format != ACCT_TEXT) {
		fflush(stdout);
		if (acct_write(out, ar->format, &snap, 1) < 0)
			fprintf(stderr, "vpmu-run: writing the accounting failed\n");
		acct_vm_release(&snap);
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		acct_vm_release(&snap);
		return;
	}
	fprintf(m, "backend: %s (%s)\n", ar->backend,
		ar->perf ? vpmu_perf_source(ar->perf) : "counts nothing: no ticks outside traces");
	accounting_print_sources(m, ar->host);
	if (ar->perf)
		accounting_print_perf(m, ar->perf);
	acct_write(m, ACCT_TEXT, &snap, 1);
	acct_vm_release(&snap);
	for (unsigned i = 0; i < ar->nr_vcpus && ar->kvm; i++) {
		const struct vpmu_kvm_stats *s = ar->kvm[i];
		if (!s)
			continue;
		fprintf(m, "  vCPU %u KVM: msr-exits=%" PRIu64 " msr-faults=%" PRIu64
			" libvpmu-ns/exit=%" PRIu64 " pmi-inject-ns/pmi=%" PRIu64
			" pmis-fixed=%" PRIu64 " pmis-nmi=%" PRIu64
			" pmis-held=%" PRIu64 " pmis-lost-masked=%" PRIu64 " pmis-lost-apic-off=%" PRIu64
			" pmis-lost-bad-mode=%" PRIu64 " kicks=%" PRIu64 " rdpmc-exits=%" PRIu64
			" rdpmc-syncs=%" PRIu64 "\n",
			i, s->msr_exits, s->msr_faults, s->msr_timed ? s->msr_ns / s->msr_timed : 0,
			s->pmi_timed ? s->pmi_ns / s->pmi_timed : 0,
			s->pmis_fixed, s->pmis_nmi, s->pmis_held, s->pmis_masked, s->pmis_apic_off,
			s->pmis_bad_mode, s->kicks, s->rdpmc_exits, s->rdpmc_syncs);
	}
	if (ar->glue_lines)
		ar->glue_lines(m, ar->glue_arg);
	fclose(m);
	/* In TAP mode the accounting is commentary. */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		fprintf(out, "%s%s\n", ar->tap ? "# " : "", line);
	free(buf);
}
