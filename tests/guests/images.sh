# Hand-made guest images for the vpmu-run tests (tests/vpmu-run-cli.t,
# tests/guests.t), sourced by them; docs/guest-abi.md says what vpmu-run loads.
# A multiboot header: magic, flags, checksum, then the a.out kludge fields.
mbheader() { # FLAGS HEADER LOAD LOAD_END BSS_END ENTRY
	perl -e 'my ($f,@a)=map { oct } @ARGV; print pack("V*", 0x1BADB002, $f, (-(0x1BADB002+$f)) & 0xffffffff, @a)' "$@"
}
# An ELF multiboot image (System V ABI; docs/guest-abi.md): ELF header, one
# program header, a multiboot header without flag bit 16, then CODE (hex).
# CLASS 1 = ELF32, 2 = ELF64 (refused); PHOFF/FILESZ override the program header.
elfmb() { # CLASS ENTRY-OFFSET PHOFF FILESZ CODE
	perl -e '
	my ($class, $eoff, $phoff, $filesz, $code) = @ARGV;
	$code = pack("H*", $code);
	my $mb = pack("V3", 0x1BADB002, 0, (-0x1BADB002) & 0xffffffff);
	my $size = 52 + 32 + 12 + length($code);
	$filesz = $size if $filesz eq "-";
	$phoff = 52 if $phoff eq "-";
	my $eh = "\x7fELF" . pack("C4", $class, 1, 1, 0) . ("\0" x 8)
		. pack("v2V5v6", 2, 3, 1, 0x100000 + $eoff, $phoff, 0, 0, 52, 32, 1, 0, 0, 0);
	my $ph = pack("V8", 1, 0, 0x100000, 0x100000, $filesz, $filesz + 0x1000, 7, 0x1000);
	print $eh, $ph, $mb, $code;' "$@"
}
