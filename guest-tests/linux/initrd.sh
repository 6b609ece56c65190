#!/bin/sh
# SPDX-License-Identifier: MIT
# guest-tests/linux/initrd.sh OUT: the initramfs of the profiled Linux guests
# (tests/linux-perf.t, scripts/demo-linux, bench/linux-sampling.sh):
# scripts/guest-image's cached busybox + perf initramfs, then an uncompressed
# archive with profile.sh as /run.sh, the workload as /bin/vpmu-workload and the
# self-counting client as /bin/vpmu-selfcount (Linux unpacks concatenated
# archives in order: docs/linux-guests.md).
# Needs make guests; fetches the cached image once.
set -u
[ $# -eq 1 ] || { echo "usage: guest-tests/linux/initrd.sh OUT" >&2; exit 2; }
GB=${VPMU_GUEST_BUILD:-build/guest}
for f in vpmu-workload vpmu-selfcount; do
	[ -f "$GB/$f" ] || { echo "initrd.sh: $GB/$f is missing (make guests)" >&2; exit 1; }
done
base=$(scripts/guest-image --initrd) || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/extra/bin" &&
	cp guest-tests/linux/profile.sh "$tmp/extra/run.sh" && cp "$GB/vpmu-workload" "$GB/vpmu-selfcount" "$tmp/extra/bin/" &&
	(cd "$tmp/extra" && find . | busybox cpio -o -H newc 2>/dev/null) >"$tmp/extra.cpio" &&
	cat "$base" "$tmp/extra.cpio" >"$1"
