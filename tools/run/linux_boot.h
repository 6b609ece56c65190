/* SPDX-License-Identifier: MIT */
/*
 * Loading a Linux bzImage for its 32-bit boot protocol (Linux
 * Documentation/arch/x86/boot.rst, "32-bit boot protocol", and zero-page.rst):
 * the protected-mode kernel at its code32_start, an initrd at the top of RAM,
 * the command line, and the zero page (struct boot_params) with the setup
 * header and an e820 map; then the boot vCPU's entry state.
 */
#ifndef VPMU_TOOLS_LINUX_BOOT_H
#define VPMU_TOOLS_LINUX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Guest-physical layout below 1 MiB (the e820 map gives the guest RAM below
 * LINUX_EBDA and above 1 MiB; the rest is reserved, as on a PC). */
#define LINUX_GDT_ADDR       0x6000u   /* the entry's GDT: selectors 0x10 and 0x18 */
#define LINUX_ZERO_PAGE_ADDR 0x7000u   /* struct boot_params */
#define LINUX_CMDLINE_ADDR   0x20000u  /* the command line, cmdline_size + 1 bytes at most */
#define LINUX_EBDA           0x9FC00u  /* reserved from here to 1 MiB (MP table, BIOS area) */
#define LINUX_BOOT_CS 0x10u
#define LINUX_BOOT_DS 0x18u

struct linux_image {
	uint32_t entry;                  /* code32_start */
	uint32_t kernel_addr, kernel_end;/* where the protected-mode kernel lies, and the end
	                                    of what it may use (init_size) */
	uint32_t initrd_addr, initrd_size;
	uint16_t protocol;               /* the boot protocol version, e.g. 0x020f */
};

/* Whether data starts like a bzImage (boot_flag 0xAA55 and "HdrS"). */
bool linux_is_bzimage(const uint8_t *data, size_t size);

/* Load kernel (a bzImage), the initrd (NULL/0: none) and cmdline into guest
 * memory mem (mem_size bytes from guest-physical 0) and write the zero page and
 * the entry GDT.  0, or -1 with a message in err. */
int linux_load(uint8_t *mem, size_t mem_size, const uint8_t *kernel, size_t ksize,
	       const uint8_t *initrd, size_t isize, const char *cmdline,
	       struct linux_image *img, char *err, size_t errlen);

/* The boot vCPU at the 32-bit entry: protected mode, paging off, flat CS 0x10
 * and DS/ES/SS 0x18 from the GDT at LINUX_GDT_ADDR, interrupts off, ESI = the
 * zero page, EBX = EBP = EDI = 0. */
int linux_enter(int vcpu_fd, const struct linux_image *img, char *err, size_t errlen);

#endif
