/* SPDX-License-Identifier: MIT */
#include <inttypes.h>

#include "accounting.h"

void accounting_print_sources(FILE *out, const struct vpmu_host *host)
{
	for (int e = 0; e < VPMU_EV_NR; e++) {
		const char *why;
		enum vpmu_count_source src = vpmu_host_event_source(host, (enum vpmu_event)e, &why);
		fprintf(out, "  %-16s %-13s %s\n", vpmu_event_name((enum vpmu_event)e),
			vpmu_count_source_name(src), why);
	}
}

void accounting_print_perf(FILE *out, const struct vpmu_perf *p)
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
