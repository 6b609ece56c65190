/* SPDX-License-Identifier: MIT */
/*
 * The multiboot v1 header (Multiboot 0.6.96, section 3.1; guest_abi.h).  The
 * linker script puts .multiboot first, so the header is the flat image's first
 * 32 bytes: header_addr == load_addr.  Flag bit 16 (the a.out kludge) makes the
 * address fields valid, so neither vpmu-run nor QEMU needs to parse an ELF;
 * bit 1 asks for the memory fields of the info structure.
 */
#include <stdint.h>

#include "../../guest-tests/guest_abi.h"

#define MB_FLAG_MEMINFO (1u << 1)
#define MB_FLAG_AOUT    (1u << 16)
#define MB_FLAGS        (MB_FLAG_MEMINFO | MB_FLAG_AOUT)

extern char __load_start[], __load_end[], __bss_end[], _start[];

struct mb_header {
	uint32_t magic, flags, checksum;
	uint32_t header_addr, load_addr, load_end_addr, bss_end_addr, entry_addr;
};

__attribute__((section(".multiboot"), used, aligned(4)))
static const struct mb_header mb_header = {
	.magic = VPMU_MULTIBOOT_MAGIC,
	.flags = MB_FLAGS,
	.checksum = -(VPMU_MULTIBOOT_MAGIC + MB_FLAGS),
	.header_addr = (uint32_t)&mb_header,
	.load_addr = (uint32_t)__load_start,
	.load_end_addr = (uint32_t)__load_end,    /* end of .data */
	.bss_end_addr = (uint32_t)__bss_end,      /* the loader zeroes [load_end, bss_end) */
	.entry_addr = (uint32_t)_start,
};

/* For boot.S, which cannot include guest_abi.h. */
const uint32_t boot_exit_port = VPMU_PORT_EXIT;
