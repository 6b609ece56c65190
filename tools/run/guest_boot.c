/* SPDX-License-Identifier: MIT */
/*
 * Guest image loading, as QEMU's -kernel loads a multiboot image (Multiboot
 * Specification 0.6.96, section 3.1): the header lies completely within the
 * first 8192 bytes, 4-byte aligned; with flag bit 16 its address fields say
 * where the image goes (the "a.out kludge"), otherwise the image must be an
 * ELF32 file whose PT_LOAD segments are loaded at their physical addresses
 * (System V ABI, "Program Loading"; QEMU refuses an ELF64 multiboot image as
 * well).  The machine state section 3.2 defines at entry: protected mode, flat
 * segments, paging off, EAX = 0x2BADB002, EBX = the multiboot information
 * structure.  An image without a header is flat, loaded at GUEST_FLAT_LOAD.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../../guest-tests/guest_abi.h"
#include "boot_x86.h"
#include "guest_boot.h"

#define MB_SEARCH 8192u
#define MB_HEADER_MIN 12u       /* magic, flags, checksum */
#define MB_HEADER_ADDR 32u      /* ... and the five address fields (flag bit 16) */
#define MB_FLAG_AOUT_KLUDGE (1u << 16)
#define MBI_FLAG_MEM (1u << 0)
#define MBI_FLAG_CMDLINE (1u << 2)

/* ELF32 (System V ABI; <elf.h> names) */
#define ELF_EHDR_SIZE 52u
#define ELF_PHDR_SIZE 32u
#define ELF_CLASS32 1
#define ELF_CLASS64 2
#define ELF_DATA_LSB 1
#define ELF_EM_386 3
#define ELF_PT_LOAD 1


/* Offset of the multiboot header (magic and a checksum that matches) in the
 * first 8192 bytes, or -1.  Its end is checked by the caller, which knows how
 * long the header must be. */
static long find_header(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off + MB_HEADER_MIN <= size && off + MB_HEADER_MIN <= MB_SEARCH;
	     off += 4) {
		uint32_t magic = boot_rd32(data + off), flags = boot_rd32(data + off + 4);
		if (magic == VPMU_MULTIBOOT_MAGIC && (uint32_t)(magic + flags + boot_rd32(data + off + 8)) == 0)
			return (long)off;
	}
	return -1;
}

/* Where the image goes: a piece of the file copied to guest memory at addr,
 * then zeros up to mem_len. */
struct load_seg {
	uint32_t addr;
	size_t file_off, file_len, mem_len;
};

/* The a.out kludge: one piece, from the header's address fields. */
static int aout_kludge(const uint8_t *data, size_t size, long h, struct load_seg *seg,
		       uint32_t *entry, char *err, size_t errlen)
{
	uint32_t header_addr = boot_rd32(data + h + 12), load = boot_rd32(data + h + 16);
	uint32_t load_end = boot_rd32(data + h + 20), bss_end = boot_rd32(data + h + 24);
	*entry = boot_rd32(data + h + 28);
	if (header_addr < load || header_addr - load > (uint32_t)h) {
		snprintf(err, errlen, "multiboot header_addr 0x%x is inconsistent with load_addr 0x%x",
			 header_addr, load);
		return -1;
	}
	if (load_end && load_end < load) {
		snprintf(err, errlen, "multiboot load_end_addr 0x%x is below load_addr 0x%x",
			 load_end, load);
		return -1;
	}
	size_t file_off = (size_t)h - (header_addr - load);
	size_t len = load_end ? load_end - load : size - file_off;
	if (file_off + len > size) {
		snprintf(err, errlen, "multiboot header asks for %zu bytes but the image holds %zu",
			 len, size - file_off);
		return -1;
	}
	if (bss_end && bss_end < load + len) {
		snprintf(err, errlen, "multiboot bss_end_addr 0x%x is below load_end_addr 0x%llx",
			 bss_end, (unsigned long long)load + len);
		return -1;
	}
	seg->addr = load;
	seg->file_off = file_off;
	seg->file_len = len;
	seg->mem_len = bss_end ? bss_end - load : len;
	return 1;
}

/* An ELF32 i386 image: its PT_LOAD segments.  Returns how many (at most max),
 * or -1 with a message. */
static int elf32_segments(const uint8_t *data, size_t size, struct load_seg *seg, int max,
			  uint32_t *entry, char *err, size_t errlen)
{
	if (size < 16 || memcmp(data, "\177ELF", 4) != 0) {
		snprintf(err, errlen, "multiboot header without the address fields (flag bit 16) in "
			 "an image that is not ELF: nothing says where to load it");
		return -1;
	}
	if (data[4] == ELF_CLASS64) {
		snprintf(err, errlen, "a 64-bit ELF multiboot image: multiboot loads 32-bit ELF only "
			 "(QEMU's -kernel refuses it too)");
		return -1;
	}
	if (data[4] != ELF_CLASS32 || data[5] != ELF_DATA_LSB || size < ELF_EHDR_SIZE ||
	    boot_rd16(data + 18) != ELF_EM_386) {
		snprintf(err, errlen, "not a little-endian ELF32 i386 image (class %u, data %u%s)",
			 data[4], data[5], size < ELF_EHDR_SIZE ? ", truncated ELF header" : "");
		return -1;
	}
	uint32_t phoff = boot_rd32(data + 28);
	uint16_t phentsize = boot_rd16(data + 42), phnum = boot_rd16(data + 44);
	*entry = boot_rd32(data + 24);
	if (phnum == 0 || phentsize < ELF_PHDR_SIZE || phoff > size ||
	    (size - phoff) / phentsize < phnum) {
		snprintf(err, errlen, "ELF program headers (%u of %u bytes at offset %u) lie outside "
			 "the %zu-byte image", phnum, phentsize, phoff, size);
		return -1;
	}
	int n = 0;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = data + phoff + (size_t)i * phentsize;
		if (boot_rd32(ph) != ELF_PT_LOAD)
			continue;
		uint32_t off = boot_rd32(ph + 4), paddr = boot_rd32(ph + 12), filesz = boot_rd32(ph + 16);
		uint32_t memsz = boot_rd32(ph + 20);
		if (off > size || size - off < filesz || memsz < filesz) {
			snprintf(err, errlen, "ELF segment %u (offset %u, %u bytes in the file, %u in "
				 "memory) does not fit the %zu-byte image", i, off, filesz, memsz, size);
			return -1;
		}
		if (memsz == 0)
			continue;
		if (n == max) {
			snprintf(err, errlen, "more than %d loadable ELF segments", max);
			return -1;
		}
		seg[n++] = (struct load_seg){ paddr, off, filesz, memsz };
	}
	if (!n) {
		snprintf(err, errlen, "ELF image without a loadable segment");
		return -1;
	}
	return n;
}

#define MAX_SEGS 16

int guest_load(uint8_t *mem, size_t mem_size, const uint8_t *data, size_t size,
	       const char *cmdline, struct guest_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof(*img));
	struct load_seg seg[MAX_SEGS] = { { GUEST_FLAT_LOAD, 0, size, size } };
	uint32_t entry = GUEST_FLAT_LOAD;
	int nseg = 1;
	long h = find_header(data, size);
	if (h >= 0) {
		uint32_t flags = boot_rd32(data + h + 4);
		if (flags & MB_FLAG_AOUT_KLUDGE) {
			if ((size_t)h + MB_HEADER_ADDR > size || h + MB_HEADER_ADDR > MB_SEARCH) {
				snprintf(err, errlen, "multiboot header at offset %ld is truncated: its "
					 "address fields (flag bit 16) need %u bytes, and the %s ends "
					 "%zu bytes after it", h, MB_HEADER_ADDR,
					 (size_t)h + MB_HEADER_ADDR > size ? "image" : "first 8192 bytes",
					 ((size_t)h + MB_HEADER_ADDR > size ? size : MB_SEARCH) - (size_t)h);
				return -1;
			}
			nseg = aout_kludge(data, size, h, seg, &entry, err, errlen);
		} else {
			nseg = elf32_segments(data, size, seg, MAX_SEGS, &entry, err, errlen);
		}
		if (nseg < 0)
			return -1;
		img->multiboot = 1;
	}
	uint32_t lo = UINT32_MAX;
	uint64_t hi = 0;
	bool entry_inside = false;
	for (int i = 0; i < nseg; i++) {
		uint64_t end = (uint64_t)seg[i].addr + seg[i].mem_len;
		if (seg[i].addr < GUEST_CMDLINE_ADDR + GUEST_CMDLINE_MAX || end > mem_size) {
			snprintf(err, errlen, "image [0x%x, 0x%llx) does not fit guest memory above 0x%x "
				 "and below %zu MiB", seg[i].addr, (unsigned long long)end,
				 GUEST_CMDLINE_ADDR + GUEST_CMDLINE_MAX, mem_size >> 20);
			return -1;
		}
		lo = seg[i].addr < lo ? seg[i].addr : lo;
		hi = end > hi ? end : hi;
		entry_inside |= entry >= seg[i].addr && entry < end;
	}
	if (!entry_inside) {
		snprintf(err, errlen, "entry point 0x%x is outside the image [0x%x, 0x%llx)", entry, lo,
			 (unsigned long long)hi);
		return -1;
	}
	size_t cl = strlen(cmdline);
	if (cl >= GUEST_CMDLINE_MAX) {
		snprintf(err, errlen, "command line too long (%zu bytes, at most %u)", cl,
			 GUEST_CMDLINE_MAX - 1);
		return -1;
	}
	for (int i = 0; i < nseg; i++) {
		memcpy(mem + seg[i].addr, data + seg[i].file_off, seg[i].file_len);
		memset(mem + seg[i].addr + seg[i].file_len, 0, seg[i].mem_len - seg[i].file_len);
	}

	uint8_t *mbi = mem + GUEST_MBI_ADDR;
	memset(mbi, 0, 64);
	boot_wr32(mbi + 0, MBI_FLAG_MEM | MBI_FLAG_CMDLINE);
	boot_wr32(mbi + 4, 640);                                      /* mem_lower, KiB */
	boot_wr32(mbi + 8, (uint32_t)((mem_size - 0x100000) >> 10));  /* mem_upper, KiB above 1 MiB */
	boot_wr32(mbi + 16, GUEST_CMDLINE_ADDR);
	memcpy(mem + GUEST_CMDLINE_ADDR, cmdline, cl + 1);

	img->entry = entry;
	img->load_addr = lo;
	img->load_end = (uint32_t)hi;
	return 0;
}

int guest_enter_protected_mode(int vcpu_fd, const struct guest_image *img, char *err,
			       size_t errlen)
{
	struct kvm_regs r;
	memset(&r, 0, sizeof(r));
	r.rip = img->entry;
	r.rflags = 0x2;
	r.rax = VPMU_MULTIBOOT_BOOT_MAGIC;
	r.rbx = GUEST_MBI_ADDR;
	/* KVM's GDT stays: the selectors' hidden parts are what the guest uses
	 * (Multiboot 3.2: the OS must set up its own GDT before loading one). */
	if (boot_enter_protected_mode(vcpu_fd, 0x08, 0x10, 0, 0, &r, err, errlen) < 0)
		return -1;
	/* Every vCPU starts at the entry (guest_abi.h): no INIT/SIPI dance for the
	 * application processors, which the in-kernel LAPIC holds until then. */
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	if (ioctl(vcpu_fd, KVM_SET_MP_STATE, &mp) < 0) {
		snprintf(err, errlen, "KVM_SET_MP_STATE: %s", strerror(errno));
		return -1;
	}
	return 0;
}
