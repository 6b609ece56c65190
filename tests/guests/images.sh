# SPDX-License-Identifier: MIT
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
# A Linux bzImage of SIZE bytes (Linux Documentation/arch/x86/boot.rst): the
# setup header Debian's 6.1 kernels carry (protocol 2.15, jump to 0x26C,
# LOADED_HIGH, code32_start 0x100000, initrd_addr_max 0x7FFFFFFF,
# cmdline_size 2047) with SECTS setup sectors and INIT_SIZE, then "kernel"
# bytes; cut at SIZE, so that a small SIZE ends inside the header.  FIRST
# sets byte 0 (tools' fuzz_image gives an odd one an initrd).
bzimage() { # SIZE [SECTS [INIT_SIZE [FIRST]]]
	perl -e '
	my ($size, $sects, $init, $first) = @ARGV;
	$sects //= 1;
	$init = defined $init ? oct($init) : 0x400000;
	$first //= 0;
	my $len = ($sects + 1) * 512 + 256;
	$len = $size if $size > $len;
	my $k = join("", map { chr(($_ * 13 + 1) & 0xFF) } 0 .. $len - 1);
	substr($k, 0, 0x270) = "\0" x 0x270;
	substr($k, 0, 1) = chr($first);
	substr($k, 0x1F1, 1) = chr($sects);
	substr($k, 0x1FE, 2) = pack("v", 0xAA55);
	substr($k, 0x200, 8) = "\xEB\x6AHdrS" . pack("v", 0x020F);
	substr($k, 0x211, 1) = "\x01";
	substr($k, 0x214, 4) = pack("V", 0x100000);
	substr($k, 0x22C, 4) = pack("V", 0x7FFFFFFF);
	substr($k, 0x238, 4) = pack("V", 2047);
	substr($k, 0x260, 4) = pack("V", $init);
	print substr($k, 0, $size);' "$@"
}
