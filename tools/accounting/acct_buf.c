/* SPDX-License-Identifier: MIT */
/* The formats' output buffer (acct_buf.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "acct_buf.h"

const char acct_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The pool of acct_mem_get: a few blocks, bounded in number and bytes. */
#define POOL_N 16
#define POOL_BYTES (48u << 20)
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t size; } pool[POOL_N];
static size_t pool_bytes;

void *acct_mem_get(size_t size, size_t *got)
{
	void *p = NULL;
	unsigned best = POOL_N;
	pthread_mutex_lock(&pool_mu);
	for (unsigned i = 0; i < POOL_N; i++)
		if (pool[i].p && pool[i].size >= size && (best == POOL_N || pool[i].size < pool[best].size))
			best = i;
	if (best < POOL_N) {
		p = pool[best].p;
		*got = pool[best].size;
		pool_bytes -= pool[best].size;
		pool[best].p = NULL;
	}
	pthread_mutex_unlock(&pool_mu);
	if (!p) {
		p = malloc(size);
		*got = p ? size : 0;
	}
	return p;
}

void acct_mem_put(void *p, size_t size)
{
	if (!p)
		return;
	pthread_mutex_lock(&pool_mu);
	for (unsigned i = 0; i < POOL_N && p; i++)
		if (!pool[i].p && pool_bytes + size <= POOL_BYTES) {
			pool[i].p = p;
			pool[i].size = size;
			pool_bytes += size;
			p = NULL;
		}
	pthread_mutex_unlock(&pool_mu);
	free(p);
}

static int buf_alloc(struct acct_buf *b, FILE *out, size_t cap)
{
	size_t got;
	b->out = out;
	b->len = 0;
	b->err = 0;
	b->grow = !out;
	b->buf = acct_mem_get(cap + ACCT_BUF_SLACK, &got);
	b->cap = b->buf ? got - ACCT_BUF_SLACK : 0;
	return b->buf ? 0 : -ENOMEM;
}

int acct_buf_open(struct acct_buf *b, FILE *out)
{
	return buf_alloc(b, out, ACCT_BUF_CAP);
}

int acct_buf_mem(struct acct_buf *b)
{
	return buf_alloc(b, NULL, 2 * ACCT_UNIT_BYTES);
}

void acct_buf_mem_free(struct acct_buf *b)
{
	acct_mem_put(b->buf, b->cap + ACCT_BUF_SLACK);
	b->buf = NULL;
	b->len = b->cap = 0;
}

/* Room for need bytes (and the slack past them) in a growing buffer; on
 * failure the error sticks and writing starts over at 0, as a fixed buffer's. */
static int grow_to(struct acct_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;
	while (cap < need)
		cap *= 2;
	if (cap == b->cap)
		return 0;
	p = b->err ? NULL : realloc(b->buf, cap + ACCT_BUF_SLACK);
	if (!p) {
		b->err = b->err ? b->err : -ENOMEM;
		b->len = 0;
		return -ENOMEM;
	}
	b->buf = p;
	b->cap = cap;
	return 0;
}

void acct_buf_flush(struct acct_buf *b)
{
	if (b->grow) {
		grow_to(b, b->len);
		return;
	}
	if (b->len && !b->err) {
		if (!b->out) {
			b->err = -ENAMETOOLONG;
		} else {
			errno = 0;
			if (fwrite(b->buf, 1, b->len, b->out) != b->len)
				b->err = errno ? -errno : -EIO;
		}
	}
	b->len = 0;
}

int acct_buf_close(struct acct_buf *b)
{
	int err;
	acct_buf_flush(b);
	acct_buf_mem_free(b);
	err = b->err;
	if (!err && b->out) {
		errno = 0;
		if (fflush(b->out) || ferror(b->out))
			err = errno ? -errno : -EIO;
	}
	return err;
}

void acct_buf_put_through(struct acct_buf *b, const char *s, size_t n)
{
	acct_buf_flush(b);
	if (b->err || !n)
		return;
	if (!b->out) {
		acct_put(b, s, n);
		return;
	}
	errno = 0;
	if (fwrite(s, 1, n, b->out) != n)
		b->err = errno ? -errno : -EIO;
}

void acct_buf_put_slow(struct acct_buf *b, const char *s, size_t n)
{
	if (b->grow) {
		if (grow_to(b, b->len + n) == 0) {
			memcpy(b->buf + b->len, s, n);
			b->len += n;
		}
		return;
	}
	acct_buf_flush(b);
	if (n > b->cap) {
		if (!b->err && b->out) {
			errno = 0;
			if (fwrite(s, 1, n, b->out) != n)
				b->err = errno ? -errno : -EIO;
		} else if (!b->err) {
			b->err = -ENAMETOOLONG;
		}
		return;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if none (RFC 3629
 * section 4's table: no overlongs, no surrogates, nothing past U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

void acct_put_esc(struct acct_buf *b, const char *s, size_t n)
{
	size_t run = 0, i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t l = c < 0x80 ? 1 : utf8_seq((const unsigned char *)s + i, n - i);
		if (l && c != '\\' && c != '"' && c != '\n') {
			i += l;
			continue;
		}
		acct_put(b, s + run, i - run);
		if (c == '\\')
			ACCT_PUT_LIT(b, "\\\\");
		else if (c == '"')
			ACCT_PUT_LIT(b, "\\\"");
		else if (c == '\n')
			ACCT_PUT_LIT(b, "\\n");
		else
			ACCT_PUT_LIT(b, "\xEF\xBF\xBD");
		run = ++i;
	}
	acct_put(b, s + run, n - run);
}
