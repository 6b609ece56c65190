#!/bin/sh
# SPDX-License-Identifier: MIT
# vpmu-run's command line and image checks (docs/vpmu-run.md): everything that is
# decided before KVM is opened, so it runs on any machine.  Bad input gets exit
# status 2 (usage: the cause, then "Try 'vpmu-run --help'") or 125 (a refused
# image) and one clear message; guest runs themselves are in tests/guests.t.
# An IMAGE that does not exist ends the run before KVM: status 125 with "cannot
# read guest image" shows that the options before it were taken.
B=${VPMU_BUILD:-build}
RUN=$B/bin/vpmu-run
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
check() { # check WANT-STATUS STDERR-REGEX DESCRIPTION -- ARGS...
	want=$1 re=$2 what=$3
	shift 4
	# A run that blocks (a FIFO opened for reading) is a failure, not a hang.
	timeout 30 "$RUN" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$((n + 1))
	if [ $rc -eq "$want" ] && grep -q -E -- "$re" "$tmp/err"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what (status $rc, want $want)"
		sed 's/^/# /' "$tmp/err" | head -5
	fi
}
. tests/guests/images.sh
printf '\364' >"$tmp/flat.bin"   # hlt: a valid flat image

try="^Try 'vpmu-run --help' for more information"
check 2 'no IMAGE given' "no image: usage, status 2" --
check 2 "one IMAGE only: '$tmp/flat.bin' is a second one" "two images: usage" -- "$tmp/flat.bin" "$tmp/flat.bin"
check 2 "^vpmu-run: unrecognized option '--frobnicate'" "unknown option: named, status 2" -- --frobnicate "$tmp/flat.bin"
check 2 "$try" "unknown option: the Try line" -- --frobnicate "$tmp/flat.bin"
check 2 "unknown model 'pentium9'; the models are: .*p6" "unknown model named, the models listed, status 2" -- --model pentium9 "$tmp/flat.bin"
check 125 "cannot read guest image $tmp/missing.bin" "--model P6: model names in any case" -- --model P6 "$tmp/missing.bin"
check 125 "cannot read guest image" "--accounting json (the value as the next argument)" -- --accounting json "$tmp/missing.bin"
check 125 "cannot read guest image" "--accounting=json (the value after '=')" -- --accounting=json "$tmp/missing.bin"
check 125 "cannot read guest image" "--model=p4 --ht --vcpus=2" -- --model=p4 --ht --vcpus=2 "$tmp/missing.bin"
check 2 "--accounting must be text, domstats, prometheus or json, not 'xml'" "--accounting=xml: usage" -- --accounting=xml "$tmp/flat.bin"
check 2 "--ht: the p6 model's CPUs had no hyper-threading" "--ht on a model without it: usage error, status 2" -- --ht "$tmp/flat.bin"
check 2 "--tap writes TAP to standard output: write the json accounting to a file with --output FILE" \
	"--tap with a json accounting on stdout: usage error naming --output" -- --tap --accounting json "$tmp/flat.bin"
check 125 "cannot write $tmp/nodir/acct.json: No such file or directory" "--output into a missing directory: status 125, before the guest" \
	-- --accounting json --output "$tmp/nodir/acct.json" "$tmp/flat.bin"
check 2 '--vcpus must be a number from 1 to 16' "vCPU count out of range" -- --vcpus 0 "$tmp/flat.bin"
check 2 '--vcpus must be a number' "vCPU count not a number" -- --vcpus 2x "$tmp/flat.bin"
check 2 '--timeout must be a number' "timeout not a number" -- --timeout -5 "$tmp/flat.bin"
check 2 "--backend must be perf or sim, not 'papi'" "unknown backend" -- --backend papi "$tmp/flat.bin"
# The name goes into the accounting's JSON, which must be UTF-8 (docs/accounting.md).
check 2 "--name must be 1 to 63 letters, digits" "a --name that is not UTF-8: usage error" -- --name "$(printf 'web\377')" "$tmp/flat.bin"
check 2 "--name must be 1 to 63 letters, digits" "a --name of 64 bytes: usage error" -- --name "$(printf '%064d' 0)" "$tmp/flat.bin"
printf 'action deny\n# LLC\nevent 0x2E\n' >"$tmp/bad.flt"
check 2 "^vpmu-run: --event-filter: $tmp/bad.flt:3: 'event' takes EVENT UMASK" \
	"--event-filter: a malformed file named with its line, usage error" -- --event-filter "$tmp/bad.flt" "$tmp/flat.bin"
check 2 "^vpmu-run: --event-filter: $tmp/none.flt: No such file" \
	"--event-filter: a missing file, usage error" -- --event-filter="$tmp/none.flt" "$tmp/flat.bin"
check 2 "--stat-group: no group 'no-such-group-vpmu'" "--stat-group of an unknown group: named, status 2" -- \
	--name web1 --stat-group no-such-group-vpmu "$tmp/flat.bin"
check 2 '--stat-group is for the live accounting: give --name too' "--stat-group without --name: usage" -- --stat-group 0 "$tmp/flat.bin"
check 125 "cannot read guest image $tmp/missing.bin" "missing image file, status 125" -- "$tmp/missing.bin"
: >"$tmp/empty.bin"
check 125 "cannot read guest image $tmp/empty.bin: empty file\$" "empty image refused as an empty file" -- "$tmp/empty.bin"
# Files vpmu-run must not wait on or read whole: each refused from fstat(2)
# alone, before KVM, the PMU or the --timeout clock (docs/vpmu-run.md).
mkfifo "$tmp/fifo"
check 125 "cannot read guest image $tmp/fifo: a FIFO, not a regular file" "a FIFO as the image refused, not waited on" -- "$tmp/fifo"
check 125 "cannot read guest image $tmp: a directory, not a regular file" "a directory as the image refused" -- "$tmp"
check 125 "cannot read guest image /dev/zero: a character device, not a regular file" "a device as the image refused, not read" -- /dev/zero
truncate -s 5G "$tmp/huge.bin"
check 125 "cannot read guest image $tmp/huge.bin: 5368709120 bytes, more than the 64 MiB of guest memory \(--mem\)" "an image larger than guest memory refused before it is read" -- "$tmp/huge.bin"
check 125 "cannot read guest image $tmp/huge.bin: 5368709120 bytes, more than the 128 MiB of guest memory" "the limit follows --mem" -- --mem 128 "$tmp/huge.bin"

mbheader 0x3 0 0 0 0 0 >"$tmp/noelf-mb.bin"
check 125 'not ELF: nothing says where to load it' "multiboot header without the a.out kludge in a non-ELF image refused" -- "$tmp/noelf-mb.bin"
mbheader 0x10000 0x100000 >"$tmp/trunc.bin"
check 125 'multiboot header at offset 0 is truncated: its address fields \(flag bit 16\) need 32 bytes, and the image ends 16 bytes after it' "truncated multiboot header reported as truncated" -- "$tmp/trunc.bin"
{ head -c 8176 /dev/zero; mbheader 0x10000 0x100000 0x100000 0 0 0x100000; } >"$tmp/late.bin"
check 125 'multiboot header at offset 8176 is truncated: .* the first 8192 bytes ends 16 bytes after it' "a header reaching past the first 8192 bytes is refused (Multiboot 3.1)" -- "$tmp/late.bin"
elfmb 2 96 - - b003e6f4f4 >"$tmp/elf64.bin"
check 125 'a 64-bit ELF multiboot image: multiboot loads 32-bit ELF only' "64-bit ELF multiboot image refused" -- "$tmp/elf64.bin"
elfmb 1 96 4000 - b003e6f4f4 >"$tmp/elf-phoff.bin"
check 125 'ELF program headers \(1 of 32 bytes at offset 4000\) lie outside the 101-byte image' "ELF program headers outside the file refused" -- "$tmp/elf-phoff.bin"
elfmb 1 96 - 5000 b003e6f4f4 >"$tmp/elf-filesz.bin"
check 125 'ELF segment 0 \(offset 0, 5000 bytes in the file, 9096 in memory\) does not fit the 101-byte image' "ELF segment beyond the file refused" -- "$tmp/elf-filesz.bin"
elfmb 1 65536 - - b003e6f4f4 >"$tmp/elf-entry.bin"
check 125 'entry point 0x110000 is outside the image \[0x100000, 0x101065\)' "ELF entry outside its segments refused" -- "$tmp/elf-entry.bin"
mbheader 0x10000 0x100000 0x100000 0x200000 0 0x100000 >"$tmp/short.bin"
check 125 'asks for 1048576 bytes but the image holds 32' "load_end beyond the file refused" -- "$tmp/short.bin"
mbheader 0x10000 0x100000 0x100000 0 0 0x300000 >"$tmp/entry.bin"
check 125 'entry point 0x300000 is outside the image' "entry outside the image refused" -- "$tmp/entry.bin"
mbheader 0x10000 0x8000000 0x8000000 0 0 0x8000000 >"$tmp/high.bin"
check 125 'does not fit guest memory' "image above guest memory refused (64 MiB default)" -- "$tmp/high.bin"
mbheader 0x10000 0x1000 0x1000 0 0 0x1000 >"$tmp/low.bin"
check 125 'does not fit guest memory above 0xa000' "image over the multiboot info refused" -- "$tmp/low.bin"
check 2 '--kernel boots Linux instead of an IMAGE' "--kernel with an IMAGE too: usage" -- --kernel "$tmp/flat.bin" "$tmp/flat.bin"
check 2 '--initrd is for a Linux guest: give --kernel too' "--initrd without --kernel: usage" -- --initrd "$tmp/flat.bin" "$tmp/flat.bin"
check 2 '--no-kvmclock is for a Linux guest' "--no-kvmclock without --kernel: usage" -- --no-kvmclock "$tmp/flat.bin"
check 125 "cannot read kernel $tmp/missing" "missing kernel file, status 125" -- --kernel "$tmp/missing"
check 125 "cannot read kernel $tmp/empty.bin: empty file\$" "empty kernel refused as an empty file" -- --kernel "$tmp/empty.bin"
check 125 "cannot read kernel $tmp/fifo: a FIFO, not a regular file" "a FIFO as the kernel refused" -- --kernel "$tmp/fifo"
check 125 "cannot read kernel $tmp/huge.bin: 5368709120 bytes, more than the 256 MiB of guest memory" "a kernel larger than guest memory (256 MiB with --kernel) refused" -- --kernel "$tmp/huge.bin"
# The initrds go with a kernel that is read but then refused: none of these boots.
bzimage 518 >"$tmp/bzcut"
check 125 "cannot read initrd $tmp/empty.bin: empty file\$" "empty initrd refused as an empty file" -- --kernel "$tmp/bzcut" --initrd "$tmp/empty.bin"
check 125 "cannot read initrd $tmp/fifo: a FIFO, not a regular file" "a FIFO as the initrd refused" -- --kernel "$tmp/bzcut" --initrd "$tmp/fifo"
check 125 "cannot read initrd $tmp/huge.bin: 5368709120 bytes, more than the 256 MiB" "an initrd larger than guest memory refused" -- --kernel "$tmp/bzcut" --initrd "$tmp/huge.bin"
check 125 'not a Linux bzImage' "--kernel on a file that is not a bzImage refused" -- --kernel "$tmp/flat.bin"
# boot_flag and "HdrS" but the file ends inside the version after them (0x206).
bzimage 518 >"$tmp/bz518"
bzimage 519 >"$tmp/bz519"
check 125 'bz518: the bzImage is truncated: it ends inside the setup header \(518 bytes' "--kernel on a 518-byte bzImage start refused, nothing read past it" -- --kernel "$tmp/bz518"
check 125 'bz519: the bzImage is truncated: it ends inside the setup header \(519 bytes' "--kernel on a 519-byte bzImage start refused, nothing read past it" -- --kernel "$tmp/bz519"
long=$(head -c 3000 /dev/zero | tr '\0' x)
check 125 'command line too long' "over-long --append refused" -- --append "$long" "$tmp/flat.bin"
# No permission on /dev/kvm: the kvm group (or root) is the fix, not scripts/kvm-env.
if [ "$(id -u)" -eq 0 ] && [ -c /dev/kvm ] && command -v setpriv >/dev/null &&
	! setpriv --reuid=65534 --regid=65534 --clear-groups test -r /dev/kvm; then
	chmod 755 "$tmp"
	n=$((n + 1))
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RUN" --backend sim "$tmp/flat.bin" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 125 ] && grep -q '^vpmu-run: /dev/kvm: Permission denied: .*add it to the kvm group .* or run as root$' "$tmp/err" &&
		! grep -q kvm-env "$tmp/err"; then
		echo "ok $n - no permission on /dev/kvm: the kvm group or root, not kvm-env"
	else
		echo "not ok $n - no permission on /dev/kvm: the kvm group or root, not kvm-env (status $rc)"
		sed 's/^/# /' "$tmp/err" | head -5
	fi
else
	n=$((n + 1))
	echo "ok $n - no permission on /dev/kvm # SKIP needs root, setpriv and a /dev/kvm user 65534 cannot read"
fi
if [ ! -c /dev/kvm ]; then
	check 125 '/dev/kvm: .*scripts/kvm-env' "without /dev/kvm: a clear message naming kvm-env" -- "$tmp/flat.bin"
fi
echo "1..$n"
