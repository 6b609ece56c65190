#!/bin/sh
# SPDX-License-Identifier: MIT
# check-image.sh IMAGE.bin IMAGE.elf: the multiboot v1 header of a flat guest
# image (guest_abi.h, Multiboot 0.6.96 section 3.1): within the first 8 KiB,
# 4-byte aligned, magic + flags + checksum == 0, flags bit 16 (a.out kludge),
# and header_addr/load_addr/load_end_addr/bss_end_addr/entry_addr consistent
# with the file and with the ELF's symbols.
set -eu
bin=$1 elf=$2
fail() { echo "check-image: $bin: $*" >&2; exit 1; }
word() { od -An -tu4 -j "$1" -N4 "$bin" | tr -d ' '; }
sym() { nm "$elf" | awk -v s="$1" '$3 == s { print $1 }'; }

size=$(wc -c <"$bin")
off=
o=0
while [ "$o" -le 8180 ] && [ "$o" -lt "$size" ]; do
	if [ "$(word "$o")" = 464367618 ]; then off=$o; break; fi   # 0x1BADB002
	o=$((o + 4))
done
[ -n "$off" ] || fail "no multiboot magic in the first 8 KiB"
flags=$(word $((off + 4))) sum=$(word $((off + 8)))
[ $(( (464367618 + flags + sum) & 0xFFFFFFFF )) -eq 0 ] || fail "bad checksum"
[ $((flags & 0x10000)) -ne 0 ] || fail "flags bit 16 (a.out kludge) clear"
header=$(word $((off + 12))) load=$(word $((off + 16))) load_end=$(word $((off + 20)))
bss_end=$(word $((off + 24))) entry=$(word $((off + 28)))
[ $((header - load)) -eq "$off" ] || fail "header_addr - load_addr != header offset $off"
[ $((load_end - load)) -eq "$size" ] || fail "load_end_addr - load_addr != file size $size"
[ "$bss_end" -ge "$load_end" ] || fail "bss_end_addr below load_end_addr"
[ "$entry" -ge "$load" ] && [ "$entry" -lt "$load_end" ] || fail "entry_addr outside the image"
[ "$entry" -eq $((0x$(sym _start))) ] || fail "entry_addr is not _start"
[ "$bss_end" -eq $((0x$(sym __bss_end))) ] || fail "bss_end_addr is not __bss_end"
