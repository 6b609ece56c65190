# SPDX-License-Identifier: MIT
# Benchmarks (make bench; bench/README.md).  The bench links the normal -O2 build
# of the library (build/lib/libvpmu.a, no sanitizers), then:
#   1. bench/callgrind.sh: instructions per op under callgrind (deterministic);
#   2. bench_ops: ns/op, median of BENCH_RUNS runs of BENCH_ITERS iterations.
#   3. acct_export: one accounting export of 1,000 VMs x 8 vCPUs per format,
#      ms (median of ACCT_RUNS; the formats on two threads, and on one with
#      ACCT_ARGS=--single) and callgrind instructions (target acct).
CC          ?= cc
LIBB        ?= build
BB          ?= $(LIBB)/bench
BENCH_ITERS ?= 1000000
BENCH_RUNS  ?= 7
CG_ITERS    ?= 100000
ACCT_RUNS   ?= 11
ACCT_ARGS   ?=

WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS := -Iinclude -Itools -D_GNU_SOURCE
CFLAGS   := -O2 -g

.PHONY: all build lib acct-lib callgrind timing acct acct-timing acct-callgrind scrape perf \
	perf-timing perf-callgrind
all: callgrind timing perf acct scrape
build: $(BB)/bench_ops $(BB)/bench_perf $(BB)/acct_export $(BB)/scrape

lib:
	$(MAKE) --no-print-directory B=$(LIBB) all

acct-lib:
	$(MAKE) --no-print-directory B=$(LIBB) $(LIBB)/lib/libvpmu.a

$(BB)/bench_ops: bench/bench_ops.c lib
	@mkdir -p $(BB)
	# -Ivpmu: the decode op uses the generated tables' inline decode (vpmu/events.h).
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Ivpmu -o $@ bench/bench_ops.c $(LIBB)/lib/libvpmu.a -lxxhash

callgrind: $(BB)/bench_ops
	bench/callgrind.sh $(BB)/bench_ops $(CG_ITERS) $(BB)

timing: $(BB)/bench_ops
	$(BB)/bench_ops --iters $(BENCH_ITERS) --runs $(BENCH_RUNS)

# A guest's change of event through the perf backend on a host PMU, the host's
# event translated by its table or generic (bench/bench_perf.c): both in one run.
$(BB)/bench_perf: bench/bench_perf.c lib
	@mkdir -p $(BB)
	# -Ivpmu: the backend's system-call table (vpmu/backends/perf_sys.h).
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Ivpmu -o $@ bench/bench_perf.c $(LIBB)/lib/libvpmu.a -lxxhash

perf: perf-callgrind perf-timing

perf-timing: $(BB)/bench_perf
	$(BB)/bench_perf --iters $(BENCH_ITERS) --runs $(BENCH_RUNS)

perf-callgrind: $(BB)/bench_perf
	@command -v valgrind >/dev/null || { echo "valgrind not found: run scripts/install-deps" >&2; exit 1; }
	@for h in unknown skylake; do \
		line=$$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=$(BB)/callgrind.out.perf.$$h \
			$(BB)/bench_perf --callgrind --host $$h --iters $(CG_ITERS) 2>$(BB)/callgrind.out.perf.$$h.log) || exit 1; \
		ir=$$(sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' $(BB)/callgrind.out.perf.$$h | head -n 1); \
		printf 'host %-8s event change + entry %8.1f Ir/op   %s\n' $$h \
			"$$(awk -v i=$$ir -v n=$(CG_ITERS) 'BEGIN { printf "%.1f", i / n }')" "$$line"; \
	done
	@echo "# hot spots: callgrind_annotate --inclusive=yes $(BB)/callgrind.out.perf.HOST"

# The accounting formats are the tools' (tools/accounting/, built here at -O2
# like the tools), on the library's static build.
ACCT_SRC := $(sort $(wildcard tools/accounting/*.c))
$(BB)/acct_export: bench/acct_export.c $(ACCT_SRC) $(wildcard tools/accounting/*.h) acct-lib
	@mkdir -p $(BB)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -o $@ bench/acct_export.c $(ACCT_SRC) \
		$(LIBB)/lib/libvpmu.a -ljson-c -lxxhash -lpthread

acct: acct-timing acct-callgrind

acct-timing: $(BB)/acct_export
	$(BB)/acct_export --runs $(ACCT_RUNS) $(ACCT_ARGS)

# Instructions of one export per format (collection only around it), on one
# thread (--single): callgrind's toggle counts only the thread that toggles.
acct-callgrind: $(BB)/acct_export
	@command -v valgrind >/dev/null || { echo "valgrind not found: run scripts/install-deps" >&2; exit 1; }
	@for f in text domstats prometheus json; do \
		valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=$(BB)/callgrind.out.acct.$$f \
			$(BB)/acct_export --single --callgrind $$f 2>$(BB)/callgrind.out.acct.$$f.log >/dev/null || exit 1; \
		printf '%-10s %s Ir per export\n' $$f \
			"$$(sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' $(BB)/callgrind.out.acct.$$f | head -n 1)"; \
	done
	@echo "# hot spots: callgrind_annotate --inclusive=yes $(BB)/callgrind.out.acct.FORMAT"

# One scrape of vpmu-stat's exporter over 1,000 live sockets (bench/scrape.c).
SCRAPE_SRC := $(ACCT_SRC) tools/live/stat_server.c tools/live/stat_dir.c tools/stat/stat_client.c \
	      tools/stat/stat_export.c
$(BB)/scrape: bench/scrape.c $(SCRAPE_SRC) $(wildcard tools/*/*.h) acct-lib
	@mkdir -p $(BB)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -o $@ bench/scrape.c $(SCRAPE_SRC) \
		$(LIBB)/lib/libvpmu.a -lmicrohttpd -ljson-c -lxxhash -lpthread

scrape: $(BB)/scrape
	$(BB)/scrape --runs 11
