/* SPDX-License-Identifier: MIT */
/*
 * A running VM's accounting for its live socket (vpmu-run --name, stat_server.h;
 * docs/accounting.md, "Live view").  A snapshot asks every vCPU thread for its
 * counts (vpmu_kvm_vcpu_snapshot_request), gives the threads LIVE_WAIT_MS to
 * answer at an exit they take anyway, kicks the ones still in the guest (one
 * exit each, the cost of a host timer tick), and takes what they published
 * within LIVE_KICK_WAIT_MS; a vCPU that did not answer by then (a stuck
 * thread) is reported with its last snapshot.
 */
#ifndef VPMU_TOOLS_LIVE_VM_H
#define VPMU_TOOLS_LIVE_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "accounting/acct_formats.h"
#include "vpmu/kvm_x86.h"

#define LIVE_WAIT_MS 10
#define LIVE_KICK_WAIT_MS 200

struct live_vcpu {
	struct vpmu_kvm_vcpu *kv;
	pthread_t thread;            /* kicked with kick_signal */
};

/* Filled before the server starts, then read-only: kv set up, host bound. */
struct live_vm {
	const char *name;
	struct vpmu_vm *vm;
	const struct vpmu_host *host;
	int kick_signal;
	unsigned nr_vcpus;
	struct live_vcpu vcpu[VPMU_MAX_VCPUS];
	unsigned long long stale;    /* vCPUs reported with an older snapshot (server thread) */
	bool shared;                 /* vpmu-run --stat-group: group may read the socket */
	gid_t group;
};


struct stat_server;
/* Opens lv's socket, lv->name.sock in the runtime directory (stat_dir.h), and
 * says where on stderr; NULL (with the reason on stderr) if it cannot: the VM
 * runs on without one.  lv must stay valid until live_vm_unserve. */
struct stat_server *live_vm_serve(struct live_vm *lv);
/* Closes it (NULL: nothing) and says on stderr what it served and refused. */
void live_vm_unserve(struct stat_server *s, const struct live_vm *lv);

#endif
