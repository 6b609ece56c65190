/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V Image header and the guest's layout (tools/run/riscv_image.c):
 * the header of Linux Documentation/arch/riscv/boot.rst parsed, refused when
 * truncated or foreign, and the kernel, initrd and device tree placed in RAM
 * or refused when they do not fit.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "run/riscv_image.h"
#include "tap.h"

#define MIB (1ull << 20)

static uint8_t image[4096];

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* An Image header as Linux's arch/riscv/kernel/head.S writes one. */
static void make_image(uint64_t text_offset, uint64_t image_size)
{
	memset(image, 0, sizeof(image));
	image[0] = 'M', image[1] = 'Z';   /* an EFI stub's code0 */
	put_le64(image + 8, text_offset);
	put_le64(image + 16, image_size);
	image[32] = 2;                    /* version 0.2 */
	memcpy(image + 48, "RISCV\0\0\0", 8);
	memcpy(image + 56, "RSC\x05", 4);
}

static void test_parse(void)
{
	struct riscv_image img;
	char err[200] = "";
	make_image(2 * MIB, 20 * MIB);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == 0, "an Image parses");
	is_u64(img.text_offset, 2 * MIB, "text_offset 2 MiB");
	is_u64(img.image_size, 20 * MIB, "image_size");
	ok(riscv_image_parse(image, 63, &img, err, sizeof(err)) == -EINVAL && strstr(err, "too short"),
	   "a truncated header: %s", err);
	ok(riscv_image_parse(NULL, 0, &img, err, sizeof(err)) == -EINVAL, "no data: -EINVAL");
	memcpy(image + 56, "ELF!", 4);
	memset(image + 48, 0, 8);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "not a RISC-V Image"), "no magic: %s", err);
	make_image(2 * MIB, 20 * MIB);
	memset(image + 56, 0, 4);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == 0,
	   "the deprecated magic alone is enough");
	make_image(0x1000, 20 * MIB);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "aligned"), "an unaligned text_offset: %s", err);
	make_image(2 * MIB, 0);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == 0 &&
	   img.image_size == sizeof(image), "image_size 0 (before header 0.2): the file's size");
	make_image(2 * MIB, 100);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == -EINVAL &&
	   strstr(err, "smaller than the file"), "image_size below the file's: %s", err);
	make_image(2 * MIB, 1ull << 50);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == -EINVAL,
	   "an implausible image_size: %s", err);
	make_image(0, 20 * MIB);
	ok(riscv_image_parse(image, sizeof(image), &img, err, sizeof(err)) == 0 &&
	   img.text_offset == 2 * MIB, "text_offset 0: at 2 MiB anyway");
}

static void test_layout(void)
{
	struct riscv_image img = { .text_offset = 2 * MIB, .image_size = 20 * MIB };
	struct riscv_layout l;
	char err[200] = "";
	ok(riscv_layout_plan(256 * MIB, &img, 10 * MIB, 0x123456, &l, err, sizeof(err)) == 0,
	   "256 MiB: the layout");
	is_u64(l.kernel, 0x80200000ull, "the Image at RAM + 2 MiB");
	is_u64(l.kernel_end, 0x80200000ull + 20 * MIB, "its end: image_size after");
	is_u64(l.dtb, 0x80000000ull + 256 * MIB - RISCV_DTB_MAX, "the device tree at the top");
	ok(l.initrd % 4096 == 0 && l.initrd_end <= l.dtb && l.initrd_end - l.initrd == 0x123456 &&
	   l.initrd >= l.kernel_end, "the initrd page-aligned just below it, after the kernel");
	ok(riscv_layout_plan(256 * MIB, &img, 10 * MIB, 0, &l, err, sizeof(err)) == 0 &&
	   l.initrd == l.initrd_end, "no initrd: an empty range");
	ok(riscv_layout_plan(32 * MIB, &img, 10 * MIB, 20 * MIB, &l, err, sizeof(err)) == -ENOSPC &&
	   strstr(err, "initrd"), "an initrd too big for RAM: %s", err);
	ok(riscv_layout_plan(16 * MIB, &img, 10 * MIB, 0, &l, err, sizeof(err)) == -ENOSPC &&
	   strstr(err, "kernel needs"), "an Image too big for RAM: %s", err);
	ok(riscv_layout_plan(0, &img, 10 * MIB, 0, &l, err, sizeof(err)) == -ENOSPC,
	   "no RAM: -ENOSPC");
	uint64_t free_bytes = 64 * MIB - RISCV_DTB_MAX - 22 * MIB;
	ok(riscv_layout_plan(64 * MIB, &img, 10 * MIB, free_bytes, &l, err, sizeof(err)) == 0 &&
	   l.initrd == l.kernel_end, "an initrd that fills RAM to the byte fits");
	ok(riscv_layout_plan(64 * MIB, &img, 10 * MIB, free_bytes + 1, &l, err, sizeof(err)) ==
	   -ENOSPC, "one byte more does not");
}

int main(void)
{
	test_parse();
	test_layout();
	return tap_done();
}
