/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's RISC-V device tree: a small flattened-devicetree writer (the
 * Devicetree Specification v0.4, chapter 5 "Flattened Devicetree (DTB)
 * Format"), sequential like libfdt's fdt_begin_node/fdt_property/fdt_end_node
 * (which the riscv64 cross build has no library of), and the tree a Linux
 * guest of vpmu-run boots with (riscv_dt_build).  Pure: no KVM, no files.
 */
#ifndef VPMU_TOOLS_RUN_RISCV_FDT_H
#define VPMU_TOOLS_RUN_RISCV_FDT_H

#include <stddef.h>
#include <stdint.h>

/* The writer: nodes and properties in order, into buf of cap bytes.  The
 * first error (-ENOSPC: buf too small; -EINVAL: unbalanced nodes, a property
 * outside any node) sticks, and every later call is a no-op. */
struct fdt_writer {
	uint8_t *buf;
	size_t cap;
	size_t struct_len;      /* the structure block, from buf + FDT_STRUCT_OFF */
	char strings[512];      /* the strings block, built apart and copied at finish */
	size_t strings_len;
	unsigned depth;
	int err;
};
void fdt_w_init(struct fdt_writer *w, void *buf, size_t cap);
void fdt_w_begin_node(struct fdt_writer *w, const char *name);
void fdt_w_end_node(struct fdt_writer *w);
void fdt_w_prop(struct fdt_writer *w, const char *name, const void *val, size_t len);
void fdt_w_prop_u32(struct fdt_writer *w, const char *name, uint32_t v);
void fdt_w_prop_u64(struct fdt_writer *w, const char *name, uint64_t v);   /* two cells */
void fdt_w_prop_str(struct fdt_writer *w, const char *name, const char *s);
/* The blob's size (its header's totalsize), or a negative errno. */
int fdt_w_finish(struct fdt_writer *w, unsigned boot_hart);

/* What the guest's tree says. */
struct riscv_dt_params {
	unsigned nr_harts;          /* cpu@0 .. cpu@n-1, each with its cpu-intc */
	const char *isa;            /* riscv,isa: "rv64imafdc_zicntr_..._sscofpmf" */
	const char *mmu_type;       /* "riscv,sv39", ...; NULL: none */
	uint32_t timebase_hz;       /* the time CSR's rate: KVM's timer frequency */
	uint64_t ram_base, ram_size;
	const char *bootargs;       /* chosen/bootargs; NULL or "": none */
	uint64_t initrd_start, initrd_end;   /* chosen/linux,initrd-*; equal: none */
};
/* The tree into buf (cap bytes): its size, or -ENOSPC / -EINVAL. */
int riscv_dt_build(const struct riscv_dt_params *p, void *buf, size_t cap);

#endif
