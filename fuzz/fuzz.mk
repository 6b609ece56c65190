# SPDX-License-Identifier: MIT
# libFuzzer targets (make fuzz; tests/fuzz.t runs them briefly under make check).
#   make -f fuzz/fuzz.mk            build every target and run each for FUZZ_SECONDS
#   make -f fuzz/fuzz.mk build      build only (build/fuzz/fuzz_reg_access, fuzz_trace,
#                                   fuzz_call, fuzz_host_access, fuzz_image, fuzz_acct_json,
#                                   fuzz_state)
#   make -f fuzz/fuzz.mk run-call   one target (run-reg-access, run-trace, run-call,
#                                   run-host-access, run-image, run-acct-json, run-state)
# A crash leaves its input as build/fuzz/crash-* (leak-*, timeout-*) and fails the run;
# replay it with: build/fuzz/fuzz_trace build/fuzz/crash-...
CLANG        ?= clang
FUZZ_SECONDS ?= 60
FB           := build/fuzz

WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS := -Iinclude -Ivpmu -Itools -D_GNU_SOURCE
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library is instrumented for coverage too (fuzzer-no-link); only the targets
# link libFuzzer's main.
CFLAGS_LIB := -g -O1 $(WARN) $(SANFLAGS) -fsanitize=fuzzer-no-link -DVPMU_CONTRACT_CHECKS
LDFLAGS_FUZZ := $(SANFLAGS) -fsanitize=fuzzer
LDLIBS   := -lxxhash -ljson-c

# The KVM glue too: the tools' objects (TOOL_SRC) call into it (live_vm.c).
# The tools the trace and JSON fuzzers reach: the accounting, the command-line
# helpers, the live socket and the replayer (the Makefile's "The tools").
LIB_SRC  := $(sort $(wildcard vpmu/*.c vpmu/models/*.c vpmu/backends/*.c vmm-glue/*.c))
TOOL_SRC := $(filter-out %/vpmu-trace.c,$(wildcard tools/accounting/*.c \
		tools/common/*.c tools/live/*.c tools/trace/*.c))
HDRS     := $(wildcard include/vpmu/*.h vpmu/*.h vpmu/models/*.h vpmu/backends/*.h tools/*/*.h fuzz/*.h)
LIB_OBJ  := $(LIB_SRC:%.c=$(FB)/obj/%.o) $(FB)/gen/events.o
# The event tables (scripts/gen-events.py; the top-level Makefile's rule).
$(FB)/gen/events.c: scripts/gen-events.py $(wildcard data/perfmon/tables.csv data/perfmon/*/*.json data/perfmon/*/*/*.json data/perfmon/*/*/*/*.json)
	@mkdir -p $(dir $@)
	python3 scripts/gen-events.py --data data/perfmon --c $@
$(FB)/gen/p4_event_list.h: scripts/gen-events.py data/perfmon/vpmu/p4.json
	@mkdir -p $(dir $@)
	python3 scripts/gen-events.py --data data/perfmon --p4 $@
$(FB)/obj/vpmu/models/p4_events.o: $(FB)/gen/p4_event_list.h
$(FB)/obj/vpmu/models/p4_events.o: CPPFLAGS += -I$(FB)/gen
$(FB)/gen/events.o: $(FB)/gen/events.c $(HDRS)
	$(CLANG) $(CFLAGS_LIB) $(CPPFLAGS) -c $< -o $@
TOOL_OBJ := $(TOOL_SRC:%.c=$(FB)/obj/%.o)

# libFuzzer options shared by every run: a slow input is a bug too (timeout), a
# memory blow-up as well; leaks are reported (ASan's LSan is on by default).
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FB)/ -print_final_stats=1

.PHONY: all build run run-reg-access run-trace run-call run-host-access run-image run-acct-json \
	run-state
all: run
build: $(FB)/fuzz_reg_access $(FB)/fuzz_trace $(FB)/fuzz_call $(FB)/fuzz_host_access \
	$(FB)/fuzz_image $(FB)/fuzz_acct_json $(FB)/fuzz_state

$(FB)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CFLAGS_LIB) $(CPPFLAGS) -c $< -o $@

$(FB)/fuzz_reg_access: $(FB)/obj/fuzz/fuzz_reg_access.o $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

$(FB)/fuzz_trace: $(FB)/obj/fuzz/fuzz_trace.o $(TOOL_OBJ) $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

$(FB)/fuzz_call: $(FB)/obj/fuzz/fuzz_call.o $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

$(FB)/fuzz_host_access: $(FB)/obj/fuzz/fuzz_host_access.o $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

$(FB)/fuzz_state: $(FB)/obj/fuzz/fuzz_state.o $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

$(FB)/fuzz_image: $(FB)/obj/fuzz/fuzz_image.o $(FB)/obj/tools/run/guest_boot.o \
		$(FB)/obj/tools/run/linux_boot.o $(FB)/obj/tools/run/boot_x86.o
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^

$(FB)/fuzz_acct_json: $(FB)/obj/fuzz/fuzz_acct_json.o $(TOOL_OBJ) $(LIB_OBJ)
	$(CLANG) $(LDFLAGS_FUZZ) -o $@ $^ $(LDLIBS)

run: run-reg-access run-trace run-call run-host-access run-image run-acct-json run-state

# Seeds: fuzz/seeds/acct_json/, pure JSON documents of each shape the writer
# makes (no VM, one, several, vCPUs with violations, vpmu-run's with "kvm" and
# uncountable events), which tests/acct_json_hostile.t reads back, so that the
# fuzzer starts on the reader's real paths rather than at "not JSON".
run-acct-json: $(FB)/fuzz_acct_json
	@mkdir -p $(FB)/corpus/acct_json
	$(FB)/fuzz_acct_json $(FUZZ_OPTS) -max_len=65536 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/acct_json fuzz/seeds/acct_json

# The corpus directory keeps what earlier runs found (libFuzzer adds new inputs to
# the first directory it is given); no seeds are needed: the header bytes pick the
# model, and coverage-guided mutation finds the register encodings.
run-reg-access: $(FB)/fuzz_reg_access
	@mkdir -p $(FB)/corpus/reg_access
	$(FB)/fuzz_reg_access $(FUZZ_OPTS) -max_len=4096 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/reg_access

# Seeds: every trace of the test corpus (tests/traces/**/*.trace) and the bad traces.
run-trace: $(FB)/fuzz_trace
	@rm -rf $(FB)/seed/trace && mkdir -p $(FB)/seed/trace $(FB)/corpus/trace
	@for f in $$(find tests/traces tests/bad-traces -name '*.trace'); do \
		cp "$$f" "$(FB)/seed/trace/$$(echo "$$f" | tr / _)"; done
	$(FB)/fuzz_trace $(FUZZ_OPTS) -dict=fuzz/trace.dict -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/trace $(FB)/seed/trace

# vpmu_call() with fuzzed function ids and arguments, between register writes,
# ticks and switches (fuzz/fuzz_call.c); inputs stay small.
run-call: $(FB)/fuzz_call
	@mkdir -p $(FB)/corpus/call
	$(FB)/fuzz_call $(FUZZ_OPTS) -max_len=512 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/call

# Save/restore with vpmu_reg_get/vpmu_reg_set (fuzz/fuzz_host_access.c): one
# migration per input, which a few hundred bytes drive completely.
run-host-access: $(FB)/fuzz_host_access
	@mkdir -p $(FB)/corpus/host_access
	$(FB)/fuzz_host_access $(FUZZ_OPTS) -max_len=512 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/host_access

# The restore of a vCPU's state blob (fuzz/fuzz_state.c): raw blobs, and the
# source's blob patched, cut and resealed.  Seeds: one input per mode
# (fuzz/state-seeds.sh), so that the runs start past the header's checks.
run-state: $(FB)/fuzz_state
	@rm -rf $(FB)/seed/state && mkdir -p $(FB)/corpus/state
	sh fuzz/state-seeds.sh $(FB)/seed/state
	$(FB)/fuzz_state $(FUZZ_OPTS) -max_len=1024 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/state $(FB)/seed/state

# vpmu-run's image loaders (tools/run/guest_boot.c, linux_boot.c) on arbitrary
# files: flat, multiboot with the a.out kludge, ELF32/ELF64, truncated headers,
# bzImage setup headers.  Seeds: one image of each kind (fuzz/image-seeds.sh).
run-image: $(FB)/fuzz_image
	@rm -rf $(FB)/seed/image && mkdir -p $(FB)/corpus/image
	sh fuzz/image-seeds.sh $(FB)/seed/image
	$(FB)/fuzz_image $(FUZZ_OPTS) -max_len=16384 -max_total_time=$(FUZZ_SECONDS) \
		$(FB)/corpus/image $(FB)/seed/image
