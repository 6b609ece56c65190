/* SPDX-License-Identifier: MIT */
/*
 * The Linux 32-bit boot protocol, as a VMM without firmware uses it (Linux
 * Documentation/arch/x86/boot.rst, "32-bit boot protocol"; zero-page.rst for
 * struct boot_params; arch/x86/include/uapi/asm/bootparam.h).  Offsets below
 * are those of the setup header in the bzImage file, which the zero page
 * repeats at the same offsets.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "boot_x86.h"
#include "linux_boot.h"

#define HDR_SETUP_SECTS     0x1F1
#define HDR_BOOT_FLAG       0x1FE   /* 0xAA55 */
#define HDR_JUMP            0x200   /* its second byte: the header's length past 0x202 */
#define HDR_MAGIC           0x202   /* "HdrS" */
#define HDR_VERSION         0x206
#define HDR_TYPE_OF_LOADER  0x210
#define HDR_LOADFLAGS       0x211
#define HDR_CODE32_START    0x214
#define HDR_RAMDISK_IMAGE   0x218
#define HDR_RAMDISK_SIZE    0x21C
#define HDR_CMD_LINE_PTR    0x228
#define HDR_INITRD_ADDR_MAX 0x22C
#define HDR_CMDLINE_SIZE    0x238
#define HDR_INIT_SIZE       0x260
#define ZP_ALT_MEM_K        0x1E0
#define ZP_E820_ENTRIES     0x1E8
#define ZP_E820_TABLE       0x2D0
#define ZP_SIZE             4096u

#define BOOT_FLAG        0xAA55u
#define HDRS_MAGIC       0x53726448u   /* "HdrS" */
#define LOADED_HIGH      0x01u          /* loadflags: the kernel goes at 1 MiB */
#define LOADER_UNDEFINED 0xFFu          /* type_of_loader: a loader with no assigned id */
#define KERNEL_ADDR      0x100000u
#define E820_RAM         1u
#define E820_RESERVED    2u


bool linux_is_bzimage(const uint8_t *data, size_t size)
{
	return size >= HDR_MAGIC + 4 && boot_rd16(data + HDR_BOOT_FLAG) == BOOT_FLAG &&
	       boot_rd32(data + HDR_MAGIC) == HDRS_MAGIC;
}

static void e820_add(uint8_t *zp, uint64_t addr, uint64_t size, uint32_t type)
{
	uint8_t n = zp[ZP_E820_ENTRIES];
	uint8_t *e = zp + ZP_E820_TABLE + 20u * n;
	boot_wr64(e, addr);
	boot_wr64(e + 8, size);
	boot_wr32(e + 16, type);
	zp[ZP_E820_ENTRIES] = (uint8_t)(n + 1);
}

/* The protocol's limits, checked before anything is written. */
struct linux_plan {
	size_t pm_off, pm_size, hdr_end, cmdline_len;
	uint32_t initrd_max;
};

static int linux_plan(size_t mem_size, const uint8_t *k, size_t ksize, size_t isize,
		      const char *cmdline, struct linux_image *img, struct linux_plan *pl,
		      char *err, size_t errlen)
{
	if (!linux_is_bzimage(k, ksize)) {
		snprintf(err, errlen, "not a Linux bzImage (no boot_flag 0xAA55 and \"HdrS\" setup header)");
		return -1;
	}
	/* linux_is_bzimage() needs the file to reach "HdrS" only; the version
	 * after it is the first field read here. */
	if (ksize < HDR_VERSION + 2) {
		snprintf(err, errlen, "the bzImage is truncated: it ends inside the setup header "
			 "(%zu bytes; the boot protocol version is at 0x%x)", ksize, HDR_VERSION);
		return -1;
	}
	img->protocol = boot_rd16(k + HDR_VERSION);
	pl->hdr_end = HDR_MAGIC + (size_t)k[HDR_JUMP + 1];
	/* 2.02: cmd_line_ptr; 2.10: init_size (Debian's 6.1 kernels speak 2.15). */
	if (img->protocol < 0x020a) {
		snprintf(err, errlen, "a bzImage of boot protocol %u.%02u: vpmu-run needs 2.10 or later",
			 img->protocol >> 8, img->protocol & 0xFF);
		return -1;
	}
	if (pl->hdr_end < HDR_INIT_SIZE + 4 || pl->hdr_end > ksize || pl->hdr_end > ZP_E820_TABLE) {
		snprintf(err, errlen, "the bzImage's setup header ends at 0x%zx, outside [0x%x, 0x%x] or "
			 "past the %zu-byte file", pl->hdr_end, HDR_INIT_SIZE + 4, ZP_E820_TABLE, ksize);
		return -1;
	}
	if (!(k[HDR_LOADFLAGS] & LOADED_HIGH)) {
		snprintf(err, errlen, "a zImage (loadflags without LOADED_HIGH): only bzImages are loaded");
		return -1;
	}
	unsigned sects = k[HDR_SETUP_SECTS] ? k[HDR_SETUP_SECTS] : 4;
	pl->pm_off = (size_t)(sects + 1) * 512;
	if (pl->pm_off >= ksize) {
		snprintf(err, errlen, "the bzImage is truncated: %u setup sectors and no kernel after "
			 "them (%zu bytes)", sects, ksize);
		return -1;
	}
	pl->pm_size = ksize - pl->pm_off;
	uint64_t need = boot_rd32(k + HDR_INIT_SIZE);
	if (need < pl->pm_size)
		need = pl->pm_size;
	img->kernel_addr = KERNEL_ADDR;
	img->entry = boot_rd32(k + HDR_CODE32_START);
	if ((uint64_t)KERNEL_ADDR + need > mem_size) {
		snprintf(err, errlen, "the kernel needs %llu MiB of guest memory (1 MiB and its "
			 "init_size of %llu KiB); guest memory has %zu MiB: raise --mem",
			 (unsigned long long)((KERNEL_ADDR + need + (1u << 20) - 1) >> 20),
			 (unsigned long long)(need >> 10), mem_size >> 20);
		return -1;
	}
	img->kernel_end = (uint32_t)(KERNEL_ADDR + need);
	if (img->entry < KERNEL_ADDR || img->entry >= KERNEL_ADDR + pl->pm_size) {
		snprintf(err, errlen, "code32_start 0x%x is outside the loaded kernel [0x%x, 0x%llx)",
			 img->entry, KERNEL_ADDR, (unsigned long long)KERNEL_ADDR + pl->pm_size);
		return -1;
	}
	uint32_t cmdline_size = boot_rd32(k + HDR_CMDLINE_SIZE);
	pl->cmdline_len = strlen(cmdline);
	if (pl->cmdline_len > cmdline_size || pl->cmdline_len >= LINUX_EBDA - LINUX_CMDLINE_ADDR) {
		snprintf(err, errlen, "command line too long (%zu bytes; this kernel takes %u)",
			 pl->cmdline_len, cmdline_size);
		return -1;
	}
	pl->initrd_max = boot_rd32(k + HDR_INITRD_ADDR_MAX);
	img->initrd_addr = img->initrd_size = 0;
	if (isize) {
		/* At the top of RAM, page aligned, below initrd_addr_max, as boot.rst
		 * recommends ("as high as possible"). */
		uint64_t top = (uint64_t)pl->initrd_max + 1;
		if (top > mem_size)
			top = mem_size;
		uint64_t at = top >= isize ? ((top - isize) & ~0xFFFull) : 0;
		if (isize > UINT32_MAX || at < img->kernel_end) {
			snprintf(err, errlen, "the initrd (%zu bytes) does not fit between the kernel's end "
				 "(0x%x) and 0x%llx (guest memory, initrd_addr_max): raise --mem",
				 isize, img->kernel_end, (unsigned long long)top);
			return -1;
		}
		img->initrd_addr = (uint32_t)at;
		img->initrd_size = (uint32_t)isize;
	}
	return 0;
}

int linux_load(uint8_t *mem, size_t mem_size, const uint8_t *kernel, size_t ksize,
	       const uint8_t *initrd, size_t isize, const char *cmdline,
	       struct linux_image *img, char *err, size_t errlen)
{
	struct linux_plan pl;
	memset(img, 0, sizeof(*img));
	if (mem_size < (2u << 20)) {
		snprintf(err, errlen, "guest memory of %zu bytes: a Linux guest needs more", mem_size);
		return -1;
	}
	if (linux_plan(mem_size, kernel, ksize, initrd ? isize : 0, cmdline, img, &pl, err,
		       errlen) < 0)
		return -1;
	memcpy(mem + KERNEL_ADDR, kernel + pl.pm_off, pl.pm_size);
	if (img->initrd_size)
		memcpy(mem + img->initrd_addr, initrd, img->initrd_size);
	memcpy(mem + LINUX_CMDLINE_ADDR, cmdline, pl.cmdline_len + 1);

	uint8_t *zp = mem + LINUX_ZERO_PAGE_ADDR;
	memset(zp, 0, ZP_SIZE);
	memcpy(zp + HDR_SETUP_SECTS, kernel + HDR_SETUP_SECTS, pl.hdr_end - HDR_SETUP_SECTS);
	zp[HDR_TYPE_OF_LOADER] = LOADER_UNDEFINED;
	boot_wr32(zp + HDR_CMD_LINE_PTR, LINUX_CMDLINE_ADDR);
	boot_wr32(zp + HDR_RAMDISK_IMAGE, img->initrd_addr);
	boot_wr32(zp + HDR_RAMDISK_SIZE, img->initrd_size);
	boot_wr32(zp + ZP_ALT_MEM_K, (uint32_t)((mem_size - (1u << 20)) >> 10));
	/* A PC's map: RAM below the EBDA, the EBDA and BIOS area reserved, RAM above 1 MiB. */
	e820_add(zp, 0, LINUX_EBDA, E820_RAM);
	e820_add(zp, LINUX_EBDA, 0x100000 - LINUX_EBDA, E820_RESERVED);
	e820_add(zp, 0x100000, mem_size - 0x100000, E820_RAM);

	/* The entry's GDT: null, unused, flat 4 GiB code (0x10) and data (0x18). */
	static const uint64_t gdt[4] = { 0, 0, 0x00CF9A000000FFFFull, 0x00CF92000000FFFFull };
	memcpy(mem + LINUX_GDT_ADDR, gdt, sizeof(gdt));
	return 0;
}

int linux_enter(int vcpu_fd, const struct linux_image *img, char *err, size_t errlen)
{
	struct kvm_regs r;
	memset(&r, 0, sizeof(r));
	r.rip = img->entry;
	r.rflags = 0x2;                 /* interrupts off */
	r.rsi = LINUX_ZERO_PAGE_ADDR;   /* EBX, EBP, EDI stay 0 */
	return boot_enter_protected_mode(vcpu_fd, LINUX_BOOT_CS, LINUX_BOOT_DS, LINUX_GDT_ADDR,
					 4 * 8 - 1, &r, err, errlen);
}
