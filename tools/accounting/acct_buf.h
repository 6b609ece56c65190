/* SPDX-License-Identifier: MIT */
/*
 * The output buffer the text formats (text, domstats, prometheus) write
 * through.  Issue 10 asks for 1,000 VMs of 8 vCPUs in 10 ms; fprintf's format
 * parsing per value costs more than that alone (docs/performance.md
 * "Accounting export at scale"), so the formats copy fixed strings and convert
 * numbers themselves into one buffer, written out with one fwrite per
 * ACCT_BUF_CAP bytes.  1 MiB, because the kernel's cost of writing to a new
 * file grows with the number of write(2)s: 10 MB took 6.4 ms in 64 KiB writes
 * and 3.5 ms in 1 MiB ones on the 2-core VM of docs/performance.md.  The
 * buffers come from a pool kept between exports (acct_mem_get below), and the
 * formats cut their output into units that a second thread may format
 * (acct_buf_units).
 */
#ifndef VPMU_TOOLS_ACCT_BUF_H
#define VPMU_TOOLS_ACCT_BUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef ACCT_BUF_CAP
#define ACCT_BUF_CAP (1024u * 1024u)
#endif
/* What a writer may put past cap before it checks again: one line, whole. */
#define ACCT_BUF_SLACK 1024u

struct acct_buf {
	FILE *out;      /* NULL: memory only (grow, or a fixed buffer that must not fill up) */
	char *buf;
	size_t len, cap;
	int err;
	int grow;       /* out NULL: flushing doubles the room instead (acct_buf_mem) */
};

/* A buffer of ACCT_BUF_CAP (+ slack) for out; 0 or -ENOMEM. */
int acct_buf_open(struct acct_buf *b, FILE *out);
/* Writes what is left, flushes out, frees; the first error, or 0. */
int acct_buf_close(struct acct_buf *b);
void acct_buf_flush(struct acct_buf *b);
void acct_buf_put_slow(struct acct_buf *b, const char *s, size_t n);
/* What b holds, then s[0..n) written as it is, not copied into b (out only). */
void acct_buf_put_through(struct acct_buf *b, const char *s, size_t n);
/* A growable buffer in memory, for one unit of acct_buf_units; 0 or -ENOMEM. */
int acct_buf_mem(struct acct_buf *b);
/* Gives b's memory back (to the pool below, or free); b->buf NULL after. */
void acct_buf_mem_free(struct acct_buf *b);

/*
 * Memory the exports reuse from one to the next.  An exporter writes the same
 * ~10 MB every scrape; each fresh block of 1 MiB that malloc maps costs 256
 * page faults, 0.75 ms on the VM of docs/performance.md ("Accounting export
 * at scale"), as much as formatting 1.5 MB.  A few blocks are kept (mutex:
 * exports may run on several threads); a block fits a request of at most its
 * size.  acct_mem_put(NULL, 0) is a no-op.
 */
void *acct_mem_get(size_t size, size_t *got);
void acct_mem_put(void *p, size_t size);

/*
 * Writes units 0 .. n-1 to b in that order, fn(ctx, u, ub) formatting unit u
 * into ub (b itself, or a memory buffer; fn only reads ctx, so units may be
 * formatted at once).  With vcpus >= acct_par_min_vcpus (and 2 CPUs in the affinity)
 * a second thread formats units into memory while this one formats, and writes
 * the units in order as they are done (the file's write(2)s overlap the
 * formatting: docs/performance.md).  Returns b->err, or -ENOMEM.
 */
typedef void (*acct_unit_fn)(void *ctx, unsigned u, struct acct_buf *ub);
int acct_buf_units(struct acct_buf *b, unsigned n, acct_unit_fn fn, void *ctx, size_t vcpus);
/* fn(ctx, 0) and fn(ctx, 1), on two threads under the same rule. */
void acct_par2(void (*fn)(void *ctx, unsigned half), void *ctx, size_t vcpus);
/* 256 by default; tests set it to 0 (always a thread) or SIZE_MAX (never). */
extern size_t acct_par_min_vcpus;
/* About how many bytes a unit should hold: one write(2) each (acct_buf_units). */
#define ACCT_UNIT_BYTES (512u * 1024u)

struct acct_vm;
/* What a format's unit function gets (ctx) when its units are ranges of VMs:
 * unit u is VMs first[u] .. first[u+1]-1. */
struct acct_vm_units {
	const struct acct_vm *vms;
	unsigned *first;
};
/* Writes n VMs to out in units of about ACCT_UNIT_BYTES (acct_buf_units),
 * counting bytes_per_vcpu for each vCPU and as much again for a VM's own
 * lines; fn gets a struct acct_vm_units.  0, -EINVAL, -ENOMEM, or the
 * write's negative errno. */
int acct_write_by_vm(FILE *out, const struct acct_vm *vms, unsigned n, size_t bytes_per_vcpu,
		     acct_unit_fn fn);
/* s[0..n) as a Prometheus label value: \ " and newline escaped, bytes that are
 * not UTF-8 as U+FFFD. */
void acct_put_esc(struct acct_buf *b, const char *s, size_t n);

static inline void acct_put(struct acct_buf *b, const char *s, size_t n)
{
	if (b->len + n <= b->cap) {
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		acct_buf_put_slow(b, s, n);
	}
}

#define ACCT_PUT_LIT(b, lit) acct_put((b), (lit), sizeof(lit) - 1)

static inline void acct_put_str(struct acct_buf *b, const char *s)
{
	acct_put(b, s, strlen(s));
}

extern const char acct_digits2[201];

/* v in decimal, ending at end; returns where it starts (20 digits at most). */
static inline char *acct_u64_dec(char *end, uint64_t v)
{
	char *p = end;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = acct_digits2[d + 1];
		*--p = acct_digits2[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;
		*--p = acct_digits2[d + 1];
		*--p = acct_digits2[d];
	} else {
		*--p = (char)('0' + v);
	}
	return p;
}

static inline void acct_put_u64(struct acct_buf *b, uint64_t v)
{
	char tmp[24], *end = tmp + sizeof(tmp);
	char *p = acct_u64_dec(end, v);
	acct_put(b, p, (size_t)(end - p));
}

#endif
