/* SPDX-License-Identifier: MIT */
/*
 * The state blob's wire format (save_format.h), version 1:
 *
 *   header, 104 bytes
 *     0  u32 magic "VPMU"          4  u16 format version    6  u16 kind (1 vCPU, 2 VM)
 *     8  u32 header length        12  u32 payload length
 *    16  char[32] model           48  char[16] CPUID vendor  (NUL-padded)
 *    64  u32 family  68 u32 model  72 u32 stepping
 *    76  u8 perfmon version, counters, general, fixed, first fixed,
 *        general width, fixed width, flags (1 hyper-threading, 2 strict)
 *    84  u16 registers            86  u16 hyper-thread      88  u32 vCPU index
 *    92  u32 reserved (0)         96  u64 counters with a register
 *   payload, vCPU: u16 n, n x (u32 address, u8 space, u64 value); u8 counters,
 *     that many u64 values; u64 interrupting counters, one u64 i-mode start
 *     each (lowest first); u8 PMI pending, u64 its counters; u8 events, u8
 *     counts, u8 rules, then u64 totals: per counter, per event, the counts of
 *     VPMU_TOTALS_COUNTS in its order, per rule
 *   payload, VM: u8 event filter present, u64 its digest
 *   u64 XXH3-64 (seed 0) of header and payload
 *
 * Every multi-byte field is little-endian.  A reader checks the magic and
 * the version before it trusts any other field, then every length, then the
 * checksum, then what the header says against the destination, and only then
 * the payload, each field against the limits of the library.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "save_format.h"

_Static_assert(2 + VPMU_MAX_REGS * 13 + 1 + VPMU_MAX_CTRS * 8 + 8 + VPMU_MAX_CTRS * 8 + 9 + 3 +
		       sizeof(struct vpmu_totals) + STATE_HEADER_LEN + STATE_CHECKSUM_LEN <=
	       VPMU_STATE_MAX, "VPMU_STATE_MAX holds the largest vCPU blob");

int state_error(char *err, int rc, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, VPMU_STATE_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* ---- little-endian fields ---- */
struct writer {
	uint8_t *p;
};
/* Inline with a constant width: one store on a little-endian host. */
static inline __attribute__((always_inline)) void put(struct writer *w, uint64_t v,
						       unsigned bytes)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(w->p, &v, bytes);
	w->p += bytes;
#else
	for (unsigned i = 0; i < bytes; i++)
		*w->p++ = (uint8_t)(v >> (8 * i));
#endif
}
static void put_bytes(struct writer *w, const char *s, unsigned n)
{
	size_t l = strnlen(s, n - 1);   /* at least one NUL */
	memcpy(w->p, s, l);
	memset(w->p + l, 0, n - l);
	w->p += n;
}

struct reader {
	const uint8_t *p, *end;
	bool short_read;
};
static inline __attribute__((always_inline)) uint64_t get(struct reader *r, unsigned bytes)
{
	uint64_t v = 0;
	if ((size_t)(r->end - r->p) < bytes) {
		r->short_read = true;
		r->p = r->end;
		return 0;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, r->p, bytes);
#else
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
#endif
	r->p += bytes;
	return v;
}

/* ---- the header ---- */
void state_header_of(const struct vpmu_vm *vm, const struct vpmu_vcpu *vcpu,
		     struct state_header *h)
{
	const struct vpmu_pmu *p = &vm->pmu;
	const char *vendor = NULL;
	unsigned family = 0, cpumodel = 0, stepping = 0;
	memset(h, 0, sizeof(*h));
	vpmu_vm_identity(vm, &vendor, &family, &cpumodel, &stepping);
	h->kind = vcpu ? STATE_KIND_VCPU : STATE_KIND_VM;
	/* memset above: the copies stay NUL-terminated. */
	memcpy(h->model, vm->model->name, strnlen(vm->model->name, sizeof(h->model) - 1));
	if (vendor)
		memcpy(h->vendor, vendor, strnlen(vendor, sizeof(h->vendor) - 1));
	h->family = family;
	h->cpumodel = cpumodel;
	h->stepping = stepping;
	h->pmu_version = (uint8_t)p->version;
	h->nr_ctrs = (uint8_t)p->nr_ctrs;
	h->nr_general = (uint8_t)p->nr_general;
	h->nr_fixed = (uint8_t)p->nr_fixed;
	h->fixed_base = (uint8_t)p->fixed_base;
	h->general_width = p->nr_general ? p->width[0] : 0;
	h->fixed_width = p->nr_fixed ? p->width[p->fixed_base] : 0;
	h->flags = (uint8_t)((vm->opts.ht ? STATE_FLAG_HT : 0) |
			     (vm->opts.strict ? STATE_FLAG_STRICT : 0));
	h->nr_regs = (uint16_t)p->nr_regs;
	h->thread = vcpu ? (uint16_t)vcpu->ctx.thread : 0;
	h->vcpu = vcpu ? vcpu->ctx.vcpu : 0;
	h->ctr_regs = vm->ctr_regs;
}

static void header_write(struct writer *w, const struct state_header *h, size_t payload)
{
	put(w, STATE_MAGIC, 4);
	put(w, VPMU_STATE_VERSION, 2);
	put(w, h->kind, 2);
	put(w, STATE_HEADER_LEN, 4);
	put(w, payload, 4);
	put_bytes(w, h->model, STATE_NAME_LEN);
	put_bytes(w, h->vendor, STATE_VENDOR_LEN);
	put(w, h->family, 4);
	put(w, h->cpumodel, 4);
	put(w, h->stepping, 4);
	const uint8_t geometry[8] = { h->pmu_version, h->nr_ctrs, h->nr_general, h->nr_fixed,
				      h->fixed_base, h->general_width, h->fixed_width, h->flags };
	for (unsigned i = 0; i < sizeof(geometry); i++)
		put(w, geometry[i], 1);
	put(w, h->nr_regs, 2);
	put(w, h->thread, 2);
	put(w, h->vcpu, 4);
	put(w, 0, 4);
	put(w, h->ctr_regs, 8);
}

static void checksum_write(uint8_t *buf, size_t n)
{
	struct writer w = { buf + n };
	put(&w, XXH3_64bits(buf, n), 8);
}

/* The header of a blob of `len` bytes, checked as far as the format goes,
 * then against `want` (the destination's).  On success r reads the payload. */
static int header_read(const uint8_t *buf, size_t len, const struct state_header *want,
		       struct reader *r, char *err)
{
	struct state_header h;
	if (!buf)
		return state_error(err, -EINVAL, "no blob");
	if (len < 8)
		return state_error(err, -EINVAL, "truncated: %zu bytes, not even a header", len);
	struct reader head = { buf, buf + len, false };
	if (get(&head, 4) != STATE_MAGIC)
		return state_error(err, -EINVAL, "bad magic: not a vpmu state blob");
	unsigned version = (unsigned)get(&head, 2);
	if (version != VPMU_STATE_VERSION)
		return state_error(err, -EPROTO, "format version %u: this library reads version %u",
				   version, VPMU_STATE_VERSION);
	h.kind = (unsigned)get(&head, 2);
	uint64_t header_len = get(&head, 4), payload_len = get(&head, 4);
	if (len < STATE_HEADER_LEN + STATE_CHECKSUM_LEN)
		return state_error(err, -EINVAL, "truncated: %zu bytes, shorter than a header", len);
	if (header_len != STATE_HEADER_LEN)
		return state_error(err, -EINVAL, "header length %llu: version %u's is %u",
				   (unsigned long long)header_len, VPMU_STATE_VERSION,
				   STATE_HEADER_LEN);
	uint64_t total = header_len + payload_len + STATE_CHECKSUM_LEN;
	if (total != len)
		return state_error(err, -EINVAL, "%s: %zu bytes, the header says %llu",
				   len < total ? "truncated" : "oversized", len,
				   (unsigned long long)total);
	size_t n = (size_t)(header_len + payload_len);
	struct reader tail = { buf + n, buf + len, false };
	uint64_t sum = get(&tail, 8);
	if (sum != XXH3_64bits(buf, n))
		return state_error(err, -EINVAL, "checksum mismatch: the blob is corrupt");
	memcpy(h.model, head.p, STATE_NAME_LEN);
	head.p += STATE_NAME_LEN;
	memcpy(h.vendor, head.p, STATE_VENDOR_LEN);
	head.p += STATE_VENDOR_LEN;
	h.family = (uint32_t)get(&head, 4);
	h.cpumodel = (uint32_t)get(&head, 4);
	h.stepping = (uint32_t)get(&head, 4);
	uint8_t *geometry[8] = { &h.pmu_version, &h.nr_ctrs, &h.nr_general, &h.nr_fixed,
				 &h.fixed_base, &h.general_width, &h.fixed_width, &h.flags };
	for (unsigned i = 0; i < 8; i++)
		*geometry[i] = (uint8_t)get(&head, 1);
	h.nr_regs = (uint16_t)get(&head, 2);
	h.thread = (uint16_t)get(&head, 2);
	h.vcpu = (uint32_t)get(&head, 4);
	uint64_t reserved = get(&head, 4);
	h.ctr_regs = get(&head, 8);
	if (h.model[STATE_NAME_LEN - 1] || h.vendor[STATE_VENDOR_LEN - 1] || reserved)
		return state_error(err, -EINVAL, "malformed header");
	if (h.kind != want->kind)
		return state_error(err, -EPROTO, "a %s's state, not a %s's",
				   h.kind == STATE_KIND_VM ? "VM" : h.kind == STATE_KIND_VCPU ?
				   "vCPU" : "unknown kind",
				   want->kind == STATE_KIND_VM ? "VM" : "vCPU");
	if (strcmp(h.model, want->model))
		return state_error(err, -EPROTO, "model %s, the destination is %s", h.model,
				   want->model);
	if (strcmp(h.vendor, want->vendor) || h.family != want->family ||
	    h.cpumodel != want->cpumodel || h.stepping != want->stepping)
		return state_error(err, -EPROTO, "CPU %s family %u model %u stepping %u, the "
				   "destination presents %s %u/%u/%u", h.vendor, h.family,
				   h.cpumodel, h.stepping, want->vendor, want->family,
				   want->cpumodel, want->stepping);
	if (h.pmu_version != want->pmu_version || h.nr_ctrs != want->nr_ctrs ||
	    h.nr_general != want->nr_general || h.nr_fixed != want->nr_fixed ||
	    h.fixed_base != want->fixed_base || h.general_width != want->general_width ||
	    h.fixed_width != want->fixed_width || h.nr_regs != want->nr_regs ||
	    h.ctr_regs != want->ctr_regs)
		return state_error(err, -EPROTO, "PMU v%u with %u+%u counters of %u/%u bits, the "
				   "destination's is v%u with %u+%u of %u/%u bits (or other registers)",
				   h.pmu_version, h.nr_general, h.nr_fixed, h.general_width,
				   h.fixed_width, want->pmu_version, want->nr_general,
				   want->nr_fixed, want->general_width, want->fixed_width);
	if (h.flags != want->flags)
		return state_error(err, -EPROTO, "VM options %#x (1 hyper-threading, 2 strict), "
				   "the destination's %#x", h.flags, want->flags);
	if (h.thread != want->thread)
		return state_error(err, -EPROTO, "hyper-thread %u's state onto thread %u",
				   h.thread, want->thread);
	*r = (struct reader){ buf + header_len, buf + n, false };
	return 0;
}

/* ---- a vCPU's blob ---- */
size_t state_vcpu_size(const struct state_header *h, const struct state_vcpu *s)
{
	return STATE_HEADER_LEN + 2 + s->nr_regs * 13u + 1 + h->nr_ctrs * 8u + 8 +
	       (unsigned)__builtin_popcountll(s->imode) * 8u + 9 + 3 +
	       (h->nr_ctrs + VPMU_EV_NR + VPMU_TOTALS_NR + VPMU_MAX_RULES) * 8u +
	       STATE_CHECKSUM_LEN;
}

void state_vcpu_write(const struct state_header *h, const struct state_vcpu *s, uint8_t *buf)
{
	size_t size = state_vcpu_size(h, s);
	struct writer w = { buf };
	header_write(&w, h, size - STATE_HEADER_LEN - STATE_CHECKSUM_LEN);
	put(&w, s->nr_regs, 2);
	for (unsigned i = 0; i < s->nr_regs; i++) {
		put(&w, s->reg[i].addr, 4);
		put(&w, s->reg[i].space, 1);
		put(&w, s->reg[i].value, 8);
	}
	put(&w, h->nr_ctrs, 1);
	for (unsigned i = 0; i < h->nr_ctrs; i++)
		put(&w, s->ctr[i], 8);
	put(&w, s->imode, 8);
	for (uint64_t m = s->imode; m; m &= m - 1)
		put(&w, s->ireset[__builtin_ctzll(m)], 8);
	put(&w, s->pmi_pending, 1);
	put(&w, s->pmi_ctrs, 8);
	put(&w, VPMU_EV_NR, 1);
	put(&w, VPMU_TOTALS_NR, 1);
	put(&w, VPMU_MAX_RULES, 1);
	const struct vpmu_totals *t = &s->totals;
	for (unsigned i = 0; i < h->nr_ctrs; i++)
		put(&w, t->pmc[i], 8);
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		put(&w, t->events[e], 8);
#define PUT_COUNT_(f, ...) put(&w, t->f, 8);
	VPMU_TOTALS_COUNTS(PUT_COUNT_)
#undef PUT_COUNT_
	for (unsigned r = 0; r < VPMU_MAX_RULES; r++)
		put(&w, t->violations[r], 8);
	checksum_write(buf, size - STATE_CHECKSUM_LEN);
}

int state_vcpu_read(const uint8_t *buf, size_t len, const struct state_header *want,
		    struct state_vcpu *s, char *err)
{
	struct reader r;
	int rc = header_read(buf, len, want, &r, err);
	if (rc)
		return rc;
	memset(s, 0, sizeof(*s));
	s->nr_regs = (unsigned)get(&r, 2);
	if (s->nr_regs > want->nr_regs)
		return state_error(err, -EINVAL, "%u registers, the PMU has %u", s->nr_regs,
				   want->nr_regs);
	for (unsigned i = 0; i < s->nr_regs; i++) {
		s->reg[i].addr = (uint32_t)get(&r, 4);
		s->reg[i].space = (uint8_t)get(&r, 1);
		s->reg[i].value = get(&r, 8);
	}
	if (get(&r, 1) != want->nr_ctrs)
		return state_error(err, -EINVAL, "malformed payload: counters");
	for (unsigned i = 0; i < want->nr_ctrs; i++)
		s->ctr[i] = get(&r, 8);
	s->imode = get(&r, 8);
	if (want->nr_ctrs < 64 && (s->imode >> want->nr_ctrs))
		return state_error(err, -EINVAL, "malformed payload: interrupting counters");
	for (uint64_t m = s->imode; m; m &= m - 1)
		s->ireset[__builtin_ctzll(m)] = get(&r, 8);
	uint64_t pending = get(&r, 1);
	s->pmi_pending = pending != 0;
	s->pmi_ctrs = get(&r, 8);
	if (pending > 1 || (!pending && s->pmi_ctrs) || (pending && !s->pmi_ctrs) ||
	    (want->nr_ctrs < 64 && (s->pmi_ctrs >> want->nr_ctrs)))
		return state_error(err, -EINVAL, "malformed payload: pending PMI");
	if (get(&r, 1) != VPMU_EV_NR || get(&r, 1) != VPMU_TOTALS_NR ||
	    get(&r, 1) != VPMU_MAX_RULES)
		return state_error(err, -EINVAL, "malformed payload: accounting");
	struct vpmu_totals *t = &s->totals;
	for (unsigned i = 0; i < want->nr_ctrs; i++)
		t->pmc[i] = get(&r, 8);
	for (unsigned e = 0; e < VPMU_EV_NR; e++)
		t->events[e] = get(&r, 8);
#define GET_COUNT_(f, ...) t->f = get(&r, 8);
	VPMU_TOTALS_COUNTS(GET_COUNT_)
#undef GET_COUNT_
	for (unsigned k = 0; k < VPMU_MAX_RULES; k++)
		t->violations[k] = get(&r, 8);
	if (r.short_read || r.p != r.end)
		return state_error(err, -EINVAL, "malformed payload: %s",
				   r.short_read ? "it ends early" : "bytes past its end");
	return 0;
}

/* ---- a VM's blob ---- */
size_t state_vm_size(void)
{
	return STATE_HEADER_LEN + 9 + STATE_CHECKSUM_LEN;
}

void state_vm_write(const struct state_header *h, const struct state_vm *s, uint8_t *buf)
{
	struct writer w = { buf };
	header_write(&w, h, 9);
	put(&w, s->filter, 1);
	put(&w, s->filter_digest, 8);
	checksum_write(buf, STATE_HEADER_LEN + 9);
}

int state_vm_read(const uint8_t *buf, size_t len, const struct state_header *want,
		  struct state_vm *s, char *err)
{
	struct reader r;
	int rc = header_read(buf, len, want, &r, err);
	if (rc)
		return rc;
	uint64_t present = get(&r, 1);
	s->filter = present != 0;
	s->filter_digest = get(&r, 8);
	if (r.short_read || r.p != r.end || present > 1 || (!present && s->filter_digest))
		return state_error(err, -EINVAL, "malformed payload");
	return 0;
}
