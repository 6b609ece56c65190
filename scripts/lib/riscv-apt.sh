# SPDX-License-Identifier: MIT
# riscv-apt.sh: the Debian packages of the RISC-V tier (docs/riscv.md, "The
# nested RISC-V tier"), fetched through private apt configurations and
# extracted with dpkg -x into a cache, never installed.  Sourced (POSIX sh) by
# scripts/kvm-env --arch riscv64, scripts/kvm-riscv-modules and the riscv64
# guest image; it sources scripts/lib/debian-apt.sh for the private apt
# directories and apt.conf (APT_CONFIG: the host's /etc/apt, its sources,
# lists and architectures are never read nor changed).
#
# The caller defines die() (print, exit 125) and may set RA_ME (the name its
# messages start with).  Two configurations, each under the cache
# ${VPMU_RISCV_CACHE:-~/.cache/vpmu-riscv}:
#   trixie   Debian 13 main, riscv64: the L1/L2 kernel, its headers and
#            source, busybox-static, linux-perf ...  (apt-trixie-riscv64/)
#   bpo      bookworm, bookworm-updates and bookworm-backports main, amd64:
#            QEMU 10 and OpenSBI for L0, with every library they need
#            (apt-bookworm-backports-amd64/)
# The mirror is the host's Debian mirror when it has one (its bookworm URI
# serves trixie and bookworm-backports too), else deb.debian.org.
#
# Functions (WHICH is trixie or bpo):
#   ra_apt WHICH CMD...        run apt-get/apt-cache on that configuration
#   ra_update WHICH [force]    refresh its lists (when missing, a day old, or forced)
#   ra_candidate WHICH PKG     the version apt would take, or nothing
#   ra_closure WHICH PKG[=VER]...
#                              print "name=version" of PKG and its Depends
#                              closure (Pre-Depends included, no Recommends),
#                              as apt resolves it against an empty system
#   ra_extract WHICH DIR PKG[=VER]...
#                              download the exact packages given and dpkg -x
#                              them all into DIR, once: DIR/ok lists them;
#                              locked (flock) against concurrent callers
#   ra_fetch_closure WHICH DIR PKG...
#                              THE ONE FOR A GUEST IMAGE: PKG and its Depends
#                              closure for WHICH's architecture (trixie:
#                              riscv64), extracted into DIR (ra_closure, then
#                              ra_extract).  E.g.
#                                ra_fetch_closure trixie "$d" busybox-static linux-perf
#   ra_kernel                  resolve Debian 13's riscv64 kernel: sets
#                              RA_KVER (6.12.117+deb13-riscv64), RA_KPKGVER
#                              (the package version, 6.12.117-1) and RA_KSRC
#                              (linux-source-6.12), and dies unless the same
#                              version of linux-image-RA_KVER, linux-headers-RA_KVER
#                              and RA_KSRC is available (the out-of-tree
#                              kvm.ko needs all three to match)
# Offline (no mirror reachable), ra_update keeps the lists it has, and callers
# use what is cached (their ok markers).

RA_CACHE=${VPMU_RISCV_CACHE:-${HOME:-/tmp}/.cache/vpmu-riscv}
RA_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
RA_ME=${RA_ME:-riscv-apt}
# debian-apt.sh beside this file: callers in scripts/ are found by $0, others
# (tests) set RA_TOP to the tree's top.
if [ -n "${RA_TOP:-}" ]; then ra_lib=$RA_TOP/scripts/lib
else ra_lib=$(dirname "$0")/lib
fi
[ -f "$ra_lib/debian-apt.sh" ] || {
	echo "$RA_ME: $ra_lib/debian-apt.sh not found (set RA_TOP to the tree's top)" >&2; exit 125; }
. "$ra_lib/debian-apt.sh"

ra_dir() { # WHICH: the configuration's directory
	case $1 in
	trixie) echo "$RA_CACHE/apt-trixie-riscv64" ;;
	bpo) echo "$RA_CACHE/apt-bookworm-backports-amd64" ;;
	*) die "riscv-apt: unknown configuration '$1' (trixie or bpo)" ;;
	esac
}

ra_setup() { # WHICH: write its sources.list and apt.conf (cheap; every use)
	ra_d=$(ra_dir "$1") || exit 125
	[ -r "$RA_KEYRING" ] || die "$RA_KEYRING missing (apt-get install debian-archive-keyring; it holds the trixie keys since 2023.3+deb12u1)"
	command -v apt-get >/dev/null || die "apt-get not found: the RISC-V tier's packages come from Debian's archive"
	mkdir -p "$RA_CACHE" || die "cannot create $RA_CACHE"
	private_apt_dirs "$ra_d"
	# debian-apt.sh reads SUITE: the host's own suite's mirror (bookworm here)
	ra_suite=${SUITE-}
	SUITE=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-bookworm}")
	ra_uri=$(host_debian_uri)
	SUITE=$ra_suite
	ra_uri=${ra_uri:-http://deb.debian.org/debian}
	case $1 in
	trixie)
		{
			echo "# written by scripts/lib/riscv-apt.sh: Debian 13 riscv64 packages, never installed"
			echo "deb [signed-by=$RA_KEYRING] $ra_uri trixie main"
		} >"$ra_d/etc/sources.list.new"
		ra_arch=riscv64 ;;
	bpo)
		{
			echo "# written by scripts/lib/riscv-apt.sh: QEMU 10 and OpenSBI for amd64, never installed"
			echo "deb [signed-by=$RA_KEYRING] $ra_uri bookworm main"
			echo "deb [signed-by=$RA_KEYRING] $ra_uri bookworm-updates main"
			echo "deb [signed-by=$RA_KEYRING] $ra_uri bookworm-backports main"
		} >"$ra_d/etc/sources.list.new"
		ra_arch=amd64 ;;
	esac
	replace "$ra_d/etc/sources.list" || die "cannot write $ra_d/etc/sources.list"
	private_apt_conf "$ra_d" "$ra_arch" scripts/lib/riscv-apt.sh
	if [ "$1" = bpo ]; then
		# backports are NotAutomatic (priority 100): the packages named on
		# the command line are taken from there with =VERSION or by this pin
		{
			echo "Package: qemu-system-riscv qemu-system-common qemu-system-data opensbi"
			echo "Pin: release n=bookworm-backports"
			echo "Pin-Priority: 990"
		} >"$ra_d/etc/preferences.d/backports.new" && replace "$ra_d/etc/preferences.d/backports" ||
			die "cannot write $ra_d/etc/preferences.d/backports"
	fi
}

ra_apt() { # WHICH CMD...: CMD on that configuration
	ra_w=$1; shift
	APT_CONFIG=$(ra_dir "$ra_w")/apt.conf "$@"
}

ra_update() { # WHICH [force]
	ra_setup "$1"
	ra_d=$(ra_dir "$1")
	if [ -z "${2:-}" ] && [ -f "$ra_d/updated" ] && [ -z "$(find "$ra_d/updated" -mmin +1440 2>/dev/null)" ]; then
		return 0
	fi
	# apt-get update exits 0 when it cannot reach the mirror (warnings only)
	if ra_apt "$1" apt-get -q update >"$ra_d/update.log" 2>&1 && ! grep -q '^Err:' "$ra_d/update.log"; then
		touch "$ra_d/updated"
	elif [ -f "$ra_d/updated" ]; then
		echo "$RA_ME: apt-get update ($1) failed; using the package lists of $(date -r "$ra_d/updated" '+%F %T')" >&2
		grep -A 1 '^Err:' "$ra_d/update.log" | head -n 4 | sed 's/^/  /' >&2
	else
		sed 's/^/  /' "$ra_d/update.log" | tail -n 6 >&2
		die "apt-get update of the private $1 lists ($ra_d) failed"
	fi
}

ra_candidate() { # WHICH PKG
	ra_apt "$1" apt-cache policy "$2" 2>/dev/null | sed -n 's/^  Candidate: //p' | grep -v '^(none)$'
}

ra_closure() { # WHICH PKG[=VER]...: "name=version" lines, sorted
	ra_w=$1; shift
	ra_update "$ra_w"
	# A simulated install on the configuration's empty dpkg status: apt's own
	# resolver (virtual packages, alternatives, versioned Depends).
	ra_out=$(ra_apt "$ra_w" apt-get -s -q=1 -o Debug::NoLocking=1 -o APT::Install-Recommends=false \
		-o APT::Install-Suggests=false install "$@" 2>&1) || {
		printf '%s\n' "$ra_out" | tail -n 12 | sed 's/^/  /' >&2
		die "apt cannot resolve the dependencies of $* ($ra_w)"; }
	printf '%s\n' "$ra_out" | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' | sort
}

ra_extract() { # WHICH DIR PKG[=VER]...
	ra_w=$1 ra_x=$2; shift 2
	ra_want=$(printf '%s\n' "$@" | sort)
	[ "$(cat "$ra_x/ok" 2>/dev/null)" = "$ra_want" ] && return 0
	mkdir -p "$(dirname "$ra_x")" || die "cannot create $(dirname "$ra_x")"
	(
		flock 9 || exit 1
		[ "$(cat "$ra_x/ok" 2>/dev/null)" = "$ra_want" ] && exit 0
		ra_update "$ra_w"
		ra_t=$(mktemp -d "$RA_CACHE/dl.XXXXXX") || exit 1
		trap 'rm -rf "$ra_t"' EXIT
		chmod 755 "$ra_t"
		# apt drops to _apt for downloads when root; let it write here.
		[ "$(id -u)" -ne 0 ] || chown _apt "$ra_t" 2>/dev/null || true
		echo "$RA_ME: fetching $# packages ($ra_w) into $ra_x (once)" >&2
		(cd "$ra_t" && ra_apt "$ra_w" apt-get download -q=2 "$@") >"$ra_t/apt.log" 2>&1 || {
			sed 's/^/  /' "$ra_t/apt.log" | tail -n 8 >&2
			echo "$RA_ME: apt-get download $* failed" >&2; exit 1; }
		mkdir "$ra_t/x"
		for ra_deb in "$ra_t"/*.deb; do
			dpkg -x "$ra_deb" "$ra_t/x" || { echo "$RA_ME: dpkg -x $(basename "$ra_deb") failed" >&2; exit 1; }
		done
		printf '%s\n' "$ra_want" >"$ra_t/x/ok"
		rm -rf "$ra_x" && mv "$ra_t/x" "$ra_x"
	) 9>"$ra_x.lock" || die "could not fetch $* into $ra_x"
}

ra_fetch_closure() { # WHICH DIR PKG...
	ra_w=$1 ra_x=$2; shift 2
	# cached for exactly these names: no apt call at all (offline use)
	ra_key=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ -f "$ra_x/ok" ] && [ "$(cat "$ra_x/.names" 2>/dev/null)" = "$ra_key" ] &&
		[ -z "$(find "$ra_x/ok" -mmin +1440 2>/dev/null)" ]; then
		return 0
	fi
	ra_set=$(ra_closure "$ra_w" "$@") || exit 125
	[ -n "$ra_set" ] || die "apt resolved nothing for $* ($ra_w)"
	# shellcheck disable=SC2086
	ra_extract "$ra_w" "$ra_x" $ra_set
	printf '%s\n' "$ra_key" >"$ra_x/.names"
}

ra_kernel() { # sets RA_KVER RA_KPKGVER RA_KSRC
	ra_update trixie
	# linux-image-riscv64 (the metapackage) depends on exactly one image
	RA_KVER=$(ra_apt trixie apt-cache depends linux-image-riscv64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-riscv64\)$/\1/p' | head -n 1)
	[ -n "$RA_KVER" ] || die "cannot resolve the riscv64 kernel (apt-cache depends linux-image-riscv64 in $(ra_dir trixie))"
	RA_KPKGVER=$(ra_candidate trixie "linux-image-$RA_KVER")
	ra_hv=$(ra_candidate trixie "linux-headers-$RA_KVER")
	# 6.12.117+deb13-riscv64 -> linux-source-6.12
	ra_mm=$(echo "$RA_KVER" | sed -n 's/^\([0-9]*\.[0-9]*\)\..*/\1/p')
	RA_KSRC=linux-source-$ra_mm
	# the source package's version that matches: linux-source-6.12 may carry
	# several versions; the one equal to the image's must be among them
	ra_sv=$(ra_apt trixie apt-cache madison "$RA_KSRC" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
		grep -Fx -- "$RA_KPKGVER" | head -n 1)
	if [ -z "$RA_KPKGVER" ] || [ "$ra_hv" != "$RA_KPKGVER" ] || [ "$ra_sv" != "$RA_KPKGVER" ]; then
		die "version mismatch in trixie: linux-image-$RA_KVER ${RA_KPKGVER:-absent}, linux-headers-$RA_KVER ${ra_hv:-absent}, $RA_KSRC ${ra_sv:-absent at that version} (the kernel, its headers and its source must be the same version; refresh with: rm $(ra_dir trixie)/updated)"
	fi
}
