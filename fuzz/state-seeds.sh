#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz/state-seeds.sh DIR: seeds for fuzz_state (tests/fuzz.t, fuzz/fuzz.mk's
# run-state), one input per mode of fuzz/fuzz_state.c: its bytes are the
# model's index and options (fuzz/fuzz_world.h), the mode, the source's guest
# operations, then the patches or the raw blob.  They start the fuzzer on a
# blob that restores, so that its mutations reach the payload's parser and
# the apply rather than stopping at the magic and the checksum.
set -e
dir=${1:?usage: fuzz/state-seeds.sh DIR}
mkdir -p "$dir"
# p6 (model 8): EVNTSEL0 (its third register) = 0x4300C0, 1000 instructions
# ticked; the blob restored as saved.
ops='\002\001\002\300\000\103\000\000\000\000\000\000\001\350\003'
printf "\010\000\000$ops\000" >"$dir/p6-intact"
# The same with the first register's value patched and the checksum resealed.
printf "\010\000\004$ops\001\160\000\377" >"$dir/p6-patched-resealed"
# A p4 (model 9) blob cut 10 bytes short.
printf '\011\000\002\000\000\366' >"$dir/p4-cut"
# Raw (model 18, skylake): a header's first 16 bytes and nothing more.
printf '\022\000\001\000VPMU\001\000\001\000\150\000\000\000\000\000\000\000' >"$dir/skylake-raw"
