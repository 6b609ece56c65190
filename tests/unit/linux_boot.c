/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's Linux loader (tools/run/linux_boot.c) against the 32-bit boot
 * protocol (Linux Documentation/arch/x86/boot.rst, zero-page.rst), on a
 * hand-made bzImage whose setup header has the values Debian's 6.1 kernels
 * carry (protocol 2.15, 39 setup sectors, code32_start 0x100000, cmdline_size
 * 2047, initrd_addr_max 0x7fffffff): where the kernel, the initrd and the
 * command line land, the zero page's fields and e820 map, the entry GDT, and a
 * clear refusal, changing nothing, for each broken or unfitting image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/linux_boot.h"
#include "tap.h"

#define MIB (1u << 20)
#define SETUP_SECTS 39u
#define PM_SIZE 5000u

static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }

/* A bzImage: setup sectors with the header, then PM_SIZE bytes of "kernel". */
static size_t make_bzimage(uint8_t *k, uint32_t init_size)
{
	size_t size = (SETUP_SECTS + 1) * 512 + PM_SIZE;
	memset(k, 0, size);
	k[0x1F1] = SETUP_SECTS;
	wr16(k + 0x1FE, 0xAA55);
	k[0x200] = 0xEB;
	k[0x201] = 0x6A;                 /* jump over the header: it ends at 0x26C */
	memcpy(k + 0x202, "HdrS", 4);
	wr16(k + 0x206, 0x020F);
	k[0x211] = 0x01;                 /* LOADED_HIGH */
	wr32(k + 0x214, 0x100000);
	wr32(k + 0x22C, 0x7FFFFFFF);
	wr32(k + 0x238, 2047);
	wr32(k + 0x260, init_size);
	for (size_t i = 0; i < PM_SIZE; i++)
		k[(SETUP_SECTS + 1) * 512 + i] = (uint8_t)(i * 13 + 1);
	return size;
}

static uint8_t *mem, *pristine;
#define MEM_SIZE (64 * MIB)

static int load(const uint8_t *k, size_t ks, const uint8_t *rd, size_t rs, const char *cl,
		struct linux_image *img, char *err)
{
	memset(mem, 0xA5, MEM_SIZE);
	return linux_load(mem, MEM_SIZE, k, ks, rd, rs, cl, img, err, 256);
}

/* A refusal: -1, a message naming the problem, guest memory untouched. */
static void refused(const uint8_t *k, size_t ks, size_t rs, const char *cl, const char *want,
		    const char *what)
{
	struct linux_image img;
	char err[256] = "";
	static uint8_t rd[4096];
	int r = load(k, ks, rs ? rd : NULL, rs, cl, &img, err);
	ok(r == -1 && strstr(err, want) && memcmp(mem, pristine, MEM_SIZE) == 0,
	   "%s: expected -1 with \"%s\" and guest memory untouched, seen %d \"%s\"", what, want, r, err);
}

int main(void)
{
	static uint8_t k[(SETUP_SECTS + 1) * 512 + PM_SIZE];
	static uint8_t rd[3 * 4096 + 5];
	mem = malloc(MEM_SIZE);
	pristine = malloc(MEM_SIZE);
	if (!mem || !pristine)
		return 1;
	memset(pristine, 0xA5, MEM_SIZE);
	for (size_t i = 0; i < sizeof(rd); i++)
		rd[i] = (uint8_t)(i * 7 + 3);

	size_t ks = make_bzimage(k, 16 * MIB);
	ok(linux_is_bzimage(k, ks), "the hand-made image is a bzImage (0xAA55, \"HdrS\")");
	struct linux_image img;
	char err[256] = "";
	const char *cl = "console=ttyS0 quiet nokaslr reboot=t";
	int r = load(k, ks, rd, sizeof(rd), cl, &img, err);
	ok(r == 0, "a protocol-2.15 bzImage with an initrd loads (%s)", r ? err : "ok");
	uint8_t *zp = mem + LINUX_ZERO_PAGE_ADDR;

	/* The kernel, the initrd, the command line. */
	ok(memcmp(mem + 0x100000, k + (SETUP_SECTS + 1) * 512, PM_SIZE) == 0,
	   "the protected-mode kernel (file offset (39 + 1) * 512) lies at 1 MiB");
	is_u64(img.entry, 0x100000, "entry: code32_start");
	is_u64(img.kernel_end, 0x100000 + 16 * MIB, "the kernel may use init_size (16 MiB) from 1 MiB");
	is_u64(img.initrd_addr, (MEM_SIZE - sizeof(rd)) & ~0xFFFu,
	       "the initrd lies page-aligned at the top of guest memory");
	ok(memcmp(mem + img.initrd_addr, rd, sizeof(rd)) == 0, "the initrd's bytes are there");
	ok(strcmp((char *)mem + LINUX_CMDLINE_ADDR, cl) == 0, "the command line is at 0x%x",
	   LINUX_CMDLINE_ADDR);

	/* The zero page: the setup header copied, the loader's fields filled. */
	ok(rd16(zp + 0x1FE) == 0xAA55 && memcmp(zp + 0x202, "HdrS", 4) == 0 &&
	   rd16(zp + 0x206) == 0x020F && zp[0x1F1] == SETUP_SECTS && rd32(zp + 0x260) == 16 * MIB,
	   "the zero page carries the setup header (boot_flag, HdrS, version, setup_sects, init_size)");
	is_u64(zp[0x210], 0xFF, "type_of_loader 0xFF (a loader without an assigned id)");
	is_u64(rd32(zp + 0x228), LINUX_CMDLINE_ADDR, "cmd_line_ptr");
	is_u64(rd32(zp + 0x218), img.initrd_addr, "ramdisk_image");
	is_u64(rd32(zp + 0x21C), sizeof(rd), "ramdisk_size");
	is_u64(zp[0x1E8], 3, "three e820 entries");
	const uint8_t *e = zp + 0x2D0;
	ok(rd64(e) == 0 && rd64(e + 8) == LINUX_EBDA && rd32(e + 16) == 1,
	   "e820 0: RAM [0, 0x9FC00)");
	ok(rd64(e + 20) == LINUX_EBDA && rd64(e + 28) == 0x100000 - LINUX_EBDA && rd32(e + 36) == 2,
	   "e820 1: reserved [0x9FC00, 1 MiB)");
	ok(rd64(e + 40) == 0x100000 && rd64(e + 48) == MEM_SIZE - 0x100000 && rd32(e + 56) == 1,
	   "e820 2: RAM from 1 MiB to the end of guest memory");
	ok(rd64(mem + LINUX_GDT_ADDR + 0x10) == 0x00CF9A000000FFFFull &&
	   rd64(mem + LINUX_GDT_ADDR + 0x18) == 0x00CF92000000FFFFull,
	   "the entry GDT has flat code at 0x10 and flat data at 0x18");

	/* Without an initrd. */
	r = load(k, ks, NULL, 0, "", &img, err);
	ok(r == 0 && rd32(zp + 0x218) == 0 && rd32(zp + 0x21C) == 0,
	   "without an initrd, ramdisk_image and ramdisk_size are 0");

	/* Refusals. */
	static uint8_t bad[sizeof(k)];
	memcpy(bad, k, ks);
	wr16(bad + 0x1FE, 0);
	refused(bad, ks, 0, "", "not a Linux bzImage", "no boot_flag");
	memcpy(bad, k, ks);
	wr16(bad + 0x206, 0x0209);
	refused(bad, ks, 0, "", "boot protocol 2.09: vpmu-run needs 2.10 or later", "protocol 2.09");
	memcpy(bad, k, ks);
	bad[0x211] = 0;
	refused(bad, ks, 0, "", "a zImage", "loadflags without LOADED_HIGH");
	refused(k, (SETUP_SECTS + 1) * 512, 0, "", "truncated: 39 setup sectors and no kernel",
		"setup sectors only");
	memcpy(bad, k, ks);
	wr32(bad + 0x260, 80 * MIB);
	refused(bad, ks, 0, "", "the kernel needs 81 MiB of guest memory (1 MiB and its init_size of 81920 KiB)", "init_size beyond guest memory");
	memcpy(bad, k, ks);
	wr32(bad + 0x214, 0x200000);
	refused(bad, ks, 0, "", "code32_start 0x200000 is outside the loaded kernel", "entry outside the kernel");
	memcpy(bad, k, ks);
	wr32(bad + 0x238, 10);
	refused(bad, ks, 0, "console=ttyS0 quiet", "command line too long (19 bytes; this kernel takes 10)",
		"command line over cmdline_size");
	memcpy(bad, k, ks);
	bad[0x201] = 0x10;
	refused(bad, ks, 0, "", "setup header ends at 0x212", "a setup header too short for init_size");
	memcpy(bad, k, ks);
	wr32(bad + 0x22C, 16 * MIB + 0x100000 + 100);
	refused(bad, ks, 4096, "", "the initrd (4096 bytes) does not fit", "initrd_addr_max below the kernel's end");
	refused(k, 100, 0, "", "not a Linux bzImage", "a 100-byte file");
	/* A file that ends inside the header's version field (0x206-0x207):
	 * each size in a buffer of exactly that size, so that ASan sees a read
	 * past it. */
	for (size_t sz = 0x206; sz <= 0x208; sz++) {
		uint8_t *cut = malloc(sz);
		if (!cut)
			return 1;
		memcpy(cut, k, sz);
		char what[48];
		snprintf(what, sizeof(what), "a %zu-byte file with boot_flag and HdrS", sz);
		refused(cut, sz, 0, "", sz < 0x208 ? "ends inside the setup header" :
			"setup header ends at 0x26c", what);
		free(cut);
	}

	free(mem);
	free(pristine);
	return tap_done();
}
