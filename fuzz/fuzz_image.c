/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vpmu-run's image loaders, which read whatever file a user
 * passes: tools/run/guest_boot.c (flat images, multiboot headers with the a.out
 * kludge, ELF32 and ELF64 files, truncated and lying headers) and
 * tools/run/linux_boot.c (bzImage setup headers, with the input as its own initrd
 * when its first byte is odd).  Invariants (abort()):
 *   - each loader returns 0 or -1; -1 comes with a message;
 *   - after guest_load's 0: the image lies in guest memory above the multiboot
 *     information and the command line, its entry lies inside it, and the
 *     multiboot information and the command line are what the guest is
 *     promised (docs/guest-abi.md);
 *   - after linux_load's 0: the entry lies in the loaded kernel, the kernel's
 *     memory and the initrd lie in guest memory without overlapping, and the
 *     zero page points at the command line and the initrd.
 * ASan/UBSan catch reads past the file and writes past guest memory.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/guest_boot.h"
#include "run/linux_boot.h"

#define MEM_SIZE (32u << 20)
#define CMDLINE "model=p6 vcpus=1"

static uint8_t *mem;

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_image: invariant broken: %s\n", what);
	abort();
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void fuzz_linux(const uint8_t *data, size_t size)
{
	struct linux_image img;
	char err[256] = "";
	bool rd = size && (data[0] & 1);
	int r = linux_load(mem, MEM_SIZE, data, size, rd ? data : NULL, rd ? size : 0, CMDLINE,
			   &img, err, sizeof(err));
	if (r != 0 && r != -1)
		fail("linux_load returned neither 0 nor -1");
	if (r < 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			fail("a Linux refusal without a message");
		return;
	}
	if (img.entry < img.kernel_addr || img.entry >= img.kernel_end || img.kernel_end > MEM_SIZE)
		fail("the Linux entry or kernel lies outside the kernel's memory");
	if (img.initrd_size && ((uint64_t)img.initrd_addr + img.initrd_size > MEM_SIZE ||
				img.initrd_addr < img.kernel_end || (img.initrd_addr & 0xFFF)))
		fail("the initrd overlaps the kernel, leaves guest memory or is not page aligned");
	const uint8_t *zp = mem + LINUX_ZERO_PAGE_ADDR;
	if (rd32(zp + 0x228) != LINUX_CMDLINE_ADDR || rd32(zp + 0x218) != img.initrd_addr ||
	    rd32(zp + 0x21C) != img.initrd_size ||
	    strcmp((const char *)mem + LINUX_CMDLINE_ADDR, CMDLINE) != 0)
		fail("the zero page does not point at the command line and the initrd");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!mem && !(mem = malloc(MEM_SIZE)))
		abort();
	fuzz_linux(data, size);
	struct guest_image img;
	char err[256] = "";
	int r = guest_load(mem, MEM_SIZE, data, size, CMDLINE, &img, err, sizeof(err));
	if (r != 0 && r != -1)
		fail("guest_load returned neither 0 nor -1");
	if (r < 0) {
		if (!err[0] || !memchr(err, '\0', sizeof(err)))
			fail("a refusal without a message");
		return 0;
	}
	if (img.load_addr < GUEST_CMDLINE_ADDR + GUEST_CMDLINE_MAX || img.load_end > MEM_SIZE ||
	    img.load_end <= img.load_addr)
		fail("the image lies outside guest memory or over the multiboot information");
	if (img.entry < img.load_addr || img.entry >= img.load_end)
		fail("the entry lies outside the image");
	if (rd32(mem + GUEST_MBI_ADDR + 16) != GUEST_CMDLINE_ADDR ||
	    strcmp((const char *)mem + GUEST_CMDLINE_ADDR, CMDLINE) != 0)
		fail("the multiboot information or the command line is not what the guest is promised");
	return 0;
}
