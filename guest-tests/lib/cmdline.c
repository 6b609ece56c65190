/* SPDX-License-Identifier: MIT */
#include "cmdline.h"

#include "layout.h"
#include "string.h"

#define MBI_FLAG_CMDLINE (1u << 2)
#define MULTIBOOT_BOOT_MAGIC 0x2BADB002u

struct guest_opts opts = { .vcpus = 1, .cpumodel = -1, .stepping = -1 };

static void copy_word(char *dst, unsigned size, const char *w, unsigned len)
{
	if (len >= size)
		len = size - 1;
	memcpy(dst, w, len);
	dst[len] = '\0';
}

/* Decimal or 0x-prefixed hexadecimal; -1 if not a number. */
static int parse_uint(const char *s, unsigned len)
{
	unsigned base = 10, v = 0;
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2, len -= 2;
	if (!len || len > 8)
		return -1;
	for (; len; len--, s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		v = v * base + d;
	}
	return (int)v;
}

static bool key(const char *w, unsigned len, const char *k, const char **val, unsigned *vlen)
{
	unsigned kl = (unsigned)strlen(k);
	if (len <= kl || strncmp(w, k, kl) != 0 || w[kl] != '=')
		return false;
	*val = w + kl + 1;
	*vlen = len - kl - 1;
	return true;
}

static void parse_word(const char *w, unsigned len)
{
	const char *v;
	unsigned vl;
	int n;
	if (key(w, len, "model", &v, &vl))
		copy_word(opts.model, sizeof(opts.model), v, vl);
	else if (key(w, len, "backend", &v, &vl))
		copy_word(opts.backend, sizeof(opts.backend), v, vl);
	else if (key(w, len, "counts", &v, &vl))
		copy_word(opts.counts, sizeof(opts.counts), v, vl);
	else if (key(w, len, "rdpmc", &v, &vl))
		opts.rdpmc = vl == 4 && !strncmp(v, "exit", 4) ? 1 : vl == 4 && !strncmp(v, "sync", 4) ? 2
			   : vl == 5 && !strncmp(v, "stock", 5) ? 3 : 0;
	else if (key(w, len, "strict", &v, &vl))
		opts.strict = parse_uint(v, vl) > 0;
	else if (key(w, len, "vcpus", &v, &vl)) {
		n = parse_uint(v, vl);
		opts.vcpus = n < 1 ? 1 : n > MAX_CPUS ? MAX_CPUS : (unsigned)n;
	} else if (key(w, len, "cpumodel", &v, &vl))
		opts.cpumodel = parse_uint(v, vl);
	else if (key(w, len, "stepping", &v, &vl))
		opts.stepping = parse_uint(v, vl);
	else if (key(w, len, "null", &v, &vl))
		opts.null_qemu = vl == 4 && strncmp(v, "qemu", 4) == 0;
	else if (key(w, len, "ap-boot", &v, &vl))
		opts.ap_boot_sipi = vl == 4 && strncmp(v, "sipi", 4) == 0;
}

void parse_multiboot(uint32_t magic, uint32_t mbi)
{
	if (magic != MULTIBOOT_BOOT_MAGIC || !mbi)
		return;
	const uint32_t *info = (const uint32_t *)(uintptr_t)mbi;
	if (!(info[0] & MBI_FLAG_CMDLINE) || !info[4])
		return;
	const char *s = (const char *)(uintptr_t)info[4];
	unsigned n = 0;
	while (n + 1 < sizeof(opts.raw) && s[n])
		n++;
	memcpy(opts.raw, s, n);
	opts.raw[n] = '\0';
	opts.have_cmdline = true;
	for (const char *p = opts.raw; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (p > w)
			parse_word(w, (unsigned)(p - w));
	}
}
