/* SPDX-License-Identifier: MIT */
/*
 * tools/run/kvm_host.c: the messages vpmu-run gives when KVM is not usable, each
 * with its cause and its fix: no permission on /dev/kvm (the kvm group, not
 * scripts/kvm-env, which is no fix there and is not installed), no /dev/kvm,
 * and a KVM internal error on kvm_pvm, told apart from hardware KVM in a
 * made-up /sys/module.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/kvm_host.h"
#include "tap.h"

static char root[64];

static void module(const char *name, int present)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/%s", root, name);
	if (present)
		mkdir(p, 0700);
	else
		rmdir(p);
}

int main(void)
{
	char m[512];
	kvm_host_open_error(EACCES, m, sizeof(m));
	ok(strstr(m, "/dev/kvm: Permission denied: ") == m, "EACCES: /dev/kvm and the cause: %s", m);
	ok(strstr(m, "kvm group") && strstr(m, "root"), "EACCES: the fix is the kvm group or root");
	ok(!strstr(m, "kvm-env"), "EACCES: scripts/kvm-env is not offered as the fix");
	kvm_host_open_error(ENOENT, m, sizeof(m));
	ok(strstr(m, "/dev/kvm: No such file or directory: this host has no KVM") == m &&
	   strstr(m, "kvm_intel or kvm_amd") && strstr(m, "scripts/kvm-env"),
	   "ENOENT: no KVM here: the modules to load, or the nested tier: %s", m);

	snprintf(root, sizeof(root), "/tmp/vpmu-kvm-host.XXXXXX");
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	ok(!kvm_host_is_pvm(root), "no KVM module: not kvm_pvm");
	module("kvm_pvm", 1);
	ok(kvm_host_is_pvm(root), "kvm_pvm alone: kvm_pvm");
	module("kvm_amd", 1);
	ok(!kvm_host_is_pvm(root), "kvm_pvm beside kvm_amd: hardware KVM serves /dev/kvm");
	module("kvm_amd", 0);
	module("kvm_intel", 1);
	ok(!kvm_host_is_pvm(root), "kvm_pvm beside kvm_intel: hardware KVM serves /dev/kvm");
	module("kvm_intel", 0);
	module("kvm_pvm", 0);
	rmdir(root);

	const char *h = kvm_host_internal_error_hint(KVM_INTERNAL_ERROR_EMULATION, true);
	ok(strstr(h, "kvm_pvm") && strstr(h, "kvm_intel or kvm_amd") && strstr(h, "scripts/kvm-env"),
	   "suberror 1 on kvm_pvm: the cause and both ways out: %s", h);
	h = kvm_host_internal_error_hint(KVM_INTERNAL_ERROR_EMULATION, false);
	ok(strstr(h, "could not emulate") && !strstr(h, "kvm_pvm"), "suberror 1 on hardware KVM: what it means");
	ok(!*kvm_host_internal_error_hint(3, true), "another suberror: nothing added");
	return tap_done();
}
