# SPDX-License-Identifier: MIT
# A private apt configuration (sourced by scripts/guest-image and
# scripts/qemu-build): apt-get and apt-cache on their own sources, lists,
# state and cache under a directory of the project's cache, through
# APT_CONFIG, so that the host's apt state (its architectures, sources and
# lists) is never touched.  The callers define SUITE (the Debian suite) and
# die().

host_debian_uri() { # the host's Debian archive URI for $SUITE (not -security)
	{
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\)[[:space:]]\{1,\}\([^[:space:]]*\).*/\2 \3/p'
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
			function flush() { if (t ~ /(^| )deb( |$)/) { n = split(u, us, " "); m = split(s, ss, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print us[i], ss[j] }
				t = u = s = "" }
			/^[[:space:]]*$/ { flush(); next }
			/^#/ { next }
			/^Types:/ { sub(/^Types:[[:space:]]*/, ""); t = $0 }
			/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); u = $0 }
			/^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); s = $0 }
			END { flush() }'
	} | awk -v s="$SUITE" '$2 == s && $1 !~ /security/ { print $1; exit }'
}

replace() { # FILE: FILE.new becomes FILE if it differs (an unchanged FILE keeps
	# its time, so apt keeps its pkgcache.bin)
	if cmp -s "$1.new" "$1"; then rm -f "$1.new"; else mv "$1.new" "$1"; fi
}
host_security_uri() { # the host's Debian security archive URI for $SUITE-security
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's/^[[:space:]]*\(deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\|URIs:[[:space:]]*\)\([^[:space:]]*security[^[:space:]]*\).*/\3/p' |
		head -n 1
}

private_apt_conf() { # DIR ARCH WHO: DIR/apt.conf for architecture ARCH, written by WHO
	{
		echo "// written by $3; used as APT_CONFIG, so the host's"
		echo "// /etc/apt (its apt.conf.d hooks included) is not read."
		echo "APT::Architecture \"$2\";"
		echo "APT::Architectures { \"$2\"; };"
		echo "Dir::Etc \"$1/etc/\";"
		echo "Dir::State \"$1/state/\";"
		echo "Dir::State::status \"$1/state/status\";"
		echo "Dir::Cache \"$1/cache/\";"
		echo "Dir::Log \"$1/log/\";"
		echo "Dir::Cache::srcpkgcache \"\";"
		echo "Acquire::Languages \"none\";"
		echo "Acquire::GzipIndexes \"true\";"
		# the host's network settings (proxies, date checks), nothing else
		env -u APT_CONFIG apt-config dump 2>/dev/null |
			grep -E '^Acquire::((https?|ftp)::[Pp]roxy|Check-Valid-Until|Check-Date|ForceIPv4|ForceIPv6) '
	} >"$1/apt.conf.new" && replace "$1/apt.conf" || die "cannot write $1/apt.conf"
}

private_apt_dirs() { # DIR: the directories and the empty status file apt needs
	mkdir -p "$1/etc/apt.conf.d" "$1/etc/preferences.d" "$1/etc/sources.list.d" \
		"$1/state/lists/partial" "$1/cache/archives/partial" "$1/log" || die "cannot create $1"
	[ -f "$1/state/status" ] || : >"$1/state/status"
}
