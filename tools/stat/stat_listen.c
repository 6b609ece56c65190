/* SPDX-License-Identifier: MIT */
/* The exporter's listen address (stat_listen.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/stat_dir.h"
#include "stat_listen.h"

static int parse_port(const char *s, unsigned *port)
{
	unsigned long p = 0;
	if (!*s || strlen(s) > 5)
		return -EINVAL;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		p = p * 10 + (unsigned long)(*c - '0');
	}
	if (p == 0 || p > 65535)
		return -EINVAL;
	*port = (unsigned)p;
	return 0;
}

static void addr_text(struct export_addr *a, unsigned port)
{
	char host[INET6_ADDRSTRLEN] = "";
	if (a->any) {
		snprintf(a->text, sizeof(a->text), ":%u", port);
	} else if (a->ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&a->ss)->sin6_addr, host, sizeof(host));
		snprintf(a->text, sizeof(a->text), "[%s]:%u", host, port);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&a->ss)->sin_addr, host, sizeof(host));
		snprintf(a->text, sizeof(a->text), "%s:%u", host, port);
	}
}

int export_addr_parse(const char *s, struct export_addr *a, char *err, size_t errlen)
{
	char host[256];
	unsigned port = EXPORT_DEFAULT_PORT;
	const char *hs = s ? s : "", *he;
	bool bracket = hs[0] == '[';
	memset(a, 0, sizeof(*a));
	if (bracket) {
		/* RFC 3986's IP-literal: an IPv6 address is bracketed so that its
		 * colons are not taken for the port's. */
		const char *rb = strchr(hs, ']');
		if (!rb || (rb[1] && rb[1] != ':'))
			return stat_fail(err, errlen, EINVAL, "'%s': an IPv6 address is [ADDR] or [ADDR]:PORT", hs);
		if (rb[1] == ':' && parse_port(rb + 2, &port) < 0)
			return stat_fail(err, errlen, EINVAL, "'%s': the port must be 1 to 65535", hs);
		hs++;
		he = rb;
	} else {
		const char *colon = strchr(hs, ':');
		if (colon && strchr(colon + 1, ':'))
			return stat_fail(err, errlen, EINVAL, "'%s': write an IPv6 address as [ADDR]:PORT", hs);
		if (colon && parse_port(colon + 1, &port) < 0)
			return stat_fail(err, errlen, EINVAL, "'%s': the port must be 1 to 65535", hs);
		he = colon ? colon : hs + strlen(hs);
	}
	if ((size_t)(he - hs) >= sizeof(host))
		return stat_fail(err, errlen, EINVAL, "'%s': host name too long", s);
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	if (!host[0]) {
		/* Every address: IPv6's any, dual-stack where the host has IPv6
		 * (export_listen falls back to IPv4's). */
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a->ss;
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_any;
		a6->sin6_port = htons((uint16_t)port);
		a->len = sizeof(*a6);
		a->any = true;
		addr_text(a, port);
		return 0;
	}
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	if (bracket)
		hints.ai_family = AF_INET6, hints.ai_flags = AI_NUMERICHOST;
	int r = getaddrinfo(host, NULL, &hints, &res);
	if (r)
		return stat_fail(err, errlen, EINVAL, "'%s': %s: %s", s, host, gai_strerror(r));
	/* The first address, as Go's net.Listen takes a host name's. */
	if (res->ai_addrlen > sizeof(a->ss)) {
		freeaddrinfo(res);
		return stat_fail(err, errlen, EINVAL, "'%s': an address of an unknown kind", s);
	}
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons((uint16_t)port);
	else if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons((uint16_t)port);
	else
		return stat_fail(err, errlen, EINVAL, "'%s': not an IP address", s);
	addr_text(a, port);
	return 0;
}
