/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vpmu-run's image loader (tools/guest_boot.c), which reads
 * whatever file a user passes: flat images, multiboot headers with the a.out
 * kludge, ELF32 and ELF64 files, truncated and lying headers.  Invariants
 * (abort()):
 *   - guest_load returns 0 or -1; -1 comes with a message;
 *   - after 0: the image lies in guest memory above the multiboot information
 *     and the command line, its entry lies inside it, and the multiboot
 *     information and the command line are what the guest is promised
 *     (docs/guest-abi.md).
 * ASan/UBSan catch reads past the file and writes past guest memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_boot.h"

#define MEM_SIZE (4u << 20)
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!mem && !(mem = malloc(MEM_SIZE)))
		abort();
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
