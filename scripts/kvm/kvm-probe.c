/* SPDX-License-Identifier: MIT */
/* kvm-probe: checks that /dev/kvm offers what vpmu's KVM tests need, printing
 * one unnumbered TAP line per check ("ok - ..." / "not ok - ...").  Exit
 * status 0 when every check passed, 1 otherwise.  Built static by
 * tests/kvm-harness.t and run under scripts/kvm-env; usable by hand too:
 *   cc -static -O2 -o kvm-probe scripts/kvm/kvm-probe.c && scripts/kvm-env -- ./kvm-probe
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int failed;

static int check(int cond, const char *what, const char *detail)
{
	printf("%s - %s", cond ? "ok" : "not ok", what);
	if (!cond && detail)
		printf(" # %s", detail);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failed = 1;
	return cond;
}

int main(void)
{
	char buf[128];
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	snprintf(buf, sizeof buf, "open: %s", strerror(errno));
	if (!check(kvm >= 0, "/dev/kvm opens read-write", buf))
		return 1;

	int api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	snprintf(buf, sizeof buf, "got %d", api);
	check(api == 12, "KVM_GET_API_VERSION is 12", buf);

	int msr = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_X86_USER_SPACE_MSR);
	snprintf(buf, sizeof buf, "got %d", msr);
	check(msr > 0, "KVM_CHECK_EXTENSION(KVM_CAP_X86_USER_SPACE_MSR) > 0", buf);

	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	snprintf(buf, sizeof buf, "%s", strerror(errno));
	if (!check(vm >= 0, "KVM_CREATE_VM creates a VM", buf))
		return 1;

	/* 64 KiB of guest memory at 0; real-mode code at 0x1000:
	 * mov al, 42; out 0xf4, al; hlt */
	size_t memsz = 0x10000;
	unsigned char *mem = mmap(NULL, memsz, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		check(0, "guest memory mapped", strerror(errno));
		return 1;
	}
	static const unsigned char code[] = { 0xb0, 42, 0xe6, 0xf4, 0xf4 };
	memcpy(mem + 0x1000, code, sizeof code);
	struct kvm_userspace_memory_region region = {
		.slot = 0, .guest_phys_addr = 0, .memory_size = memsz,
		.userspace_addr = (unsigned long)mem,
	};
	int r = ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region);
	snprintf(buf, sizeof buf, "%s", strerror(errno));
	check(r == 0, "KVM_SET_USER_MEMORY_REGION maps guest memory", buf);

	int vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	snprintf(buf, sizeof buf, "%s", strerror(errno));
	if (!check(vcpu >= 0, "KVM_CREATE_VCPU creates vCPU 0", buf))
		return 1;

	int runsz = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	struct kvm_run *run = runsz > 0 ? mmap(NULL, (size_t)runsz, PROT_READ | PROT_WRITE,
					       MAP_SHARED, vcpu, 0) : MAP_FAILED;
	if (!check(run != MAP_FAILED, "kvm_run area mapped", strerror(errno)))
		return 1;

	struct kvm_sregs sregs;
	struct kvm_regs regs;
	memset(&regs, 0, sizeof regs);
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) == 0) {
		sregs.cs.base = 0;
		sregs.cs.selector = 0;
		r = ioctl(vcpu, KVM_SET_SREGS, &sregs);
	} else {
		r = -1;
	}
	regs.rip = 0x1000;
	regs.rflags = 2;
	r |= ioctl(vcpu, KVM_SET_REGS, &regs);
	check(r == 0, "vCPU registers set (real mode, CS:IP 0:1000)", strerror(errno));

	r = ioctl(vcpu, KVM_RUN, 0);
	unsigned char val = 0;
	if (r == 0 && run->exit_reason == KVM_EXIT_IO && run->io.size == 1)
		val = ((unsigned char *)run)[run->io.data_offset];
	snprintf(buf, sizeof buf, "KVM_RUN %d, exit reason %u, port 0x%x, value %u",
		 r, run->exit_reason, run->io.port, val);
	check(r == 0 && run->exit_reason == KVM_EXIT_IO && run->io.port == 0xf4 &&
		      run->io.direction == KVM_EXIT_IO_OUT && val == 42,
	      "KVM_RUN: guest's OUT 0xf4 of 42 exits to userspace", buf);

	close(vcpu);
	close(vm);
	close(kvm);
	return failed;
}
