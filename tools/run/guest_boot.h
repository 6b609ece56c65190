/* SPDX-License-Identifier: MIT */
/* Loading a flat or multiboot (a.out kludge) x86 image and the 32-bit
 * protected-mode entry state of guest-tests/guest_abi.h. */
#ifndef VPMU_TOOLS_GUEST_BOOT_H
#define VPMU_TOOLS_GUEST_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define GUEST_FLAT_LOAD 0x100000u   /* where an image without a multiboot header goes */
#define GUEST_MBI_ADDR  0x9000u     /* the multiboot info structure */
#define GUEST_CMDLINE_ADDR 0x9800u  /* its command line (up to GUEST_CMDLINE_MAX bytes) */
#define GUEST_CMDLINE_MAX 0x800u

struct guest_image {
	uint32_t entry;
	uint32_t load_addr, load_end;   /* [load_addr, load_end) of guest memory used */
	int multiboot;                  /* 1: a multiboot header was found */
};

/* Copy the image `data` (`size` bytes) into guest memory `mem` (`mem_size` bytes,
 * guest-physical 0 upward) and write the multiboot info with `cmdline`.
 * 0, or -1 with a message in err (nothing is changed in mem that matters then). */
int guest_load(uint8_t *mem, size_t mem_size, const uint8_t *data, size_t size,
	       const char *cmdline, struct guest_image *img, char *err, size_t errlen);

/* Put vCPU `vcpu_fd` in 32-bit protected mode at the image's entry
 * (flat CS 0x08 / data 0x10, EAX = boot magic, EBX = multiboot info). */
int guest_enter_protected_mode(int vcpu_fd, const struct guest_image *img, char *err,
			       size_t errlen);

#endif
