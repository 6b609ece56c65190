/* SPDX-License-Identifier: MIT */
#include "printf.h"

#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

/* n /= 10, returning the remainder, with two 32-bit DIVs: there is no libgcc
 * (__udivdi3) in a freestanding -m32 build here. */
static uint32_t divmod10(uint64_t *n)
{
	uint32_t hi = (uint32_t)(*n >> 32), lo = (uint32_t)*n, qhi = hi / 10, r = hi % 10, qlo;
	__asm__("divl %4" : "=a"(qlo), "=d"(r) : "0"(lo), "1"(r), "rm"(10u));
	*n = ((uint64_t)qhi << 32) | qlo;
	return r;
}

static void put_num(struct out *o, uint64_t v, unsigned base, bool upper, bool neg,
		    unsigned width, bool zero, bool left)
{
	char tmp[24];
	unsigned n = 0;
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	do {
		if (base == 10) {
			tmp[n++] = digits[divmod10(&v)];
		} else {
			tmp[n++] = digits[v & 15];
			v >>= 4;
		}
	} while (v);
	unsigned len = n + (neg ? 1 : 0);
	if (!left && !zero)
		for (; width > len; width--)
			put(o, ' ');
	if (neg)
		put(o, '-');
	if (!left && zero)
		for (; width > len; width--)
			put(o, '0');
	while (n)
		put(o, tmp[--n]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		bool zero = false, left = false;
		unsigned width = 0, lng = 0;
		for (fmt++; *fmt == '0' || *fmt == '-'; fmt++)
			*fmt == '0' ? (zero = true) : (left = true);
		for (; *fmt >= '0' && *fmt <= '9'; fmt++)
			width = width * 10 + (unsigned)(*fmt - '0');
		for (; *fmt == 'l'; fmt++)
			lng++;
		switch (*fmt) {
		case 'd':
		case 'i': {
			int64_t v = lng >= 2 ? va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
			put_num(&o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10, false, v < 0, width, zero, left);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng >= 2 ? va_arg(ap, unsigned long long)
				   : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			put_num(&o, v, *fmt == 'u' ? 10 : 16, *fmt == 'X', false, width, zero, left);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uintptr_t)va_arg(ap, void *), 16, false, false, 8, true, false);
			break;
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			unsigned n = 0;
			if (!s)
				s = "(null)";
			while (s[n])
				n++;
			if (!left)
				for (; width > n; width--)
					put(&o, ' ');
			for (; *s; s++)
				put(&o, *s);
			if (left)
				for (; width > n; width--)
					put(&o, ' ');
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
