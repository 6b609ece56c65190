/* SPDX-License-Identifier: MIT */
/*
 * What the image loaders share (guest_boot.c: multiboot, linux_boot.c: the
 * Linux boot protocol): little-endian fields of an image or of guest memory,
 * and a vCPU put in 32-bit protected mode with flat segments and paging off.
 */
#ifndef VPMU_TOOLS_BOOT_X86_H
#define VPMU_TOOLS_BOOT_X86_H

#include <linux/kvm.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t boot_rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t boot_rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline void boot_wr32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void boot_wr64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* vcpu_fd in 32-bit protected mode, paging off: flat 4 GiB code at selector
 * cs and data at ds (also ES, FS, GS, SS), the GDT at gdt_base/gdt_limit (0/0:
 * keep KVM's), then the general registers r.  0, or -1 with a message. */
int boot_enter_protected_mode(int vcpu_fd, uint16_t cs, uint16_t ds, uint64_t gdt_base,
			      uint16_t gdt_limit, const struct kvm_regs *r, char *err,
			      size_t errlen);

#endif
