/* SPDX-License-Identifier: MIT */
/*
 * The accounting JSON against hostile input (tools/accounting/acct_json_read.c,
 * tools/accounting/acct_json.c, tools/accounting/acct_snapshot.c): a document over the reader's
 * size cap (ACCT_JSON_MAX) is refused before it is parsed; strings that are
 * not UTF-8 (RFC 8259, section 8.1; The Unicode Standard, chapter 3, table
 * 3-7) are refused where a name comes in (the reader, acct_vm_begin) and
 * never written (the writer refuses the snapshot); and the fuzzer's seeds
 * (fuzz/seeds/acct_json/, given as arguments) read and write back to the same
 * JSON, so that the fuzzer starts on the reader's real paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounting/acct_formats.h"
#include "vpmu/backend.h"
#include "tap.h"

#define HOLDER "NAME-HOLDER"

/* vms as JSON (malloc'ed, NUL-terminated), or NULL with *rc the writer's error. */
static char *to_json(const struct acct_vm *vms, unsigned n, int *rc, size_t *len)
{
	char *buf = NULL;
	size_t l = 0;
	FILE *m = open_memstream(&buf, &l);
	if (!m) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = acct_write(m, ACCT_JSON, vms, n);
	fclose(m);
	if (len)
		*len = l;
	if (*rc) {
		ok(l == 0, "a refused snapshot writes nothing (%zu bytes written)", l);
		free(buf);
		return NULL;
	}
	return buf;
}

/* doc with the first needle replaced by with (malloc'ed; NULL: no needle). */
static char *replace(const char *doc, const char *needle, const char *with)
{
	const char *at = strstr(doc, needle);
	size_t n = strlen(doc) - strlen(needle) + strlen(with) + 1;
	char *s = at ? malloc(n) : NULL;
	if (s)
		snprintf(s, n, "%.*s%s%s", (int)(at - doc), doc, with, at + strlen(needle));
	return s;
}

static char *with_name(const char *doc, const char *with)
{
	return replace(doc, HOLDER, with);
}

/* Reads doc; want: 0 (and the name it must give), or -EINVAL with a message
 * holding why. */
static void read_case(const char *doc, size_t len, const char *want_name, const char *why,
		      const char *what)
{
	struct acct_vm *v = (struct acct_vm *)1;
	unsigned n = 7;
	char err[256] = "";
	int rc = doc ? acct_read_json(doc, len, &v, &n, err, sizeof(err)) : -ENOMEM;
	if (want_name)
		ok(rc == 0 && n == 1 && !strcmp(v[0].name, want_name), "%s: read (%d: %s)", what, rc,
		   err);
	else
		ok(rc == -EINVAL && !v && !n && strstr(err, why), "%s: -EINVAL, \"%s\" (%d: %s)", what,
		   why, rc, err);
	if (rc == 0)
		acct_vms_release(v, n);
}

static void names_in_documents(const char *doc)
{
	static const struct {
		const char *what, *name, *why;
	} cases[] = {
		{ "a name of two- and four-byte characters", "web-\xc3\xa9-\xf0\x9f\x98\x80", NULL },
		/* json-c's check (JSON_TOKENER_VALIDATE_UTF8) finds these two, at
		 * their offset in the document */
		{ "a name with a lone 0xFF byte", "dom\xff", "not UTF-8 (byte 0xff at offset " },
		{ "a name with a cut two-byte character", "dom\xc3", "not UTF-8 (byte 0x22 at offset " },
		/* it takes these, the reader's own check does not */
		{ "a name with an overlong NUL (C0 80)", "a\xc0\x80", "name: not UTF-8 (byte 0xc0 at offset 1)" },
		{ "a name with a surrogate (ED A0 80)", "a\xed\xa0\x80", "name: not UTF-8 (byte 0xed at offset 1)" },
		{ "a name above U+10FFFF (F4 90 80 80)", "\xf4\x90\x80\x80", "name: not UTF-8 (byte 0xf4 at offset 0)" },
		/* what the JSON fuzzer found: json-c takes surrogates, and the writer
		 * turned each byte into U+FFFD, three bytes, which the reader then
		 * refused as a name over 63 bytes */
		{ "a 63-byte name of 21 surrogates", "\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80"
		  "\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80"
		  "\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80"
		  "\xed\xa0\x80\xed\xa0\x80\xed\xa0\x80", "not UTF-8" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = with_name(doc, cases[i].name);
		read_case(d, d ? strlen(d) : 0, cases[i].why ? NULL : cases[i].name, cases[i].why,
			  cases[i].what);
		free(d);
	}
	/* escapes are decoded first: json-c makes a lone surrogate U+FFFD */
	char *d = with_name(doc, "\\ud800");
	read_case(d, d ? strlen(d) : 0, "\xef\xbf\xbd", NULL, "a name \"\\ud800\" (read as U+FFFD)");
	free(d);
	/* not in a kept string: json-c's own check (JSON_TOKENER_VALIDATE_UTF8) */
	d = with_name(doc, HOLDER "\",\"unknown-key\":\"\xff");
	read_case(d, d ? strlen(d) : 0, NULL, "not UTF-8 (byte 0xff at offset ", "a 0xFF byte in an ignored key's value");
	free(d);
	/* the model and a rule: the same check */
	d = replace(doc, "\"model\":\"p6\"", "\"model\":\"p\xc0\x80\"");
	read_case(d, d ? strlen(d) : 0, NULL, "model: not UTF-8 (byte 0xc0 at offset 1)",
		  "a model name that is not UTF-8");
	free(d);
	d = replace(doc, "\"cpl-none\"", "\"cpl-\xed\xbf\xbf\"");
	read_case(d, d ? strlen(d) : 0, NULL, "rules[2]: not UTF-8 (byte 0xed at offset 4)",
		  "a rule name that is not UTF-8");
	free(d);
}

static void size_cap(const char *doc)
{
	/* the document padded with blanks to the cap, then one byte more */
	size_t n = strlen(doc);
	char *big = malloc((size_t)ACCT_JSON_MAX + 1);
	if (!big || n > ACCT_JSON_MAX) {
		ok(0, "room for a document of %u bytes", ACCT_JSON_MAX + 1);
		free(big);
		return;
	}
	memcpy(big, doc, n);
	memset(big + n, ' ', (size_t)ACCT_JSON_MAX + 1 - n);
	read_case(big, ACCT_JSON_MAX, HOLDER, NULL, "a document of exactly 16 MiB");
	read_case(big, (size_t)ACCT_JSON_MAX + 1, NULL,
		  "16777217 bytes, larger than the 16 MiB a document may have", "a document of 16 MiB + 1");
	free(big);
}

static void write_refused(const struct acct_vm *s, const char *what)
{
	int rc;
	char *j = to_json(s, 1, &rc, NULL);
	ok(!j && rc == -EINVAL, "writer: %s: -EINVAL (%d)", what, rc);
	free(j);
}

static void writer_and_begin(struct vpmu_vm *vm, struct vpmu_host *host, const struct acct_vm *good)
{
	struct acct_vm s = *good;
	int rc;
	char name[80];

	snprintf(s.name, sizeof(s.name), "dom\xff");
	write_refused(&s, "a name that is not UTF-8");
	s = *good;
	memset(s.name, 'a', sizeof(s.name));
	write_refused(&s, "a name without its NUL");
	s = *good;
	snprintf(s.model, sizeof(s.model), "p\xc0\x80");
	write_refused(&s, "a model that is not UTF-8");
	s = *good;
	snprintf(s.rule[0], sizeof(s.rule[0]), "rule-\xed\xa0\x80");
	write_refused(&s, "a rule name that is not UTF-8");

	rc = acct_vm_begin(&s, "dom\xff", vm, host, 1);
	ok(rc == -EINVAL && !s.name[0] && !s.vcpu, "acct_vm_begin: a name that is not UTF-8: -EINVAL, zeroed (%d)", rc);
	if (rc == 0)
		acct_vm_release(&s);
	memset(name, 'a', 64);
	name[64] = 0;
	rc = acct_vm_begin(&s, name, vm, host, 1);
	ok(rc == -ENAMETOOLONG && !s.name[0], "acct_vm_begin: a 64-byte name: -ENAMETOOLONG, not cut (%d)", rc);
	if (rc == 0)
		acct_vm_release(&s);
	name[63] = 0;
	rc = acct_vm_begin(&s, name, vm, host, 1);
	ok(rc == 0 && strlen(s.name) == 63, "acct_vm_begin: a 63-byte name (%d)", rc);
	acct_vm_release(&s);
	rc = acct_vm_begin(&s, "web-\xc3\xa9", vm, host, 1);
	ok(rc == 0 && !strcmp(s.name, "web-\xc3\xa9"), "acct_vm_begin: a UTF-8 name (%d)", rc);
	acct_vm_release(&s);
}

/* Each seed reads, and what it writes reads back to the same JSON. */
static void seeds(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static char text[1 << 16];
		size_t len = f ? fread(text, 1, sizeof(text), f) : 0;
		struct acct_vm *v = NULL, *again = NULL;
		unsigned n = 0, n2 = 0;
		char err[256] = "";
		int rc = f && len < sizeof(text) ? acct_read_json(text, len, &v, &n, err, sizeof(err)) : -EIO;
		char *j1 = rc ? NULL : to_json(v, n, &rc, NULL), *j2 = NULL;
		if (j1 && !(rc = acct_read_json(j1, strlen(j1), &again, &n2, err, sizeof(err))))
			j2 = to_json(again, n2, &rc, NULL);
		ok(rc == 0 && j1 && j2 && !strcmp(j1, j2), "seed %s: reads (%u VMs), and writes what it reads (%d: %s)",
		   argv[i], n, rc, err);
		free(j1);
		free(j2);
		acct_vms_release(v, n);
		acct_vms_release(again, n2);
		if (f)
			fclose(f);
	}
}

int main(int argc, char **argv)
{
	struct vpmu_sim *sim = NULL;
	struct vpmu_backend be;
	struct vpmu_host *host = NULL;
	struct vpmu_vm *vm = NULL;
	struct vpmu_vcpu *vcpu = NULL;
	struct vpmu_vm_config cfg = VPMU_VM_CONFIG_INIT;
	struct acct_vm s;
	char *doc = NULL;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);   /* every line out before a sanitizer's report */
	seeds(argc, argv);
	cfg.model = "p6";
	if (vpmu_sim_create(1, &sim) || (vpmu_sim_backend(sim, &be), vpmu_host_create(&be, 1, &host)) ||
	    (vpmu_sim_attach(sim, host), vpmu_vm_create(host, &cfg, &vm)) ||
	    vpmu_vcpu_create(vm, 0, &vcpu) || acct_collect(&s, HOLDER, vm, host, NULL)) {
		ok(0, "a p6 VM on the sim backend, and its snapshot");
		return tap_done();
	}
	doc = to_json(&s, 1, &rc, NULL);
	ok(doc && strstr(doc, "\"name\":\"" HOLDER "\""), "the snapshot as JSON (%d)", rc);
	if (doc) {
		names_in_documents(doc);
		size_cap(doc);
	}
	writer_and_begin(vm, host, &s);
	free(doc);
	acct_vm_release(&s);
	vpmu_vm_destroy(vm);
	vpmu_host_destroy(host);
	vpmu_sim_destroy(sim);
	return tap_done();
}
