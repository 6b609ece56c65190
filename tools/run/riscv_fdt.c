/* SPDX-License-Identifier: MIT */
/*
 * A flattened device tree written in one pass (riscv_fdt.h), and vpmu-run's
 * RISC-V tree.  The layout is the Devicetree Specification's chapter 5: a
 * 40-byte header, the memory reservation block (only its terminating entry),
 * the structure block (FDT_BEGIN_NODE/FDT_PROP/FDT_END_NODE tokens, each
 * 32-bit aligned, big-endian), then the strings block of property names.
 * The tree is the one Linux's RISC-V boot needs (Documentation/arch/riscv/
 * boot.rst; the bindings Documentation/devicetree/bindings/riscv/cpus.yaml
 * and .../interrupt-controller/riscv,cpu-intc.yaml), as QEMU's virt board
 * (hw/riscv/virt.c create_fdt_socket_cpus) and kvmtool's riscv/fdt.c write it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "riscv_fdt.h"

#define FDT_MAGIC       0xd00dfeedu
#define FDT_BEGIN_NODE  1u
#define FDT_END_NODE    2u
#define FDT_PROP        3u
#define FDT_END         9u
#define FDT_HDR_LEN     40u
#define FDT_RSV_OFF     FDT_HDR_LEN            /* one empty entry: 16 bytes */
#define FDT_STRUCT_OFF  (FDT_RSV_OFF + 16u)

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

void fdt_w_init(struct fdt_writer *w, void *buf, size_t cap)
{
	*w = (struct fdt_writer){ .buf = buf, .cap = cap };
	if (!buf || cap < FDT_STRUCT_OFF)
		w->err = -ENOSPC;
}

/* n bytes of the structure block (zero padded to 4), or the error. */
static uint8_t *grow(struct fdt_writer *w, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;
	if (w->err)
		return NULL;
	if (padded > w->cap - FDT_STRUCT_OFF - w->struct_len) {
		w->err = -ENOSPC;
		return NULL;
	}
	uint8_t *p = w->buf + FDT_STRUCT_OFF + w->struct_len;
	memset(p, 0, padded);
	w->struct_len += padded;
	return p;
}

static void token(struct fdt_writer *w, uint32_t t)
{
	uint8_t *p = grow(w, 4);
	if (p)
		put_be32(p, t);
}

void fdt_w_begin_node(struct fdt_writer *w, const char *name)
{
	token(w, FDT_BEGIN_NODE);
	size_t n = strlen(name) + 1;
	uint8_t *p = grow(w, n);
	if (p) {
		memcpy(p, name, n);
		w->depth++;
	}
}

void fdt_w_end_node(struct fdt_writer *w)
{
	if (!w->err && !w->depth)
		w->err = -EINVAL;
	token(w, FDT_END_NODE);
	if (!w->err)
		w->depth--;
}

/* name's offset in the strings block, each name once. */
static int string_off(struct fdt_writer *w, const char *name)
{
	size_t n = strlen(name) + 1;
	for (size_t off = 0; off < w->strings_len; off += strlen(w->strings + off) + 1)
		if (!strcmp(w->strings + off, name))
			return (int)off;
	if (n > sizeof(w->strings) - w->strings_len) {
		w->err = -ENOSPC;
		return -1;
	}
	memcpy(w->strings + w->strings_len, name, n);
	w->strings_len += n;
	return (int)(w->strings_len - n);
}

void fdt_w_prop(struct fdt_writer *w, const char *name, const void *val, size_t len)
{
	if (!w->err && !w->depth)
		w->err = -EINVAL;
	if (w->err)
		return;
	int off = string_off(w, name);
	if (off < 0 || len > UINT32_MAX)
		return;
	uint8_t *p = grow(w, 12 + len);
	if (!p)
		return;
	put_be32(p, FDT_PROP);
	put_be32(p + 4, (uint32_t)len);
	put_be32(p + 8, (uint32_t)off);
	if (len)
		memcpy(p + 12, val, len);
}

void fdt_w_prop_u32(struct fdt_writer *w, const char *name, uint32_t v)
{
	uint8_t b[4];
	put_be32(b, v);
	fdt_w_prop(w, name, b, sizeof(b));
}

void fdt_w_prop_u64(struct fdt_writer *w, const char *name, uint64_t v)
{
	uint8_t b[8];
	put_be32(b, (uint32_t)(v >> 32));
	put_be32(b + 4, (uint32_t)v);
	fdt_w_prop(w, name, b, sizeof(b));
}

void fdt_w_prop_str(struct fdt_writer *w, const char *name, const char *s)
{
	fdt_w_prop(w, name, s, strlen(s) + 1);
}

int fdt_w_finish(struct fdt_writer *w, unsigned boot_hart)
{
	if (!w->err && w->depth)
		w->err = -EINVAL;
	token(w, FDT_END);
	if (w->err)
		return w->err;
	size_t strings_off = FDT_STRUCT_OFF + w->struct_len;
	if (w->strings_len > w->cap - strings_off)
		return w->err = -ENOSPC;
	memcpy(w->buf + strings_off, w->strings, w->strings_len);
	size_t total = strings_off + w->strings_len;
	uint8_t *h = w->buf;
	memset(h, 0, FDT_STRUCT_OFF);   /* the header, and the empty reservation entry */
	put_be32(h + 0, FDT_MAGIC);
	put_be32(h + 4, (uint32_t)total);
	put_be32(h + 8, FDT_STRUCT_OFF);
	put_be32(h + 12, (uint32_t)strings_off);
	put_be32(h + 16, FDT_RSV_OFF);
	put_be32(h + 20, 17);   /* version */
	put_be32(h + 24, 16);   /* last compatible version */
	put_be32(h + 28, boot_hart);
	put_be32(h + 32, (uint32_t)w->strings_len);
	put_be32(h + 36, (uint32_t)w->struct_len);
	return (int)total;
}

/* One hart: its ISA and MMU, and its local interrupt controller, through which
 * Linux's riscv_intc takes the timer, the IPIs and LCOFI (interrupt 13:
 * drivers/perf/riscv_pmu_sbi.c takes it only where the ISA has Sscofpmf). */
static void cpu_node(struct fdt_writer *w, const struct riscv_dt_params *p, unsigned hart)
{
	char name[24];
	snprintf(name, sizeof(name), "cpu@%x", hart);
	fdt_w_begin_node(w, name);
	fdt_w_prop_str(w, "device_type", "cpu");
	fdt_w_prop_u32(w, "reg", hart);
	fdt_w_prop_str(w, "compatible", "riscv");
	fdt_w_prop_str(w, "status", "okay");
	fdt_w_prop_str(w, "riscv,isa", p->isa);
	if (p->mmu_type)
		fdt_w_prop_str(w, "mmu-type", p->mmu_type);
	fdt_w_begin_node(w, "interrupt-controller");
	fdt_w_prop_u32(w, "#interrupt-cells", 1);
	fdt_w_prop(w, "interrupt-controller", NULL, 0);
	fdt_w_prop_str(w, "compatible", "riscv,cpu-intc");
	fdt_w_prop_u32(w, "phandle", hart + 1);
	fdt_w_end_node(w);
	fdt_w_end_node(w);
}

int riscv_dt_build(const struct riscv_dt_params *p, void *buf, size_t cap)
{
	if (!p || !p->isa || !p->nr_harts || !p->ram_size || p->initrd_end < p->initrd_start)
		return -EINVAL;
	struct fdt_writer w;
	fdt_w_init(&w, buf, cap);
	fdt_w_begin_node(&w, "");
	fdt_w_prop_u32(&w, "#address-cells", 2);
	fdt_w_prop_u32(&w, "#size-cells", 2);
	fdt_w_prop_str(&w, "compatible", "linux,dummy-virt");
	fdt_w_prop_str(&w, "model", "vpmu-run");

	fdt_w_begin_node(&w, "chosen");
	if (p->bootargs && *p->bootargs)
		fdt_w_prop_str(&w, "bootargs", p->bootargs);
	if (p->initrd_end > p->initrd_start) {
		/* Documentation/devicetree/bindings/chosen.txt (dt-schema's
		 * chosen.yaml): either cell count; two here, as #address-cells. */
		fdt_w_prop_u64(&w, "linux,initrd-start", p->initrd_start);
		fdt_w_prop_u64(&w, "linux,initrd-end", p->initrd_end);
	}
	fdt_w_end_node(&w);

	fdt_w_begin_node(&w, "cpus");
	fdt_w_prop_u32(&w, "#address-cells", 1);
	fdt_w_prop_u32(&w, "#size-cells", 0);
	fdt_w_prop_u32(&w, "timebase-frequency", p->timebase_hz);
	for (unsigned h = 0; h < p->nr_harts; h++)
		cpu_node(&w, p, h);
	fdt_w_end_node(&w);

	char mem[40];
	snprintf(mem, sizeof(mem), "memory@%llx", (unsigned long long)p->ram_base);
	fdt_w_begin_node(&w, mem);
	fdt_w_prop_str(&w, "device_type", "memory");
	uint8_t reg[16];
	for (unsigned i = 0; i < 8; i++) {
		reg[i] = (uint8_t)(p->ram_base >> (56 - 8 * i));
		reg[8 + i] = (uint8_t)(p->ram_size >> (56 - 8 * i));
	}
	fdt_w_prop(&w, "reg", reg, sizeof(reg));
	fdt_w_end_node(&w);
	fdt_w_end_node(&w);
	return fdt_w_finish(&w, 0);
}
