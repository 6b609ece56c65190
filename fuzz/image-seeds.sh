#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz/image-seeds.sh DIR: seeds for fuzz_image (tests/fuzz.t, fuzz/fuzz.mk's
# run-image), one image of each kind vpmu-run loads, made by the helpers of
# tests/guests/images.sh: ELF32 and ELF64 multiboot, the a.out kludge, a flat
# image, and small bzImages, so that the fuzzer starts inside the Linux boot
# protocol's setup-header parser (tools/run/linux_boot.c) rather than having to
# find "HdrS" at 0x202 by itself.
set -e
dir=${1:?usage: fuzz/image-seeds.sh DIR}
mkdir -p "$dir"
. tests/guests/images.sh
elfmb 1 96 - - b003e6f4f4 >"$dir/elf32"
elfmb 2 96 - - b003e6f4f4 >"$dir/elf64"
mbheader 0x10000 0x100000 0x100000 0 0 0x100000 >"$dir/aout"
printf '\364' >"$dir/flat"
# A bzImage that loads (one setup sector, 256 kernel bytes), the same with an
# odd first byte (fuzz_image then loads the input as its own initrd too), one
# whose setup_sects is 0 (boot.rst: read as 4), and one cut inside the header.
bzimage 1280 >"$dir/bzimage"
bzimage 1280 1 0x400000 1 >"$dir/bzimage-initrd"
bzimage 2816 0 >"$dir/bzimage-sects0"
bzimage 519 >"$dir/bzimage-cut"
