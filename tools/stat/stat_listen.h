/* SPDX-License-Identifier: MIT */
/*
 * The exporter's listen address (docs/accounting.md, "Prometheus"), written as
 * other exporters take --web.listen-address: ":PORT" (every address),
 * "HOST:PORT" (an IPv4 address or a host name, resolved with getaddrinfo),
 * "[IPV6]:PORT", or any of these without ":PORT" for the default port.
 */
#ifndef VPMU_TOOLS_STAT_LISTEN_H
#define VPMU_TOOLS_STAT_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* Free in the Prometheus wiki's "Default port allocations" list when chosen
 * (docs/accounting.md says how); 9177 there is the libvirt exporter's. */
#define EXPORT_DEFAULT_PORT 9632

struct export_addr {
	struct sockaddr_storage ss;  /* with the port */
	socklen_t len;
	bool any;                    /* ":PORT": every address, IPv6 and IPv4 */
	char text[80];               /* as printed in messages: 127.0.0.1:9632, [::1]:9632 */
};

/* Parses s (NULL or "": every address, the default port) into a; 0, or
 * -EINVAL with why in err (errlen bytes). */
int export_addr_parse(const char *s, struct export_addr *a, char *err, size_t errlen);

#endif
