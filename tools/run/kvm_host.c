/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kvm_host.h"

void kvm_host_open_error(int err, char *buf, size_t len)
{
	const char *fix;
	switch (err) {
	case EACCES:
	case EPERM:
		/* udev gives /dev/kvm to group kvm (systemd's 50-udev-default.rules;
		 * Debian builds it with dev-kvm-mode=0660). */
		fix = "this user may not use KVM: add it to the kvm group (sudo usermod -aG kvm "
		      "$USER, then log in again) or run as root";
		break;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		fix = "this host has no KVM: load kvm_intel or kvm_amd (they need VT-x or AMD-V, "
		      "in a VM nested virtualization), or, in the source tree, run it nested in "
		      "QEMU with scripts/kvm-env";
		break;
	default:
		fix = "KVM cannot be used here";
	}
	snprintf(buf, len, "/dev/kvm: %s: %s", strerror(err), fix);
}

static bool has_module(const char *modules, const char *name)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", modules, name);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool kvm_host_is_pvm(const char *modules)
{
	return has_module(modules, "kvm_pvm") && !has_module(modules, "kvm_intel") &&
	       !has_module(modules, "kvm_amd");
}

const char *kvm_host_internal_error_hint(unsigned suberror, bool pvm)
{
	/* Suberror 1 is KVM_INTERNAL_ERROR_EMULATION (linux/kvm.h): KVM met an
	 * instruction it had to emulate and could not.  kvm_pvm runs guests
	 * without hardware virtualization and emulates far more than kvm_intel
	 * or kvm_amd, so the bare-metal guests' mode switches and the legacy
	 * models' 32-bit code stop there. */
	if (suberror == KVM_INTERNAL_ERROR_EMULATION && pvm)
		return " (an instruction KVM could not emulate: /dev/kvm here is kvm_pvm, a "
		       "paravirtualized KVM without VT-x or AMD-V, not the hardware KVM the guests "
		       "target: run on a host with kvm_intel or kvm_amd, or, in the source tree, "
		       "nested in QEMU with scripts/kvm-env, which takes kvm_pvm for no KVM)";
	if (suberror == KVM_INTERNAL_ERROR_EMULATION)
		return " (an instruction KVM could not emulate)";
	return "";
}
