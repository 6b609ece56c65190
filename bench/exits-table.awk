# SPDX-License-Identifier: MIT
# The table of bench/kvm-exits.sh and bench/qemu-exits.sh: from the marks of
# guest-tests/bench-exits ("# mark vCPU 0 WHAT: WHO: TSC ticks per access:
# guest value N", WHO libvpmu, null handler or KVM) of several runs, per access
# the median TSC ticks of each and libvpmu's share of the round trip,
# (libvpmu - null) / libvpmu; and the median of the "libvpmu-ns/exit=" figures
# vpmu-run prints.  awk -v model=M -v runs=N [-v baseline=TEXT] -f exits-table.awk
function median(key,    n, i, j, t, a) {
	n = cnt[key]
	for (i = 1; i <= n; i++) a[i] = val[key, i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(key, v) { cnt[key]++; val[key, cnt[key]] = v }
/^# mark vCPU 0 .*: TSC ticks per access: guest value/ {
	line = $0; sub(/^# mark vCPU 0 /, "", line); sub(/: TSC ticks per access.*/, "", line)
	who = line; sub(/.*: /, "", who); what = line; sub(/: [^:]*$/, "", what)
	v = $0; sub(/.*guest value /, "", v); sub(/,.*/, "", v)
	if (!(what in seen)) { seen[what] = 1; order[++nw] = what }
	add(what SUBSEP who, v)
	if (who == "null handler") add(what SUBSEP "share", (prev - v) * 100 / prev)
	prev = v; next }
/KVM: msr-exits=/ { ns = $0; sub(/.*libvpmu-ns\/exit=/, "", ns); sub(/ .*/, "", ns); add("ns", ns) }
END {
	printf "# model %s, %d runs; medians of TSC ticks per access (blocks of libvpmu and of %s alternating in each run)\n", model, runs, baseline == "" ? "the null handler" : baseline
	printf "%-58s %9s %9s %8s\n", "access", "libvpmu", "null", "share"
	for (i = 1; i <= nw; i++) {
		w = order[i]
		if (cnt[w SUBSEP "KVM"]) { printf "%-58s %9d %9s %8s\n", w, median(w SUBSEP "KVM"), "-", "-"; continue }
		if (!cnt[w SUBSEP "null handler"]) { printf "%-58s %9d %9s %8s\n", w, median(w SUBSEP "libvpmu"), "-", "-"; continue }
		printf "%-58s %9d %9d %7.1f%%\n", w, median(w SUBSEP "libvpmu"), median(w SUBSEP "null handler"), median(w SUBSEP "share")
	}
	if (cnt["ns"]) printf "%-58s %9d ns per PMU MSR exit (the glue's timing)\n", "libvpmu answering", median("ns")
}
