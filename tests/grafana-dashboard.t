#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/grafana/vpmu-dashboard.json without a Grafana (docs/accounting.md,
# "Grafana"): it is a dashboard Grafana imports (a uid, a Prometheus data
# source variable, a domain variable from vpmu_vm_info, every panel on that
# data source), each panel's PromQL parses (promtool check rules, on the
# expressions as recording rules once the variables are replaced), and it
# shows every metric of the PromQL table of docs/accounting.md.  That each
# query returns data from a running VM is tests/live-view.t's, against a real
# Prometheus scraping the exporter in the nested KVM tier.
. tests/tap.sh
dash=contrib/grafana/vpmu-dashboard.json
doc=docs/accounting.md
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

perl -MJSON::PP -e '
	local $/; my $d = decode_json(<STDIN>);
	my %var = map { $_->{name} => $_ } @{ $d->{templating}{list} };
	my @bad;
	push @bad, "no uid" unless $d->{uid};
	push @bad, "no data source variable" unless ($var{datasource}{type} // "") eq "datasource"
		&& ($var{datasource}{query} // "") eq "prometheus";
	push @bad, "no domain variable from vpmu_vm_info"
		unless ($var{domain}{definition} // "") =~ /^label_values\(vpmu_vm_info, domain\)$/;
	for my $p (@{ $d->{panels} }) {
		push @bad, "panel $p->{id}: not on \${datasource}" unless $p->{datasource}{uid} eq q(${datasource});
		push @bad, "panel $p->{id}: no query" unless @{ $p->{targets} || [] };
		push @bad, "panel $p->{id}: no description" unless $p->{description};
	}
	print "$_\n" for @bad;
	exit !!@bad;' <"$dash" >"$tmp/shape" 2>&1
ok $? "$dash: uid, data source and domain variables, every panel on the data source with a query" "$tmp/shape"

perl tests/dashboard-queries.pl "$dash" web1 5m >"$tmp/q" 2>"$tmp/q.err"
ok $? "every panel target has an expression and no variable but \$domain and the rate window" "$tmp/q.err"

{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	i=0
	while IFS='	' read -r id title expr; do
		i=$((i + 1))
		echo "      - record: vpmu:dashboard_panel_${id}_$i"
		printf "        expr: '%s'\n" "$(printf '%s' "$expr" | sed "s/'/''/g")"
	done <"$tmp/q"
} >"$tmp/rules.yml"
promtool check rules "$tmp/rules.yml" >"$tmp/promtool" 2>&1
ok $? "every panel's PromQL parses (promtool check rules, $(wc -l <"$tmp/q") expressions)" "$tmp/promtool"

# The metrics of docs/accounting.md's PromQL table (the rows between
# "**PromQL**" and the next blank line after the table).
awk '/^\*\*PromQL\*\*/ { t = 1; next } t && /^\|/ { print; seen = 1; next } t && seen { exit }' "$doc" |
	grep -o 'vpmu_[a-z_]*' | sort -u >"$tmp/doc-metrics"
cut -f3 "$tmp/q" | grep -o 'vpmu_[a-z_]*' | sort -u >"$tmp/dash-metrics"
comm -23 "$tmp/doc-metrics" "$tmp/dash-metrics" >"$tmp/missing"
[ -s "$tmp/doc-metrics" ] && [ ! -s "$tmp/missing" ]
ok $? "the dashboard shows every metric of $doc's PromQL table ($(wc -l <"$tmp/doc-metrics"))" "$tmp/missing"
echo "1..$n"
