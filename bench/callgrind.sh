#!/bin/sh
# SPDX-License-Identifier: MIT
# Instructions per operation under callgrind (bench/README.md).
#   bench/callgrind.sh BENCH_OPS [ITERS] [OUTDIR]
# For every registered benchmark model and op, runs bench_ops under
# valgrind --tool=callgrind --collect-atstart=no: bench_ops toggles collection on
# only around its loop of ITERS iterations, so set-up and tear-down are excluded.
# Columns (instructions, Ir, per op):
#   loop  everything collected / ITERS: includes the loop and the op wrapper
#         (the "baseline" row is the loop alone);
#   lib   the API calls alone: inclusive Ir of the vpmu_* entry points the op calls
#         (vpmu_reg_write, vpmu_reg_read, vpmu_vcpu_switch_out + _switch_in), sim
#         backend calls included.  The targets apply to this column.
# Exit status: 1 if a run fails or a cache hit writes host registers (but the
# images of interrupting counters, stopped and restarted: two each); a missed
# instruction target is reported (MISSED) but does not fail.
set -eu
BIN=${1:?usage: bench/callgrind.sh BENCH_OPS [ITERS] [OUTDIR]}
ITERS=${2:-100000}
OUT=${3:-build/bench}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not found: run scripts/install-deps" >&2; exit 1; }
mkdir -p "$OUT"

# The issue's instruction budget per op, or "-" for none (the p4 write's is twice
# the p6 write's, measured in the same run).
target() {
	case $1 in
	p6/write | k7/write | ppc7450/write) echo 300 ;;
	p6/read | k7/read | p4/read | ppc7450/read) echo 80 ;;
	p6/switch-hit | k7/switch-hit | p4/switch-hit) echo 150 ;;
	skylake/pmi-handler) echo 1200 ;;
	skylake/global-same) echo 100 ;;
	riscv-sbi/sbi-config) echo 300 ;;
	riscv-sbi/sbi-start | riscv-sbi/sbi-stop | riscv-sbi/sbi-fw-read) echo 150 ;;
	*/decode) echo 40 ;;
	*) echo - ;;
	esac
}

# The API entry points an op calls (their inclusive cost is the library's).
api_funcs() {
	case $1 in
	write*) echo vpmu_reg_write ;;
	read) echo vpmu_reg_read ;;
	switch-*) echo "vpmu_vcpu_switch_out vpmu_vcpu_switch_in" ;;
	live-publish) echo "kvm_live_request kvm_live_publish" ;;
	pmi-handler) echo "vpmu_reg_write vpmu_reg_read vpmu_rdpmc" ;;
	global-same) echo vpmu_reg_write ;;
	decode) echo bench_event_decode ;;
	save) echo vpmu_vcpu_save ;;
	restore) echo vpmu_vcpu_restore ;;
	sbi-*) echo vpmu_call ;;
	*) echo ;;
	esac
}

# Instructions (Ir) collected in one run: the "totals:" (or "summary:") line.
ir_of() {
	sed -n 's/^totals: *\([0-9]*\).*/\1/p; s/^summary: *\([0-9]*\).*/\1/p' "$1" | head -n 1
}

# Inclusive Ir of function $2 in profile $1 (0 if it was not called).  When code
# from a header is inlined into it, callgrind_annotate lists the function once per
# source file plus once under its full path with the whole inclusive cost: take
# the largest.
incl_of() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		grep -E ":$2( \\[|\$)" | awk '{ gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }'
}

"$BIN" --list | grep '^#' || true
status=0
printf '%-6s %-12s %9s %9s %7s %11s %10s %s\n' model op "loop Ir" "lib Ir" target "ctrl-wr/op" "ctr-wr/op" verdict
for model in $("$BIN" --list | grep -v '^#'); do
	extra=
	# Architectural perfmon: Linux's PMI handler and a GLOBAL_CTRL write that
	# changes nothing.
	[ "$model" = skylake ] && extra="pmi-handler global-same"
	ops="baseline write write-enable read switch-hit switch-miss live-idle live-publish save restore"
	# The SBI PMU is programmed by calls, not register writes (bench_ops.c
	# says what each sbi-* op calls and leaves out of the count).
	[ "$model" = riscv-sbi ] && ops="baseline read switch-hit switch-miss save restore sbi-config sbi-start sbi-stop sbi-stop-snapshot sbi-fw-read"
	for op in $ops $extra; do
		f="$OUT/callgrind.out.$model.$op"
		# A save or restore walks every register (thousands of instructions):
		# a hundredth of the iterations counts them as exactly.
		n=$ITERS
		case $op in save | restore) n=$((ITERS / 100 > 0 ? ITERS / 100 : 1)) ;; esac
		line=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$f" \
			"$BIN" --callgrind --model "$model" --op "$op" --iters "$n" 2>"$f.log") || {
			echo "callgrind.sh: $model $op failed:" >&2; cat "$f.log" >&2; exit 1; }
		ctrl=$(echo "$line" | sed -n 's/.*ctrl_writes\/op=\([0-9.]*\).*/\1/p')
		ctr=$(echo "$line" | sed -n 's/.*ctr_writes\/op=\([0-9.]*\).*/\1/p')
		loop=$(awk -v i="$(ir_of "$f")" -v n="$n" 'BEGIN { printf "%.1f", i / n }')
		lib=0
		for fn in $(api_funcs "$op"); do
			lib=$((lib + $(incl_of "$f" "$fn")))
		done
		lib=$(awk -v i="$lib" -v n="$n" 'BEGIN { printf "%.1f", i / n }')
		t=$(target "$model/$op")
		# Issue 11: a P4 control write (with its ESCR lookup) within 2x the P6's.
		[ "$model/$op" = p6/write ] && p6_write=$lib
		if [ "$model/$op" = p4/write ] && [ -n "${p6_write:-}" ]; then
			t=$(awk -v p="$p6_write" 'BEGIN { printf "%.0f", 2 * p }')
		fi
		verdict=
		if [ "$t" != - ]; then
			if awk -v n="$lib" -v t="$t" 'BEGIN { exit !(n <= t) }'; then verdict=ok; else verdict=MISSED; fi
		fi
		# A cache hit writes no host register, but the images of interrupting
		# counters, each stopped at the switch-out and restarted (perfctr's
		# isuspend and write_control): two per i-mode counter (bench_ops' imode).
		imode=$(echo "$line" | sed -n 's/.*imode=\([0-9]*\).*/\1/p')
		if [ "$op" = switch-hit ] && { [ "$ctrl" != "$((2 * ${imode:-0})).000" ] || [ "$ctr" != 0.000 ]; }; then
			verdict="$verdict HOST-WRITES-ON-CACHE-HIT"; status=1
		fi
		printf '%-6s %-12s %9s %9s %7s %11s %10s %s\n' "$model" "$op" "$loop" "$lib" "$t" "$ctrl" "$ctr" "$verdict"
	done
done
# The event tables' decode (docs/events.md): every table, over the images of
# every Sapphire Rapids event.
for table in $("$BIN" --tables); do
	f="$OUT/callgrind.out.$table.decode"
	line=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$f" \
		"$BIN" --callgrind --op decode --table "$table" --iters "$ITERS" 2>"$f.log") || {
		echo "callgrind.sh: $table decode failed:" >&2; cat "$f.log" >&2; exit 1; }
	loop=$(awk -v i="$(ir_of "$f")" -v n="$ITERS" 'BEGIN { printf "%.1f", i / n }')
	lib=$(awk -v i="$(incl_of "$f" bench_event_decode)" -v n="$ITERS" 'BEGIN { printf "%.1f", i / n }')
	t=$(target "$table/decode")
	if awk -v n="$lib" -v t="$t" 'BEGIN { exit !(n <= t) }'; then verdict=ok; else verdict=MISSED; fi
	printf '%-6s %-12s %9s %9s %7s %11s %10s %s\n' "$table" decode "$loop" "$lib" "$t" - - "$verdict"
done
echo "# Ir/op over $ITERS iterations; hot spots: callgrind_annotate --inclusive=yes $OUT/callgrind.out.MODEL.OP"
exit $status
