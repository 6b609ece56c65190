# Benchmarks (make bench; bench/README.md).  The bench links the normal -O2 build
# of the library (build/lib/libvpmu.a, no sanitizers), then:
#   1. bench/callgrind.sh: instructions per op under callgrind (deterministic);
#   2. bench_ops: ns/op, median of BENCH_RUNS runs of BENCH_ITERS iterations.
CC          ?= cc
BB          := build/bench
BENCH_ITERS ?= 1000000
BENCH_RUNS  ?= 7
CG_ITERS    ?= 100000

WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS := -Iinclude -D_GNU_SOURCE
CFLAGS   := -O2 -g

.PHONY: all build lib callgrind timing
all: callgrind timing
build: $(BB)/bench_ops

lib:
	$(MAKE) --no-print-directory all

$(BB)/bench_ops: bench/bench_ops.c lib
	@mkdir -p $(BB)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -o $@ bench/bench_ops.c build/lib/libvpmu.a -lxxhash

callgrind: $(BB)/bench_ops
	bench/callgrind.sh $(BB)/bench_ops $(CG_ITERS) $(BB)

timing: $(BB)/bench_ops
	$(BB)/bench_ops --iters $(BENCH_ITERS) --runs $(BENCH_RUNS)
