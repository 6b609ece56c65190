#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# The PromQL of a Grafana dashboard, ready to run: one line per panel target,
# "PANEL-ID<TAB>TITLE<TAB>EXPR", with the dashboard's variables replaced as
# Grafana would replace them for one domain ($domain, ${domain}) and one rate
# window ($__rate_interval, $__range, $__interval).  Used by
# tests/grafana-dashboard.t and tests/live-view.t.
#     dashboard-queries.pl DASHBOARD.json DOMAIN WINDOW
use strict;
use warnings;
use JSON::PP;

@ARGV == 3 or die "usage: dashboard-queries.pl DASHBOARD.json DOMAIN WINDOW\n";
my ($file, $domain, $window) = @ARGV;
open(my $fh, '<', $file) or die "$file: $!\n";
my $dash = decode_json(do { local $/; <$fh> });
for my $p (@{ $dash->{panels} || [] }) {
	for my $t (@{ $p->{targets} || [] }) {
		my $e = $t->{expr};
		die "$file: panel $p->{id} ($p->{title}) has a target without an expression\n"
			unless defined $e && length $e;
		$e =~ s/\$\{domain\}|\$domain\b/$domain/g;
		$e =~ s/\$__(rate_interval|range|interval)\b/$window/g;
		die "$file: panel $p->{id}: a variable left in: $e\n" if $e =~ /\$/;
		print "$p->{id}\t$p->{title}\t$e\n";
	}
}
