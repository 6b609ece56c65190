/* SPDX-License-Identifier: MIT */
/* The formats' output buffer (acct_buf.h). */
#include <errno.h>
#include <stdlib.h>

#include "acct_buf.h"

const char acct_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

int acct_buf_open(struct acct_buf *b, FILE *out)
{
	b->out = out;
	b->len = 0;
	b->cap = ACCT_BUF_CAP;
	b->err = 0;
	b->buf = malloc(ACCT_BUF_CAP + ACCT_BUF_SLACK);
	return b->buf ? 0 : -ENOMEM;
}

void acct_buf_flush(struct acct_buf *b)
{
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
	free(b->buf);
	b->buf = NULL;
	err = b->err;
	if (!err && b->out) {
		errno = 0;
		if (fflush(b->out) || ferror(b->out))
			err = errno ? -errno : -EIO;
	}
	return err;
}

void acct_buf_put_slow(struct acct_buf *b, const char *s, size_t n)
{
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
