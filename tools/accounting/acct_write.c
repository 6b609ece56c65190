/* SPDX-License-Identifier: MIT */
/* The accounting formats by name: the one place that knows them all. */
#include <errno.h>
#include <string.h>

#include "acct_formats.h"

static const char *const format_names[] = {
	[ACCT_TEXT] = "text",
	[ACCT_DOMSTATS] = "domstats",
	[ACCT_PROMETHEUS] = "prometheus",
	[ACCT_JSON] = "json",
};

int acct_format_from_name(const char *name)
{
	for (unsigned f = 0; f < sizeof(format_names) / sizeof(format_names[0]); f++)
		if (name && !strcmp(name, format_names[f]))
			return (int)f;
	return -1;
}

int acct_write(FILE *out, enum acct_format f, const struct acct_vm *vms, unsigned n)
{
	if (!out || (!vms && n))
		return -EINVAL;
	switch (f) {
	case ACCT_TEXT: return acct_write_text(out, vms, n);
	case ACCT_DOMSTATS: return acct_write_domstats(out, vms, n);
	case ACCT_PROMETHEUS: return acct_write_prometheus(out, vms, n);
	case ACCT_JSON: return acct_write_json(out, vms, n);
	}
	return -EINVAL;
}
