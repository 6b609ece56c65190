/* SPDX-License-Identifier: MIT */
/*
 * The exporter's --web.config.file (docs/accounting.md, "TLS and basic
 * authentication"): the YAML file that Prometheus' exporter-toolkit reads
 * (its docs/web-configuration.md), as far as vpmu-stat implements it:
 *
 *   tls_server_config:          # HTTPS through libmicrohttpd and GnuTLS
 *     cert_file: server.crt     # PEM; relative to the file's directory
 *     key_file: server.key
 *     client_auth_type: NoClientCert   # the default, the only one taken
 *   basic_auth_users:           # every path needs one of these
 *     prometheus: $2b$10$...    # bcrypt, as htpasswd -B writes it
 *
 * Any other key is refused with a message that names it and its line (the
 * toolkit's keys vpmu-stat lacks are called so), rather than ignored.
 */
#ifndef VPMU_TOOLS_STAT_WEBCONFIG_H
#define VPMU_TOOLS_STAT_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define WEB_USERS_MAX 64
#define WEB_PEM_MAX (1u << 20)

struct web_user {
	char name[64];
	char hash[128];
};

struct web_config {
	char *cert_pem, *key_pem;    /* NUL-terminated PEM; NULL: plain HTTP */
	struct web_user *users;      /* none: no authentication */
	unsigned nusers;
};

/* Reads path into *wc; 0, or -errno with a message naming the file (and the
 * line) in err, *wc unchanged.  Release with web_config_release. */
int web_config_load(const char *path, struct web_config *wc, char *err, size_t errlen);
void web_config_release(struct web_config *wc);

/* Whether user and password pass basic_auth_users (bcrypt through crypt(3));
 * true when the file names no users.  An unknown user costs one bcrypt too, so
 * that the time taken does not tell which users exist. */
bool web_config_check(const struct web_config *wc, const char *user, const char *password);

#endif
