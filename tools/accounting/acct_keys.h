/* SPDX-License-Identifier: MIT */
/*
 * The keys of a VM's accounting in libvirt's form (docs/accounting.md,
 * "domstats: libvirt's form, vpmu's keys"), walked once for every consumer: the domstats
 * text (tools/accounting/acct_domstats.c) and libvirt typed parameters
 * (tools/accounting/libvirt/acct_typed_params.c) both print what this walker yields, so
 * their keys cannot drift apart.
 */
#ifndef VPMU_TOOLS_ACCT_KEYS_H
#define VPMU_TOOLS_ACCT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "acct_snapshot.h"

/*
 * A value's type, as libvirt types the same kind of value in
 * virConnectGetAllDomainStats (include/libvirt/libvirt-domain.h): counts are
 * unsigned long long as libvirt's perf.* are; numbers of things are unsigned int as
 * "vcpu.current" is; names are strings.
 */
enum acct_key_type {
	ACCT_KEY_ULLONG,    /* VIR_TYPED_PARAM_ULLONG */
	ACCT_KEY_UINT,      /* VIR_TYPED_PARAM_UINT */
	ACCT_KEY_STRING,    /* VIR_TYPED_PARAM_STRING */
};

struct acct_key {
	const char *key;            /* "vpmu.cpu_cycles", "vpmu.vcpu.0.pmis", ... */
	size_t len;                 /* strlen(key) */
	enum acct_key_type type;
	uint64_t u;                 /* ULLONG, UINT (then at most UINT_MAX) */
	const char *s;              /* STRING */
};

/* Room for the longest key the walker builds, NUL included. */
#define ACCT_KEY_MAX 128

/*
 * Calls fn(ctx, k) for every key of vm, in the order `virsh domstats --perf`
 * would print them; k and its strings live until fn returns.  Keys are built
 * by copying, not formatting, because the domstats text of 1,000 VMs goes
 * through here (issue 10's 10 ms, tools/accounting/acct_buf.h).  Returns 0, the first
 * nonzero value fn returns (the walk stops there), -EINVAL for a NULL
 * argument or a model name without its NUL, or -ENAMETOOLONG for a key of
 * ACCT_KEY_MAX bytes or more.
 */
typedef int (*acct_key_fn)(void *ctx, const struct acct_key *k);
int acct_domstats_walk(const struct acct_vm *vm, acct_key_fn fn, void *ctx);

#endif
