/* SPDX-License-Identifier: MIT */
/*
 * Guest image loading (Multiboot Specification 0.6.96, section 3.1: the header
 * in the first 8192 bytes, 4-byte aligned; flag bit 16 gives the load addresses
 * so no ELF parsing is needed) and the machine state section 3.2 defines at
 * entry: protected mode, flat segments, paging off, EAX = 0x2BADB002, EBX = the
 * multiboot information structure.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "../vmm-glue/guest_abi.h"
#include "guest_boot.h"

#define MB_SEARCH 8192u
#define MB_FLAG_AOUT_KLUDGE (1u << 16)
#define MBI_FLAG_MEM (1u << 0)
#define MBI_FLAG_CMDLINE (1u << 2)

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* Offset of a valid multiboot header in data, or -1. */
static long find_header(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off + 12 <= size && off < MB_SEARCH; off += 4) {
		uint32_t magic = rd32(data + off), flags = rd32(data + off + 4);
		if (magic == VPMU_MULTIBOOT_MAGIC && (uint32_t)(magic + flags + rd32(data + off + 8)) == 0)
			return (long)off;
	}
	return -1;
}

int guest_load(uint8_t *mem, size_t mem_size, const uint8_t *data, size_t size,
	       const char *cmdline, struct guest_image *img, char *err, size_t errlen)
{
	memset(img, 0, sizeof(*img));
	uint32_t load = GUEST_FLAT_LOAD, entry = GUEST_FLAT_LOAD, bss_end = 0;
	size_t file_off = 0, len = size;
	long h = find_header(data, size);
	if (h >= 0) {
		uint32_t flags = rd32(data + h + 4);
		if (!(flags & MB_FLAG_AOUT_KLUDGE) || (size_t)h + 32 > size) {
			snprintf(err, errlen, "multiboot header at offset %ld lacks the address fields "
				 "(flag bit 16): ELF multiboot images are not supported", h);
			return -1;
		}
		uint32_t header_addr = rd32(data + h + 12), load_end = rd32(data + h + 20);
		load = rd32(data + h + 16);
		bss_end = rd32(data + h + 24);
		entry = rd32(data + h + 28);
		if (header_addr < load || header_addr - load > (uint32_t)h) {
			snprintf(err, errlen, "multiboot header_addr 0x%x is inconsistent with load_addr 0x%x",
				 header_addr, load);
			return -1;
		}
		file_off = (size_t)h - (header_addr - load);
		len = load_end ? load_end - load : size - file_off;
		if (load_end && load_end < load) {
			snprintf(err, errlen, "multiboot load_end_addr 0x%x is below load_addr 0x%x",
				 load_end, load);
			return -1;
		}
		if (file_off + len > size) {
			snprintf(err, errlen, "multiboot header asks for %zu bytes but the image holds %zu",
				 len, size - file_off);
			return -1;
		}
		img->multiboot = 1;
	}
	uint64_t end = (uint64_t)load + len;
	if (bss_end > end)
		end = bss_end;
	if (load < GUEST_CMDLINE_ADDR + GUEST_CMDLINE_MAX || end > mem_size) {
		snprintf(err, errlen, "image [0x%x, 0x%llx) does not fit guest memory above 0x%x and "
			 "below %zu MiB", load, (unsigned long long)end,
			 GUEST_CMDLINE_ADDR + GUEST_CMDLINE_MAX, mem_size >> 20);
		return -1;
	}
	if (entry < load || entry >= end) {
		snprintf(err, errlen, "entry point 0x%x is outside the image [0x%x, 0x%llx)", entry, load,
			 (unsigned long long)end);
		return -1;
	}
	size_t cl = strlen(cmdline);
	if (cl >= GUEST_CMDLINE_MAX) {
		snprintf(err, errlen, "command line too long (%zu bytes, at most %u)", cl,
			 GUEST_CMDLINE_MAX - 1);
		return -1;
	}
	memcpy(mem + load, data + file_off, len);
	memset(mem + load + len, 0, (size_t)(end - load - len));

	uint8_t *mbi = mem + GUEST_MBI_ADDR;
	memset(mbi, 0, 64);
	wr32(mbi + 0, MBI_FLAG_MEM | MBI_FLAG_CMDLINE);
	wr32(mbi + 4, 640);                                      /* mem_lower, KiB */
	wr32(mbi + 8, (uint32_t)((mem_size - 0x100000) >> 10));  /* mem_upper, KiB above 1 MiB */
	wr32(mbi + 16, GUEST_CMDLINE_ADDR);
	memcpy(mem + GUEST_CMDLINE_ADDR, cmdline, cl + 1);

	img->entry = entry;
	img->load_addr = load;
	img->load_end = (uint32_t)end;
	return 0;
}

static void flat_segment(struct kvm_segment *s, uint16_t selector, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xFFFFFFFF;
	s->selector = selector;
	s->type = type;
	s->present = 1;
	s->db = 1;
	s->s = 1;
	s->g = 1;
}

int guest_enter_protected_mode(int vcpu_fd, const struct guest_image *img, char *err,
			       size_t errlen)
{
	struct kvm_sregs sr;
	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sr) < 0) {
		snprintf(err, errlen, "KVM_GET_SREGS: %s", strerror(errno));
		return -1;
	}
	flat_segment(&sr.cs, 0x08, 0xB);       /* code, execute/read, accessed */
	flat_segment(&sr.ds, 0x10, 0x3);       /* data, read/write, accessed */
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	sr.cr0 = (sr.cr0 | 0x1) & ~0x80000000ull; /* PE on, PG off */
	sr.cr4 = 0;
	sr.efer = 0;
	if (ioctl(vcpu_fd, KVM_SET_SREGS, &sr) < 0) {
		snprintf(err, errlen, "KVM_SET_SREGS: %s", strerror(errno));
		return -1;
	}
	struct kvm_regs r;
	memset(&r, 0, sizeof(r));
	r.rip = img->entry;
	r.rflags = 0x2;
	r.rax = VPMU_MULTIBOOT_BOOT_MAGIC;
	r.rbx = GUEST_MBI_ADDR;
	if (ioctl(vcpu_fd, KVM_SET_REGS, &r) < 0) {
		snprintf(err, errlen, "KVM_SET_REGS: %s", strerror(errno));
		return -1;
	}
	/* Every vCPU starts at the entry (guest_abi.h): no INIT/SIPI dance for the
	 * application processors, which the in-kernel LAPIC holds until then. */
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	if (ioctl(vcpu_fd, KVM_SET_MP_STATE, &mp) < 0) {
		snprintf(err, errlen, "KVM_SET_MP_STATE: %s", strerror(errno));
		return -1;
	}
	return 0;
}
