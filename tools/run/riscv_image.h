/* SPDX-License-Identifier: MIT */
/*
 * A RISC-V Linux Image and where vpmu-run puts it, its initrd and its device
 * tree in guest RAM (Linux Documentation/arch/riscv/boot.rst, "RISC-V Linux
 * Kernel Image header" and "Kernel location").  Pure: no KVM.
 */
#ifndef VPMU_TOOLS_RUN_RISCV_IMAGE_H
#define VPMU_TOOLS_RUN_RISCV_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Guest RAM starts where QEMU's virt board and kvmtool put it. */
#define RISCV_RAM_BASE 0x80000000ull
/* The space kept for the device tree at the top of RAM. */
#define RISCV_DTB_MAX  0x10000u

struct riscv_image {
	uint64_t text_offset;   /* from the start of RAM (2 MiB on rv64) */
	uint64_t image_size;    /* what the kernel occupies, .bss included */
};
/* The header of the Image in k (size bytes): 0, or -EINVAL with err saying why
 * (too short, not an Image, an offset or size that is not plausible). */
int riscv_image_parse(const uint8_t *k, size_t size, struct riscv_image *out, char *err,
		      size_t errlen);

/* Where everything goes, as guest physical addresses. */
struct riscv_layout {
	uint64_t kernel;                    /* the entry: the Image's first byte */
	uint64_t kernel_end;                /* kernel + image_size */
	uint64_t initrd, initrd_end;        /* equal: no initrd */
	uint64_t dtb;                       /* RISCV_DTB_MAX bytes */
};
/* The layout in ram_size bytes of RAM from RISCV_RAM_BASE for an Image of
 * ksize bytes (img) and an initrd of initrd_size bytes (0: none): the kernel
 * at text_offset, the device tree at the top of RAM, the initrd page-aligned
 * just below it.  0, or -ENOSPC with err saying what does not fit. */
int riscv_layout_plan(uint64_t ram_size, const struct riscv_image *img, size_t ksize,
		      size_t initrd_size, struct riscv_layout *out, char *err, size_t errlen);

#endif
