/* SPDX-License-Identifier: MIT */
/* A running VM's live accounting (live_vm.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "live_vm.h"
#include "stat_dir.h"
#include "stat_server.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How many vCPUs have not answered their request yet. */
static unsigned pending(const struct live_vm *lv, const uint64_t *want, bool *answered)
{
	unsigned n = 0;
	for (unsigned i = 0; i < lv->nr_vcpus; i++) {
		struct vpmu_kvm_snapshot s;
		if (!answered[i] && vpmu_kvm_vcpu_snapshot(lv->vcpu[i].kv, &s) == 0 &&
		    s.generation >= want[i])
			answered[i] = true;
		n += !answered[i];
	}
	return n;
}

static void wait_answers(const struct live_vm *lv, const uint64_t *want, bool *answered,
			 unsigned ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;
	const struct timespec tick = { 0, 200000 };   /* 0.2 ms */
	while (pending(lv, want, answered) && now_ns() < end)
		nanosleep(&tick, NULL);
}

/* One snapshot of lv (each vCPU read once); release with acct_vm_release. */
static int live_vm_collect(struct live_vm *lv, struct acct_vm *out)
{
	uint64_t want[VPMU_MAX_VCPUS];
	bool answered[VPMU_MAX_VCPUS] = { false };
	if (!lv || !out || lv->nr_vcpus > VPMU_MAX_VCPUS)
		return -EINVAL;
	for (unsigned i = 0; i < lv->nr_vcpus; i++)
		want[i] = vpmu_kvm_vcpu_snapshot_request(lv->vcpu[i].kv);
	wait_answers(lv, want, answered, LIVE_WAIT_MS);
	bool kicked = false;
	for (unsigned i = 0; i < lv->nr_vcpus; i++)
		if (!answered[i]) {
			pthread_kill(lv->vcpu[i].thread, lv->kick_signal);
			kicked = true;
		}
	if (kicked)
		wait_answers(lv, want, answered, LIVE_KICK_WAIT_MS);
	int r = acct_vm_begin(out, lv->name, lv->vm, lv->host, lv->nr_vcpus);
	for (unsigned i = 0; r == 0 && i < lv->nr_vcpus; i++) {
		struct vpmu_kvm_snapshot s;
		if ((r = vpmu_kvm_vcpu_snapshot(lv->vcpu[i].kv, &s)) == 0)
			r = acct_vm_add_vcpu(out, i, &s.totals, &s.stats);
		lv->stale += s.generation < want[i];
	}
	if (r < 0)
		acct_vm_release(out);
	return r;
}

/* stat_snapshot_fn: the snapshot as the JSON document the socket answers. */
static int live_vm_json(void *ctx, char **buf, size_t *len)
{
	struct acct_vm snap = { 0 };
	int r = live_vm_collect(ctx, &snap);
	if (r < 0)
		return r;
	FILE *m = open_memstream(buf, len);
	if (!m) {
		acct_vm_release(&snap);
		return -ENOMEM;
	}
	r = acct_write(m, ACCT_JSON, &snap, 1);
	if (fclose(m) != 0 && r == 0)
		r = -EIO;
	acct_vm_release(&snap);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

struct stat_server *live_vm_serve(struct live_vm *lv)
{
	char dir[256], path[sizeof(dir) + STAT_NAME_MAX + 8], err[320];
	struct stat_server *s = NULL;
	gid_t group = lv->shared ? lv->group : STAT_NO_GROUP;
	int r = lv->shared ? stat_dir_get_group(dir, sizeof(dir), group, err, sizeof(err))
			   : stat_dir_get(dir, sizeof(dir), true, err, sizeof(err));
	if (r == 0 && (r = stat_sock_path(path, sizeof(path), dir, lv->name)) < 0)
		snprintf(err, sizeof(err), "socket path too long in %s", dir);
	if (r == 0)
		r = stat_server_start_group(path, group, live_vm_json, lv, &s, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "vpmu-run: no live accounting for '%s': %s\n", lv->name, err);
		return NULL;
	}
	fprintf(stderr, "vpmu-run: live accounting: %s (vpmu-stat %s)\n", path, lv->name);
	return s;
}

void live_vm_unserve(struct stat_server *s, const struct live_vm *lv)
{
	struct stat_server_counts n;
	if (!s)
		return;
	stat_server_stop(s, &n);
	fprintf(stderr, "vpmu-run: live accounting served %llu snapshot(s); refused: %llu busy, "
		"%llu denied, %llu bad requests, %llu timeouts; %llu vCPU(s) answered late\n",
		(unsigned long long)n.served, (unsigned long long)n.busy,
		(unsigned long long)n.denied, (unsigned long long)n.bad_requests,
		(unsigned long long)n.timeouts, lv->stale);
}
