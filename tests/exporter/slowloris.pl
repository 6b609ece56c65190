#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# A slowloris client for tests/exporter.t: N connections to HOST:PORT, each
# sending a request's header one byte every GAP seconds, never finishing it.
# Prints "cut K of N after S s, E within 1 s" once every connection was
# closed by the server, or when LIMIT seconds have passed (E: those closed
# at once, as a per-address limit closes them).
use strict;
use warnings;
use IO::Socket::INET;
use Time::HiRes qw(time sleep);
my ($host, $port, $n, $gap, $limit) = @ARGV;
my $req = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Padding: " . ("a" x 4096);
my (@c, @off);
for (1 .. $n) {
	my $s = IO::Socket::INET->new(PeerAddr => $host, PeerPort => $port, Proto => 'tcp');
	push @c, $s;
	push @off, 0;
}
$SIG{PIPE} = 'IGNORE';
my $t0 = time;
my ($cut, $early) = (0, undef);
while (time - $t0 < $limit) {
	$cut = 0;
	for my $i (0 .. $#c) {
		my $s = $c[$i];
		if (!$s) { $cut++; next; }
		# A closed connection reads EOF (or fails to write).
		my $rin = '';
		vec($rin, fileno($s), 1) = 1;
		if (select(my $rout = $rin, undef, undef, 0) > 0) {
			my $got = sysread($s, my $buf, 4096);
			if (!$got) { close $s; $c[$i] = undef; $cut++; next; }
		}
		if (!defined syswrite($s, substr($req, $off[$i]++ % length($req), 1))) {
			close $s; $c[$i] = undef; $cut++;
		}
	}
	last if $cut == $n;
	if (!defined $early && time - $t0 >= 1) {
		$early = $cut;
	}
	sleep(defined $early ? $gap : 0.1);
}
printf "cut %d of %d after %.1f s, %d within 1 s\n", $cut, $n, time - $t0, $early // $cut;
