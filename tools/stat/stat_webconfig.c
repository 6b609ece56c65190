/* SPDX-License-Identifier: MIT */
/* The exporter's web configuration file (stat_webconfig.h), parsed with
 * libyaml's document API (yaml_parser_load: the YAML 1.1 node graph). */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "live/stat_dir.h"
#include "stat_webconfig.h"

/* exporter-toolkit's keys that vpmu-stat does not implement (its
 * web-configuration.md): named as such, not as unknown. */
static const char *const toolkit_only[] = {
	"http_server_config", "rate_limit", "cert", "key", "client_ca_file", "client_ca",
	"client_allowed_sans", "cipher_suites", "curve_preferences", "min_version",
	"max_version", "prefer_server_cipher_suites", "http2", "headers", NULL
};

struct parse {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	struct web_config wc;
};

static int fail_at(struct parse *p, const yaml_node_t *n, const char *fmt, const char *what)
{
	char msg[200];
	snprintf(msg, sizeof(msg), fmt, what);
	return stat_fail(p->err, p->errlen, EINVAL, "%s: line %lu: %s", p->path,
			 n ? (unsigned long)n->start_mark.line + 1 : 1ul, msg);
}

static int unknown_key(struct parse *p, const yaml_node_t *k, const char *where)
{
	const char *key = (const char *)k->data.scalar.value;
	char msg[200];
	bool toolkit = false;
	for (unsigned i = 0; toolkit_only[i]; i++)
		toolkit |= !strcmp(key, toolkit_only[i]);
	snprintf(msg, sizeof(msg), toolkit ? "'%%s' in %s: an exporter-toolkit key that vpmu-stat "
		 "does not implement" : "unknown key '%%s' in %s", where);
	return fail_at(p, k, msg, key);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A mapping's pairs, each key a scalar given once; NULL after a message. */
static yaml_node_pair_t *pairs(struct parse *p, yaml_node_t *m, const char *what, size_t *n)
{
	if (!m || m->type != YAML_MAPPING_NODE) {
		fail_at(p, m, "%s must be a mapping", what);
		return NULL;
	}
	yaml_node_pair_t *s = m->data.mapping.pairs.start;
	*n = (size_t)(m->data.mapping.pairs.top - s);
	for (size_t i = 0; i < *n; i++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, s[i].key);
		if (!scalar(k)) {
			fail_at(p, k, "a key in %s is not a string", what);
			return NULL;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(scalar(k), scalar(yaml_document_get_node(p->doc, s[j].key)))) {
				fail_at(p, k, "'%s' is given twice", scalar(k));
				return NULL;
			}
	}
	return s;
}

/* A PEM file, relative to the configuration file's directory as the toolkit
 * takes it; NUL-terminated for MHD_OPTION_HTTPS_MEM_CERT and _KEY. */
static int read_pem(struct parse *p, const yaml_node_t *n, char **out)
{
	const char *name = scalar(n), *slash = strrchr(p->path, '/');
	char path[4096];
	if (!name || !*name)
		return fail_at(p, n, "%s must be a file name", "cert_file and key_file");
	if (name[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - p->path), p->path, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return stat_fail(p->err, p->errlen, errno, "%s: line %lu: %s: %s", p->path,
				 (unsigned long)n->start_mark.line + 1, path, strerror(errno));
	char *buf = malloc(WEB_PEM_MAX + 1);
	size_t len = buf ? fread(buf, 1, WEB_PEM_MAX + 1, f) : 0;
	fclose(f);
	if (!buf || len == 0 || len > WEB_PEM_MAX || memchr(buf, '\0', len)) {
		free(buf);
		return stat_fail(p->err, p->errlen, buf ? EINVAL : ENOMEM, "%s: %s is %s", p->path, path,
				 !buf ? "beyond memory" : len ? "not a PEM file" : "empty");
	}
	buf[len] = '\0';
	free(*out);
	*out = buf;
	return 0;
}

static int parse_tls(struct parse *p, yaml_node_t *m)
{
	size_t n;
	yaml_node_pair_t *s = pairs(p, m, "tls_server_config", &n);
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, s[i].key),
			    *v = yaml_document_get_node(p->doc, s[i].value);
		const char *key = scalar(k);
		int r = 0;
		if (!strcmp(key, "cert_file"))
			r = read_pem(p, v, &p->wc.cert_pem);
		else if (!strcmp(key, "key_file"))
			r = read_pem(p, v, &p->wc.key_pem);
		else if (!strcmp(key, "client_auth_type")) {
			if (!scalar(v) || strcmp(scalar(v), "NoClientCert"))
				r = fail_at(p, v, "client_auth_type: vpmu-stat takes only NoClientCert, "
					    "not '%s'", scalar(v) ? scalar(v) : "(not a string)");
		} else
			r = unknown_key(p, k, "tls_server_config");
		if (r < 0)
			return r;
	}
	if (!p->wc.cert_pem || !p->wc.key_pem)
		return fail_at(p, m, "tls_server_config needs %s", "both cert_file and key_file");
	return 0;
}

static int parse_users(struct parse *p, yaml_node_t *m)
{
	size_t n;
	yaml_node_pair_t *s = pairs(p, m, "basic_auth_users", &n);
	if (!s)
		return -EINVAL;
	if (n > WEB_USERS_MAX)
		return fail_at(p, m, "%s", "basic_auth_users: more than 64 users");
	p->wc.users = n ? calloc(n, sizeof(*p->wc.users)) : NULL;
	if (n && !p->wc.users)
		return stat_fail(p->err, p->errlen, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *k = yaml_document_get_node(p->doc, s[i].key),
				  *v = yaml_document_get_node(p->doc, s[i].value);
		const char *user = scalar(k), *hash = scalar(v);
		struct web_user *u = &p->wc.users[p->wc.nusers];
		/* RFC 7617: a user-id holding a colon cannot be sent. */
		if (!*user || strchr(user, ':') || strlen(user) >= sizeof(u->name))
			return fail_at(p, k, "user '%s': 1 to 63 bytes without ':'", user);
		/* $2b$, the cost, 22 characters of salt and 31 of hash: 60 (OpenBSD's
		 * bcrypt(3), which libxcrypt follows). */
		if (!hash || strlen(hash) != 60 ||
		    (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4)) ||
		    crypt_checksalt(hash) != CRYPT_SALT_OK)
			return fail_at(p, v, "user '%s': the password must be a bcrypt hash ($2b$...: "
				       "htpasswd -nB, or mkpasswd -m bcrypt)", user);
		snprintf(u->name, sizeof(u->name), "%s", user);
		snprintf(u->hash, sizeof(u->hash), "%s", hash);
		p->wc.nusers++;
	}
	return 0;
}

static int parse_root(struct parse *p)
{
	yaml_node_t *root = yaml_document_get_root_node(p->doc);
	if (!root)   /* an empty file: plain HTTP, no users, as the toolkit takes it */
		return 0;
	size_t n;
	yaml_node_pair_t *s = pairs(p, root, "the file", &n);
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, s[i].key),
			    *v = yaml_document_get_node(p->doc, s[i].value);
		int r;
		if (!strcmp(scalar(k), "tls_server_config"))
			r = parse_tls(p, v);
		else if (!strcmp(scalar(k), "basic_auth_users"))
			r = parse_users(p, v);
		else
			r = unknown_key(p, k, "the file");
		if (r < 0)
			return r;
	}
	return 0;
}

int web_config_load(const char *path, struct web_config *wc, char *err, size_t errlen)
{
	struct parse p = { .path = path, .err = err, .errlen = errlen };
	FILE *f = fopen(path, "re");
	if (!f)
		return stat_fail(err, errlen, errno, "%s: %s", path, strerror(errno));
	yaml_parser_t parser;
	yaml_document_t doc;
	int r = 0;
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return stat_fail(err, errlen, ENOMEM, "out of memory");
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		r = stat_fail(err, errlen, EINVAL, "%s: line %lu: %s", path,
			      (unsigned long)parser.problem_mark.line + 1,
			      parser.problem ? parser.problem : "not YAML");
	} else {
		p.doc = &doc;
		r = parse_root(&p);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (r == 0 && !p.wc.cert_pem != !p.wc.key_pem)
		r = stat_fail(err, errlen, EINVAL, "%s: tls_server_config needs both files", path);
	if (r < 0) {
		web_config_release(&p.wc);
		return r;
	}
	*wc = p.wc;
	return 0;
}

void web_config_release(struct web_config *wc)
{
	if (!wc)
		return;
	free(wc->cert_pem);
	if (wc->key_pem)   /* the private key does not stay in freed memory */
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->users);
	*wc = (struct web_config){ 0 };
}

bool web_config_check(const struct web_config *wc, const char *user, const char *password)
{
	if (!wc || !wc->nusers)
		return true;
	if (!user || !password)
		return false;
	const struct web_user *u = NULL;
	for (unsigned i = 0; i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, user))
			u = &wc->users[i];
	/* crypt_r's state is about 32 KiB: not on a connection thread's stack. */
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	const char *h = u ? u->hash : wc->users[0].hash;
	const char *got = crypt_r(password, h, cd);
	bool same = got && got[0] != '*' && strlen(got) == strlen(h);
	unsigned char diff = 0;
	for (size_t i = 0; same && h[i]; i++)   /* in constant time */
		diff |= (unsigned char)(got[i] ^ h[i]);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return u && same && diff == 0;
}
