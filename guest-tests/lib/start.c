/* SPDX-License-Identifier: MIT */
/* The BSP's C entry (boot.S): runtime set-up, then the program's guest_main(). */
#include "guest.h"

void bsp_entry(uint32_t magic, uint32_t mbi);
void bsp_entry(uint32_t magic, uint32_t mbi)
{
	idt_init_this_cpu();
	/* With the in-kernel irqchip (guest_abi.h) the 8259s are KVM's; nothing
	 * of theirs is wanted, and their IRQ vectors may overlap exceptions. */
	pic_mask_all();
	parse_multiboot(magic, mbi);
	if (opts.ap_boot_sipi && opts.vcpus > 1)
		smp_start_aps_sipi(opts.vcpus);
	guest_main();
	guest_exit();
}
