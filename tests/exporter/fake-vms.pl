#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# Fake VM sockets for tests/exporter.t, in the runtime directory DIR:
#   DIR/good.sock    answers "snapshot\n" with the JSON of FILE (one VM), as
#                    vpmu-run's socket does (docs/accounting.md, "The protocol")
#   DIR/silent.sock  accepts and never answers: a stopped vpmu-run
# Runs until killed.
use strict;
use warnings;
use IO::Socket::UNIX;
use IO::Select;
my ($dir, $file) = @ARGV;
open(my $fh, '<', $file) or die "$file: $!";
my $json = do { local $/; <$fh> };
my $good = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => "$dir/good.sock", Listen => 16)
	or die "good.sock: $!";
my $silent = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => "$dir/silent.sock", Listen => 64)
	or die "silent.sock: $!";
my (@held, %req);
my $sel = IO::Select->new($good, $silent);
print "ready\n";
$| = 1;
while (1) {
	for my $s ($sel->can_read(1)) {
		if ($s == $good) {
			my $c = $good->accept or next;
			$sel->add($c);
			$req{$c} = '';
		} elsif ($s == $silent) {
			my $c = $silent->accept or next;
			push @held, $c;        # read nothing, answer nothing
		} else {
			my $n = sysread($s, my $buf, 64);
			$req{$s} .= $buf if $n;
			if (!$n || $req{$s} =~ /\n/) {
				print $s $json if $n && $req{$s} eq "snapshot\n";
				$sel->remove($s);
				delete $req{$s};
				close $s;
			}
		}
	}
}
