/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V Image header and the guest's memory layout (riscv_image.h).
 * The header (Linux Documentation/arch/riscv/boot.rst; arch/riscv/include/
 * asm/image.h, struct riscv_image_header), little-endian:
 *   0 code0, 4 code1, 8 text_offset, 16 image_size, 24 flags, 32 version,
 *   36 res1, 40 res2, 48 magic "RISCV\0\0\0" (deprecated), 56 magic2 "RSC\x05",
 *   60 res3.
 * An EFI-stub Image (Debian's) keeps the same header with "MZ" in code0.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "riscv_image.h"

#define HDR_LEN   64u
#define MIB       (1ull << 20)
#define PAGE      4096ull

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -e;
}

int riscv_image_parse(const uint8_t *k, size_t size, struct riscv_image *out, char *err,
		      size_t errlen)
{
	if (!k || size < HDR_LEN)
		return fail(err, errlen, EINVAL, "too short for a RISC-V Image header (%zu bytes, "
			    "need %u)", size, HDR_LEN);
	if (memcmp(k + 56, "RSC\x05", 4) && memcmp(k + 48, "RISCV\0\0\0", 8))
		return fail(err, errlen, EINVAL, "not a RISC-V Image: no \"RSC\\x05\" magic at "
			    "offset 56 (a vmlinux ELF or a compressed Image? give the raw Image)");
	uint64_t off = le64(k + 8), isize = le64(k + 16);
	/* rv64 kernels are linked to run at a 2 MiB (PMD) boundary: boot.rst,
	 * "the kernel is expected to be placed at a PMD-aligned address". */
	if (off % (2 * MIB))
		return fail(err, errlen, EINVAL, "text_offset 0x%llx is not 2 MiB aligned",
			    (unsigned long long)off);
	/* Before header version 0.2 (boot.rst, "Image header version") the
	 * size may be 0: the file's size then, which lacks the .bss. */
	if (!isize)
		isize = size;
	if (isize < size)
		return fail(err, errlen, EINVAL, "image_size 0x%llx is smaller than the file "
			    "(%llu bytes)", (unsigned long long)isize, (unsigned long long)size);
	if (isize > (1ull << 40))
		return fail(err, errlen, EINVAL, "image_size 0x%llx is not plausible",
			    (unsigned long long)isize);
	*out = (struct riscv_image){ .text_offset = off ? off : 2 * MIB, .image_size = isize };
	return 0;
}

int riscv_layout_plan(uint64_t ram_size, const struct riscv_image *img, size_t ksize,
		      size_t initrd_size, struct riscv_layout *out, char *err, size_t errlen)
{
	(void)ksize;
	uint64_t kend = img->text_offset + img->image_size;
	/* The device tree at the top, 64 KiB aligned; below it the initrd. */
	uint64_t dtb_off = (ram_size & ~(uint64_t)(RISCV_DTB_MAX - 1));
	if (dtb_off < RISCV_DTB_MAX || dtb_off - RISCV_DTB_MAX < kend)
		return fail(err, errlen, ENOSPC, "the kernel needs %llu MiB of RAM and its device "
			    "tree more; --mem is %llu MiB", (unsigned long long)((kend + MIB - 1) / MIB),
			    (unsigned long long)(ram_size / MIB));
	dtb_off -= RISCV_DTB_MAX;
	uint64_t rd_off = dtb_off;
	if (initrd_size) {
		if (initrd_size > dtb_off - kend)
			return fail(err, errlen, ENOSPC, "the initrd (%llu KiB) does not fit in RAM "
				    "after the kernel (%llu KiB free): give more --mem",
				    (unsigned long long)(initrd_size >> 10),
				    (unsigned long long)((dtb_off - kend) >> 10));
		rd_off = (dtb_off - initrd_size) & ~(PAGE - 1);
		if (rd_off < kend)
			return fail(err, errlen, ENOSPC, "the initrd (%llu KiB) does not fit in RAM "
				    "page-aligned after the kernel (%llu KiB free): give more --mem",
				    (unsigned long long)(initrd_size >> 10),
				    (unsigned long long)((dtb_off - kend) >> 10));
	}
	*out = (struct riscv_layout){
		.kernel = RISCV_RAM_BASE + img->text_offset,
		.kernel_end = RISCV_RAM_BASE + kend,
		.initrd = RISCV_RAM_BASE + rd_off,
		.initrd_end = RISCV_RAM_BASE + rd_off + initrd_size,
		.dtb = RISCV_RAM_BASE + dtb_off,
	};
	return 0;
}
