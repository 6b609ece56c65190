#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# The library boundary of $VPMU_BUILD/lib/libvpmu.so:
#   - its dynamic symbol table exports only vpmu_* symbols, each declared as a
#     function in include/vpmu/*.h, and every function those headers declare
#     (static inline ones aside) is exported;
#   - its SONAME is libvpmu.so.1;
#   - `make install` (DESTDIR, PREFIX=/usr, B=$VPMU_BUILD) installs the headers,
#     libvpmu.a, libvpmu.so.1.0.0 with its links and libvpmu.pc, and a small
#     program built with `pkg-config --cflags --libs libvpmu` against that tree
#     compiles, links (shared, and static with --static) and runs.
# The install uses the build as it is (make -o: nothing is rebuilt into it). A
# sanitizer build (make check's build/san) needs its program linked with the
# same -fsanitize flags: they are added when the library wants ASan/UBSan.
use strict;
use warnings;
use File::Temp qw(tempdir);
use Test::More;

my $B = $ENV{VPMU_BUILD} || 'build';
my $CC = $ENV{CC} || 'cc';
my $SO = "$B/lib/libvpmu.so";
# The soname is the ABI: pinned here.  The file name follows the Makefile's VERSION.
my $SONAME = 'libvpmu.so.1';
# (make -s version: the Makefile reads it from include/vpmu/version.h).
my $VERSION = `make -s --no-print-directory version 2>/dev/null`;
chomp $VERSION;
$VERSION = undef unless $VERSION =~ /^\d+\.\d+\.\d+$/;
my @HEADERS = sort glob 'include/vpmu/*.h';

# The child make must not inherit a parent make's command-line variables
# (make check ... DESTDIR=x would otherwise reach it through MAKEFLAGS).
delete @ENV{qw(MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES)};

if (!-f $SO || !-f "$B/lib/libvpmu.a" || !defined $VERSION) {
	plan tests => 1;
	fail(defined $VERSION ? "$SO and $B/lib/libvpmu.a are built (make B=$B)"
			      : 'the Makefile sets VERSION');
	exit 1;
}

my $tmp = tempdir('vpmu-abi.XXXXXX', TMPDIR => 1, CLEANUP => 1);

# run(CMD...): runs CMD with stdout and stderr in $tmp/log; returns the status
# and the output.
sub run {
	my @cmd = @_;
	my $pid = fork() // die "fork: $!";
	if (!$pid) {
		open STDOUT, '>', "$tmp/log" or die;
		open STDERR, '>&', \*STDOUT or die;
		exec @cmd or exit 127;
	}
	waitpid $pid, 0;
	my $rc = $?;
	open my $fh, '<', "$tmp/log" or die;
	local $/;
	my $out = <$fh> // '';
	return ($rc, $out);
}

sub diag_output {
	my ($cmd, $out) = @_;
	diag "\$ @$cmd";
	my @lines = split /\n/, $out;
	splice @lines, 0, @lines - 40 if @lines > 40;
	diag $_ for @lines;
}

sub have {
	my ($prog) = @_;
	return grep { -x "$_/$prog" } split /:/, $ENV{PATH} // '';
}

# Functions declared in the public headers: comments, preprocessor lines and the
# C++-only blocks dropped, brace bodies (struct definitions, static inline
# functions) collapsed; then every top-level declaration `... name(` that is not
# static or a typedef.  Returns name => header.
sub header_functions {
	my %fn;
	for my $h (@HEADERS) {
		open my $fh, '<', $h or die "$h: $!";
		local $/;
		my $s = <$fh>;
		$s =~ s{/\*.*?\*/}{ }gs;
		$s =~ s{//[^\n]*}{}g;
		$s =~ s{\\\n}{ }g;
		my ($skip, @keep) = (0);
		for (split /\n/, $s) {
			if ($skip) {
				$skip++ if /^\s*#\s*if/;
				$skip-- if /^\s*#\s*endif/;
				next;
			}
			if (/^\s*#\s*ifdef\s+__cplusplus\b/) { $skip = 1; next }
			next if /^\s*#/;
			push @keep, $_;
		}
		my $t = join ' ', @keep;
		$t =~ s/__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)//g;
		1 while $t =~ s/\{[^{}]*\}/ ; /g;
		for my $d (split /;/, $t) {
			$d =~ s/^\s+|\s+$//g;
			next if $d eq '' || $d =~ /^(?:typedef|static)\b/;
			next unless $d =~ /^[^()]*?\b([A-Za-z_]\w*)\s*\(\s*(\*?)/;
			next if $2 eq '*';	# a function pointer variable
			$fn{$1} //= $h;
		}
	}
	return %fn;
}

# ---- the dynamic symbol table ------------------------------------------------
my ($rc, $out) = run('nm', '-D', '--defined-only', $SO);
my @exported = sort map { (split ' ')[-1] } grep { /\S/ } split /\n/, $out;
s/@.*// for @exported;
ok($rc == 0 && @exported, "nm -D lists what $SO exports (" . scalar(@exported) . " symbols)")
	or diag_output(['nm', '-D', '--defined-only', $SO], $out);

my @foreign = grep { !/^vpmu_/ } @exported;
ok(!@foreign, 'every exported symbol starts with vpmu_')
	or diag "exported without the vpmu_ prefix: @foreign";

my %declared = header_functions();
ok(keys(%declared) > 0, 'include/vpmu/*.h declare functions (' . scalar(keys %declared) . ')');

my @undeclared = grep { !exists $declared{$_} } @exported;
ok(!@undeclared, 'every exported symbol is declared in include/vpmu/*.h')
	or diag "exported but declared in no public header: @undeclared";

my %is_exported = map { $_ => 1 } @exported;
# The version query (include/vpmu/version.h) is part of the ABI from 1.0.0 on.
ok($is_exported{vpmu_version}, 'vpmu_version is exported');
my @missing = sort grep { !$is_exported{$_} } keys %declared;
ok(!@missing, 'every function declared in include/vpmu/*.h is exported')
	or diag join "\n", map { "declared in $declared{$_} but not exported: $_" } @missing;

($rc, $out) = run('readelf', '-d', $SO);
my ($soname) = $out =~ /\(SONAME\)\s+Library soname: \[([^\]]*)\]/;
is($soname // '(none)', $SONAME, "SONAME is $SONAME");

# ---- make install ------------------------------------------------------------
my $root = "$tmp/root";
my @install = ('make', '--no-print-directory', '-s', 'install', "DESTDIR=$root",
	       'PREFIX=/usr', "B=$B", '-o', "$B/lib/libvpmu.a", '-o', $SO);
($rc, $out) = run(@install);
ok($rc == 0, "make install DESTDIR=\$tmp PREFIX=/usr B=$B") or diag_output(\@install, $out);

my $inc = "$root/usr/include/vpmu";
my $lib = "$root/usr/lib";
my @want_h = map { "vpmu/$_" } qw(vpmu.h backend.h perfctr.h kvm_x86.h);
push @want_h, grep { my $x = $_; !grep { $_ eq $x } @want_h }
	map { s{^include/}{}r } @HEADERS;
my @bad_h = grep { !-f "$root/usr/include/$_" || system('cmp', '-s', "include/$_",
	"$root/usr/include/$_") != 0 } @want_h;
ok(!@bad_h, "headers installed in /usr/include/vpmu: @want_h")
	or diag "missing or different: @bad_h";

my @bad_lib;
push @bad_lib, 'libvpmu.a' unless -f "$lib/libvpmu.a" && !-l "$lib/libvpmu.a";
push @bad_lib, "libvpmu.so.$VERSION" unless -f "$lib/libvpmu.so.$VERSION" && !-l "$lib/libvpmu.so.$VERSION";
push @bad_lib, "$SONAME -> libvpmu.so.$VERSION (is " . (readlink("$lib/$SONAME") // 'absent') . ')'
	unless (readlink("$lib/$SONAME") // '') eq "libvpmu.so.$VERSION";
push @bad_lib, "libvpmu.so -> $SONAME (is " . (readlink("$lib/libvpmu.so") // 'absent') . ')'
	unless (readlink("$lib/libvpmu.so") // '') eq $SONAME;
ok(!@bad_lib, "/usr/lib: libvpmu.a, libvpmu.so.$VERSION, $SONAME and libvpmu.so links")
	or diag join "\n", map { "wrong: $_" } @bad_lib;

my $pc = "$lib/pkgconfig/libvpmu.pc";
ok(-f $pc, '/usr/lib/pkgconfig/libvpmu.pc installed');

# ---- a program built with pkg-config against the installed tree ---------------
$ENV{PKG_CONFIG_PATH} = "$lib/pkgconfig";
$ENV{PKG_CONFIG_SYSROOT_DIR} = $root;
my (@cflags, @libs, @static_libs);
my $have_pc = have('pkg-config');
if ($have_pc) {
	($rc, $out) = run('pkg-config', '--cflags', '--libs', 'libvpmu');
	my $ok = ok($rc == 0 && $out =~ /-lvpmu/ && $out =~ m{-I\Q$root\E/usr/include}
		    && $out =~ m{-L\Q$root\E/usr/lib\b}, 'pkg-config --cflags --libs libvpmu');
	$ok or diag_output(['pkg-config', '--cflags', '--libs', 'libvpmu'], $out);
	if ($ok) {
		@cflags = split ' ', `pkg-config --cflags libvpmu`;
		@libs = split ' ', `pkg-config --libs libvpmu`;
		@static_libs = split ' ', `pkg-config --static --libs libvpmu`;
	}
} else {
	ok(0, 'pkg-config --cflags --libs libvpmu');
	diag 'pkg-config not found: scripts/install-deps installs it';
}

# The library of a sanitizer build wants the ASan/UBSan runtimes: the program
# must be linked with the same flags.
($rc, $out) = run('nm', '-D', '--undefined-only', $SO);
my @san;
push @san, 'address' if $out =~ /\b__asan_/;
push @san, 'undefined' if $out =~ /\b__ubsan_/;
my @sanflags = @san ? ('-fsanitize=' . join(',', @san), '-fno-omit-frame-pointer') : ();
note "library built with -fsanitize=" . join(',', @san) if @san;

# Each header compiles on its own.
my @lonely;
for my $h (@want_h) {
	open my $fh, '>', "$tmp/h.c" or die;
	print $fh "#include <$h>\n";
	close $fh;
	($rc, $out) = run($CC, '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic',
			  "-I$root/usr/include", '-fsyntax-only', "$tmp/h.c");
	push @lonely, "$h: $out" if $rc != 0;
}
ok(!@lonely, 'each installed header compiles on its own (-std=c11 -Wall -Wextra -pedantic)')
	or diag join "\n", @lonely;

open my $src, '>', "$tmp/prog.c" or die;
print $src <<'EOF';
#include <stdio.h>
#include <vpmu/backend.h>
#include <vpmu/vpmu.h>

#define CHECK(x) do { if ((x) != 0) { fprintf(stderr, "failed: %s\n", #x); return 1; } } while (0)

int main(void)
{
	struct vpmu_sim *sim;
	struct vpmu_backend be;
	struct vpmu_host *host;
	struct vpmu_vm *vm;
	struct vpmu_vcpu *vcpu;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	enum vpmu_fault f = VPMU_FAULT_NONE;
	uint64_t v = 0;

	CHECK(vpmu_sim_create(1, &sim));
	vpmu_sim_backend(sim, &be);
	CHECK(vpmu_host_create(&be, 1, &host));
	vpmu_sim_attach(sim, host);
	cfg.model = "p6";
	CHECK(vpmu_vm_create(host, &cfg, &vm));
	CHECK(vpmu_vcpu_create(vm, 0, &vcpu));
	CHECK(vpmu_reg_write(vcpu, VPMU_SPACE_MSR, 0x186, 0x4300C0, &f));   /* EVNTSEL0 */
	if (f != VPMU_FAULT_NONE) {
		fprintf(stderr, "write faulted: %s\n", vpmu_fault_name(f));
		return 1;
	}
	CHECK(vpmu_reg_read(vcpu, VPMU_SPACE_MSR, 0x186, &v, &f));
	printf("%s %#llx\n", f == VPMU_FAULT_NONE && v == 0x4300C0 ? "ok" : "wrong",
	       (unsigned long long)v);
	CHECK(vpmu_vm_destroy(vm));
	CHECK(vpmu_host_destroy(host));
	vpmu_sim_destroy(sim);
	return 0;
}
EOF
close $src;

my $want_out = "ok 0x4300c0\n";
my @compile = ($CC, '-std=c11', '-Wall', '-Wextra', '-Werror', @sanflags, @cflags,
	       '-c', "$tmp/prog.c", '-o', "$tmp/prog.o");
($rc, $out) = $have_pc ? run(@compile) : (1, 'pkg-config missing');
my $compiled = ok($rc == 0, 'a program compiles against the installed headers (pkg-config --cflags)');
$compiled or diag_output(\@compile, $out);

# The shared library: linked with --libs, run with LD_LIBRARY_PATH.
my @link = ($CC, @sanflags, '-o', "$tmp/prog", "$tmp/prog.o", @libs);
($rc, $out) = $compiled ? run(@link) : (1, 'not compiled');
my $linked = ok($rc == 0, 'it links against the installed libvpmu.so (pkg-config --libs)');
$linked or diag_output(\@link, $out);
if ($linked) {
	my ($r, $dyn) = run('readelf', '-d', "$tmp/prog");
	ok($dyn =~ /\(NEEDED\)\s+Shared library: \[\Q$SONAME\E\]/, "it needs $SONAME")
		or diag $dyn;
	local $ENV{LD_LIBRARY_PATH} = $lib;
	($rc, $out) = run("$tmp/prog");
	ok($rc == 0 && $out eq $want_out, 'it runs (LD_LIBRARY_PATH) and reads EVNTSEL0 back')
		or diag "exit status $rc, output:\n$out";
} else {
	ok(0, "it needs $SONAME # not linked");
	ok(0, 'it runs (LD_LIBRARY_PATH) and reads EVNTSEL0 back # not linked');
}

# The static library: every library named by --static --libs linked statically
# (libvpmu.a, its Libs.private and Requires.private), libc and the sanitizer
# runtimes dynamically.
my @slink = ($CC, @sanflags, '-o', "$tmp/prog-static", "$tmp/prog.o",
	     '-Wl,-Bstatic', @static_libs, '-Wl,-Bdynamic');
($rc, $out) = $compiled ? run(@slink) : (1, 'not compiled');
my $slinked = ok($rc == 0, 'it links against the installed libvpmu.a (pkg-config --static --libs)');
$slinked or diag_output(\@slink, $out);
if ($slinked) {
	my ($r, $dyn) = run('readelf', '-d', "$tmp/prog-static");
	ok($dyn !~ /libvpmu/, 'it needs no libvpmu.so') or diag $dyn;
	($rc, $out) = run("$tmp/prog-static");
	ok($rc == 0 && $out eq $want_out, 'it runs and reads EVNTSEL0 back')
		or diag "exit status $rc, output:\n$out";
} else {
	ok(0, 'it needs no libvpmu.so # not linked');
	ok(0, 'it runs and reads EVNTSEL0 back # not linked');
}

done_testing();
