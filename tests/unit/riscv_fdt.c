/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V vpmu-run's device tree (tools/run/riscv_fdt.c), read back with
 * the host's libfdt: the header libfdt checks, the nodes and properties a
 * Linux guest reads (Documentation/arch/riscv/boot.rst; the cpus and
 * riscv,cpu-intc bindings), and the writer's refusals.
 */
#include <errno.h>
#include <libfdt.h>
#include <stdint.h>
#include <string.h>

#include "run/riscv_fdt.h"
#include "tap.h"

static uint8_t blob[65536];

static const struct riscv_dt_params params = {
	.nr_harts = 2,
	.isa = "rv64imafdc_zicntr_zicsr_zifencei_zihpm_sscofpmf_sstc",
	.mmu_type = "riscv,sv48",
	.timebase_hz = 10000000,
	.ram_base = 0x80000000ull,
	.ram_size = 0x10000000ull,
	.bootargs = "earlycon=sbi console=hvc0 rdinit=/init",
	.initrd_start = 0x8f000000ull,
	.initrd_end = 0x8f123456ull,
};

static uint64_t prop_u64(const void *fdt, int node, const char *name, int *len)
{
	/* Properties are 4-byte aligned only: the cells copied out. */
	const void *p = fdt_getprop(fdt, node, name, len);
	fdt64_t v = 0;
	if (p && *len == 8)
		memcpy(&v, p, 8);
	return fdt64_to_cpu(v);
}

static uint32_t prop_u32(const void *fdt, int node, const char *name, int *len)
{
	const fdt32_t *p = fdt_getprop(fdt, node, name, len);
	return p && *len == 4 ? fdt32_to_cpu(*p) : 0;
}

static void test_tree(void)
{
	int len = riscv_dt_build(&params, blob, sizeof(blob));
	ok(len > 0, "the tree is written (%d bytes)", len);
	ok(fdt_check_header(blob) == 0, "libfdt accepts its header");
	is_u64(fdt_totalsize(blob), len, "totalsize is the size returned");
	is_u64(fdt_version(blob), 17, "version 17");
	is_u64(fdt_boot_cpuid_phys(blob), 0, "boot hart 0");
	is_u64(fdt_num_mem_rsv(blob), 0, "no memory reservations");
	int l;
	is_u64(prop_u32(blob, 0, "#address-cells", &l), 2, "/ #address-cells 2");
	is_u64(prop_u32(blob, 0, "#size-cells", &l), 2, "/ #size-cells 2");

	int chosen = fdt_path_offset(blob, "/chosen");
	ok(chosen >= 0, "/chosen");
	const char *s = fdt_getprop(blob, chosen, "bootargs", &l);
	ok(s && !strcmp(s, params.bootargs), "bootargs: %s", s ? s : "(none)");
	is_u64(prop_u64(blob, chosen, "linux,initrd-start", &l), params.initrd_start,
	       "linux,initrd-start");
	is_u64(prop_u64(blob, chosen, "linux,initrd-end", &l), params.initrd_end, "linux,initrd-end");

	int cpus = fdt_path_offset(blob, "/cpus");
	ok(cpus >= 0, "/cpus");
	is_u64(prop_u32(blob, cpus, "timebase-frequency", &l), 10000000, "timebase-frequency");
	is_u64(prop_u32(blob, cpus, "#address-cells", &l), 1, "/cpus #address-cells 1");
	is_u64(prop_u32(blob, cpus, "#size-cells", &l), 0, "/cpus #size-cells 0");
	unsigned harts = 0;
	int cpu;
	fdt_for_each_subnode(cpu, blob, cpus) {
		char path[64];
		snprintf(path, sizeof(path), "/cpus/cpu@%x", harts);
		ok(fdt_path_offset(blob, path) == cpu, "%s, in order", path);
		is_u64(prop_u32(blob, cpu, "reg", &l), harts, "%s reg", path);
		s = fdt_getprop(blob, cpu, "device_type", &l);
		ok(s && !strcmp(s, "cpu"), "%s device_type cpu", path);
		s = fdt_getprop(blob, cpu, "riscv,isa", &l);
		ok(s && !strcmp(s, params.isa) && strstr(s, "_sscofpmf") && strstr(s, "_zihpm"),
		   "%s riscv,isa with Sscofpmf and Zihpm", path);
		s = fdt_getprop(blob, cpu, "mmu-type", &l);
		ok(s && !strcmp(s, "riscv,sv48"), "%s mmu-type", path);
		int intc = fdt_subnode_offset(blob, cpu, "interrupt-controller");
		ok(intc >= 0 && fdt_node_check_compatible(blob, intc, "riscv,cpu-intc") == 0,
		   "%s has its riscv,cpu-intc", path);
		ok(fdt_getprop(blob, intc, "interrupt-controller", &l) && l == 0,
		   "%s: an empty interrupt-controller property", path);
		is_u64(prop_u32(blob, intc, "#interrupt-cells", &l), 1, "%s: #interrupt-cells 1", path);
		is_u64(fdt_get_phandle(blob, intc), harts + 1, "%s: its phandle", path);
		harts++;
	}
	is_u64(harts, 2, "two harts");

	int mem = fdt_path_offset(blob, "/memory@80000000");
	ok(mem >= 0, "/memory@80000000");
	const void *regp = fdt_getprop(blob, mem, "reg", &l);
	fdt64_t reg[2] = { 0, 0 };
	if (regp && l == 16)
		memcpy(reg, regp, 16);
	ok(fdt64_to_cpu(reg[0]) == 0x80000000ull && fdt64_to_cpu(reg[1]) == 0x10000000ull,
	   "memory reg: 256 MiB at 0x80000000");
	s = fdt_getprop(blob, mem, "device_type", &l);
	ok(s && !strcmp(s, "memory"), "memory device_type");
}

static void test_without_initrd(void)
{
	struct riscv_dt_params p = params;
	p.initrd_start = p.initrd_end = 0;
	p.bootargs = NULL;
	p.nr_harts = 1;
	int len = riscv_dt_build(&p, blob, sizeof(blob));
	ok(len > 0 && fdt_check_header(blob) == 0, "a tree without initrd and bootargs");
	int chosen = fdt_path_offset(blob, "/chosen"), l;
	ok(chosen >= 0 && !fdt_getprop(blob, chosen, "linux,initrd-start", &l) &&
	   !fdt_getprop(blob, chosen, "bootargs", &l), "/chosen holds neither");
	ok(fdt_path_offset(blob, "/cpus/cpu@1") < 0, "one hart only");
}

static void test_refusals(void)
{
	ok(riscv_dt_build(&params, blob, 100) == -ENOSPC, "a buffer too small: -ENOSPC");
	ok(riscv_dt_build(&params, blob, 40) == -ENOSPC, "a buffer smaller than the header: -ENOSPC");
	struct riscv_dt_params p = params;
	p.nr_harts = 0;
	ok(riscv_dt_build(&p, blob, sizeof(blob)) == -EINVAL, "no harts: -EINVAL");
	p = params;
	p.initrd_end = p.initrd_start - 1;
	ok(riscv_dt_build(&p, blob, sizeof(blob)) == -EINVAL, "an initrd that ends first: -EINVAL");

	struct fdt_writer w;
	fdt_w_init(&w, blob, sizeof(blob));
	fdt_w_prop_u32(&w, "x", 1);
	ok(fdt_w_finish(&w, 0) == -EINVAL, "a property outside any node: -EINVAL");
	fdt_w_init(&w, blob, sizeof(blob));
	fdt_w_begin_node(&w, "");
	ok(fdt_w_finish(&w, 0) == -EINVAL, "a node left open: -EINVAL");
	fdt_w_init(&w, blob, sizeof(blob));
	fdt_w_begin_node(&w, "");
	fdt_w_end_node(&w);
	fdt_w_end_node(&w);
	ok(fdt_w_finish(&w, 0) == -EINVAL, "a node closed twice: -EINVAL");
	fdt_w_init(&w, blob, sizeof(blob));
	fdt_w_begin_node(&w, "");
	fdt_w_prop_str(&w, "same", "a");
	fdt_w_prop_str(&w, "same", "b");
	fdt_w_end_node(&w);
	int len = fdt_w_finish(&w, 3);
	ok(len > 0 && fdt_check_header(blob) == 0 && fdt_size_dt_strings(blob) == 5,
	   "a name used twice is stored once in the strings block");
	is_u64(fdt_boot_cpuid_phys(blob), 3, "boot_cpuid_phys as given");
}

int main(void)
{
	test_tree();
	test_without_initrd();
	test_refusals();
	return tap_done();
}
