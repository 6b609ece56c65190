/* SPDX-License-Identifier: MIT */
/* The protected-mode entry of boot_x86.h (Intel SDM vol. 3A, 3.4.5, segment
 * descriptors: type 0xB execute/read accessed, 0x3 read/write accessed). */
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>

#include "boot_x86.h"

static void flat_segment(struct kvm_segment *s, uint16_t selector, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	s->limit = 0xFFFFFFFF;
	s->selector = selector;
	s->type = type;
	s->present = 1;
	s->db = 1;
	s->s = 1;
	s->g = 1;
}

int boot_enter_protected_mode(int vcpu_fd, uint16_t cs, uint16_t ds, uint64_t gdt_base,
			      uint16_t gdt_limit, const struct kvm_regs *r, char *err,
			      size_t errlen)
{
	struct kvm_sregs sr;
	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sr) < 0) {
		snprintf(err, errlen, "KVM_GET_SREGS: %s", strerror(errno));
		return -1;
	}
	flat_segment(&sr.cs, cs, 0xB);
	flat_segment(&sr.ds, ds, 0x3);
	sr.es = sr.fs = sr.gs = sr.ss = sr.ds;
	if (gdt_limit) {
		sr.gdt.base = gdt_base;
		sr.gdt.limit = gdt_limit;
	}
	sr.cr0 = (sr.cr0 | 0x1) & ~0x80000000ull;   /* PE on, PG off */
	sr.cr4 = 0;
	sr.efer = 0;
	if (ioctl(vcpu_fd, KVM_SET_SREGS, &sr) < 0) {
		snprintf(err, errlen, "KVM_SET_SREGS: %s", strerror(errno));
		return -1;
	}
	if (ioctl(vcpu_fd, KVM_SET_REGS, r) < 0) {
		snprintf(err, errlen, "KVM_SET_REGS: %s", strerror(errno));
		return -1;
	}
	return 0;
}
