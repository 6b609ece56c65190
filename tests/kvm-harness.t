#!/bin/sh
# SPDX-License-Identifier: MIT
# The KVM harness itself (scripts/kvm-env, docs/testing.md "The nested KVM tier"):
# a static probe (scripts/kvm/kvm-probe.c) finds a working /dev/kvm in the
# nested QEMU tier, and natively where /dev/kvm opens here; the program's
# stdout passes through without boot noise, its stderr goes to stderr, its
# arguments and --file files reach it, its exit status propagates, and a
# program that hangs is killed at --timeout with a clear message.
# Takes about 45 s on a 2-core machine without hardware KVM.
B=${VPMU_BUILD:-build}
KE=scripts/kvm-env
HANG_TIMEOUT=30
out=$B/kvm-harness
mkdir -p "$out" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. tests/tap.sh
probe_lines() { # FILE LABEL: the probe's unnumbered TAP lines, numbered here
	while IFS= read -r line; do
		case $line in
		"ok - "*) n=$((n + 1)); echo "ok $n - $2: ${line#ok - }" ;;
		"not ok - "*) n=$((n + 1)); echo "not ok $n - $2: ${line#not ok - }" ;;
		esac
	done <"$1"
}
only_tap() { # FILE: every line is a probe TAP line (no kernel or harness noise)
	[ -s "$1" ] && ! grep -v -E '^(not )?ok - ' "$1" >/dev/null
}

# ---- build ----------------------------------------------------------------
cat >"$tmp/args.c" <<'EOF'
#include <stdio.h>
int main(int argc, char **argv)
{
	for (int i = 1; i < argc - 1; i++)
		printf("arg %d: [%s]\n", i, argv[i]);
	FILE *f = fopen(argv[argc - 1], "r");	/* a --file, by its base name */
	int c;
	if (!f)
		return 9;
	while ((c = getc(f)) != EOF)
		putchar(c);
	fprintf(stderr, "args: to stderr\n");
	return 3;
}
EOF
cat >"$tmp/hang.c" <<'EOF'
#include <stdio.h>
int main(void)
{
	printf("hang: started\n");
	fflush(stdout);
	for (volatile unsigned long i = 0;; i++)
		;
}
EOF
built=0
for p in kvm-probe:scripts/kvm/kvm-probe.c args:$tmp/args.c hang:$tmp/hang.c; do
	${CC:-cc} -static -O2 -Wall -Wextra -Werror -o "$out/${p%%:*}" "${p#*:}" >>"$tmp/build.log" 2>&1 || built=1
done
ok $built "probe and helper programs build with cc -static" "$tmp/build.log"
[ $built -eq 0 ] || { echo "1..$n"; exit 1; }

mode=$($KE --mode)
case $mode in native | qemu) r=0 ;; *) r=1 ;; esac
ok $r "kvm-env --mode names the mode it would use ($mode)"

# ---- the probe in the nested QEMU tier --------------------------------------
$KE --qemu --timeout 120 -- "$out/kvm-probe" >"$tmp/q.out" 2>"$tmp/q.err"
rc=$?
probe_lines "$tmp/q.out" "nested QEMU tier"
ok $rc "probe exits 0 under kvm-env --qemu" "$tmp/q.err"
only_tap "$tmp/q.out"; ok $? "QEMU tier: stdout holds only the program's output (no boot noise)" "$tmp/q.out"
grep -q -E '^kvm-env: .*nested KVM in QEMU TCG \(kernel 6\.1\.0-[0-9]+(, forced)?\)$' "$tmp/q.err"
ok $? "QEMU tier: one note on stderr names the mode and the kernel" "$tmp/q.err"

# ---- natively, where /dev/kvm opens here -------------------------------------
# [ -c ] first: a bare '<>' redirection would create a regular file /dev/kvm.
if [ -c /dev/kvm ] && { : <>/dev/kvm; } 2>/dev/null; then
	$KE --native -- "$out/kvm-probe" >"$tmp/n.out" 2>"$tmp/n.err"
	rc=$?
	probe_lines "$tmp/n.out" "native /dev/kvm"
	ok $rc "probe exits 0 under kvm-env --native" "$tmp/n.err"
	grep -q -E '^kvm-env: (/dev/kvm present: running natively|running natively on /dev/kvm \(forced\))$' "$tmp/n.err"
	ok $? "native: the stderr note says it runs natively" "$tmp/n.err"
else
	$KE --native -- "$out/kvm-probe" >"$tmp/n.out" 2>"$tmp/n.err"
	rc=$?
	[ $rc -eq 125 ] && grep -q '/dev/kvm is absent or cannot be opened' "$tmp/n.err"
	ok $? "native refused with status 125 and a clear message where /dev/kvm does not open" "$tmp/n.err"
	[ ! -s "$tmp/n.out" ]; ok $? "native refusal runs nothing (empty stdout)"
fi

# ---- exit status, arguments, --file, stderr (default mode) -----------------
printf 'file line 1\nfile line 2\n' >"$tmp/data.txt"
$KE --file "$tmp/data.txt" -- "$out/args" "two words" "it's" "" data.txt >"$tmp/a.out" 2>"$tmp/a.err"
rc=$?
[ $rc -eq 3 ]; ok $? "exit status 3 of the program is kvm-env's status ($mode mode; got $rc)" "$tmp/a.err"
printf 'arg 1: [two words]\narg 2: [it'\''s]\narg 3: []\nfile line 1\nfile line 2\n' >"$tmp/a.want"
cmp -s "$tmp/a.out" "$tmp/a.want"; ok $? "stdout is exactly the program's: arguments with spaces, quotes and empty ones, then the --file's contents" "$tmp/a.out"
grep -q '^args: to stderr$' "$tmp/a.err"; ok $? "the program's stderr reaches stderr" "$tmp/a.err"

# ---- a hang is killed at --timeout ------------------------------------------
t0=$(date +%s)
$KE --timeout $HANG_TIMEOUT -- "$out/hang" >"$tmp/h.out" 2>"$tmp/h.err"
rc=$?
el=$(($(date +%s) - t0))
[ $rc -eq 124 ]; ok $? "a hanging program ends kvm-env with status 124 ($mode mode; got $rc)" "$tmp/h.err"
grep -q "^kvm-env: TIMEOUT: .*within $HANG_TIMEOUT s" "$tmp/h.err"; ok $? "the timeout is reported clearly on stderr" "$tmp/h.err"
[ $el -le $((HANG_TIMEOUT + 8)) ]; ok $? "the hang is stopped at the limit (--timeout $HANG_TIMEOUT, took $el s)"
grep -q '^hang: started$' "$tmp/h.out"; ok $? "output printed before the hang is still forwarded" "$tmp/h.out"

echo "1..$n"
