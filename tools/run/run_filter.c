/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run --event-filter (run_filter.h; the format: docs/vpmu-run.md, "Event
 * filter files").  One directive a line, '#' starts a comment:
 *   action allow|deny                    required, once
 *   event EVENT UMASK                    an event select and unit mask
 *   masked EVENT MASK MATCH [exclude]    a masked entry (Linux
 *                                        Documentation/virt/kvm/api.rst,
 *                                        KVM_PMU_EVENT_FLAG_MASKED_EVENTS)
 *   fixed N                              fixed counter N's bit of the bitmap
 *   name EVENT_NAME                      an event of the VM's table by name
 * A file has event or masked lines, not both (KVM's flag is the whole
 * filter's).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_filter.h"

static int perr(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int perr(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
{
	if (err && errlen) {
		int n = line ? snprintf(err, errlen, "%s:%u: ", file, line)
			     : snprintf(err, errlen, "%s: ", file);
		size_t o = n > 0 && (size_t)n < errlen ? (size_t)n : 0;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + o, errlen - o, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A number (decimal or 0x hex) up to max: 0, or -1. */
static int number(const char *w, uint64_t max, uint64_t *out)
{
	char *end;
	if (!w || !isdigit((unsigned char)*w))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(w, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

#define MAX_WORDS 6

int run_filter_parse(const char *text, size_t len, const char *file, struct run_filter *out,
		     char *err, size_t errlen)
{
	static struct run_filter f;   /* built here, copied to *out when whole */
	memset(&f, 0, sizeof(f));
	snprintf(f.file, sizeof(f.file), "%s", file);
	bool have_action = false, plain = false;
	unsigned line = 0, line_plain = 0, line_masked = 0;
	if (len > RUN_FILTER_TEXT_MAX)
		return perr(err, errlen, file, 0, "longer than %d bytes", RUN_FILTER_TEXT_MAX);
	for (size_t pos = 0; pos < len;) {
		char buf[512];
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		line++;
		if (end - pos >= sizeof(buf))
			return perr(err, errlen, file, line, "a line longer than %zu bytes",
				    sizeof(buf) - 1);
		memcpy(buf, text + pos, end - pos);
		buf[end - pos] = 0;
		pos = end + 1;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		char *w[MAX_WORDS + 1] = { 0 };
		unsigned n = 0;
		for (char *s = strtok(buf, " \t\r"); s; s = strtok(NULL, " \t\r")) {
			if (n == MAX_WORDS)
				return perr(err, errlen, file, line, "too many words");
			w[n++] = s;
		}
		if (!n)
			continue;
		uint64_t a, b, c;
		if (!strcmp(w[0], "action")) {
			if (n != 2 || (strcmp(w[1], "allow") && strcmp(w[1], "deny")))
				return perr(err, errlen, file, line, "'action' takes allow or deny");
			if (have_action)
				return perr(err, errlen, file, line, "a second 'action'");
			have_action = true;
			f.action = !strcmp(w[1], "allow") ? VPMU_FILTER_ALLOW : VPMU_FILTER_DENY;
		} else if (!strcmp(w[0], "event") || !strcmp(w[0], "masked")) {
			bool masked = w[0][0] == 'm';
			bool excl = masked && n == 5 && !strcmp(w[4], "exclude");
			if (masked ? (n != 4 && !excl) : n != 3)
				return perr(err, errlen, file, line, masked ?
					    "'masked' takes EVENT MASK MATCH [exclude]" :
					    "'event' takes EVENT UMASK");
			if (number(w[1], 0xFFF, &a))
				return perr(err, errlen, file, line,
					    "the event select '%s' is not a number from 0 to 0xfff", w[1]);
			if (number(w[2], 0xFF, &b) || (masked && number(w[3], 0xFF, &c)))
				return perr(err, errlen, file, line, "%s is not a number from 0 to 0xff",
					    masked ? "the mask or match" : "the unit mask");
			if (masked ? plain : f.flags)
				return perr(err, errlen, file, line, "'event' and 'masked' lines in one "
					    "filter (line %u): a filter's entries are all masked or none",
					    masked ? line_plain : line_masked);
			if (f.nevents + f.nnames == VPMU_FILTER_MAX_EVENTS)
				return perr(err, errlen, file, line, "more than %d entries",
					    VPMU_FILTER_MAX_EVENTS);
			if (masked) {
				f.flags = VPMU_FILTER_MASKED_EVENTS;
				line_masked = line;
				f.events[f.nevents] = VPMU_FILTER_MASKED_ENTRY(a, b, c, excl);
			} else {
				plain = true;
				line_plain = line;
				f.events[f.nevents] = (a & 0xFF) | ((a & 0xF00) << 24) | (b << 8);
			}
			f.event_line[f.nevents++] = line;
		} else if (!strcmp(w[0], "fixed")) {
			if (n != 2 || number(w[1], 31, &a))
				return perr(err, errlen, file, line, "'fixed' takes a counter number from 0 to 31");
			f.fixed |= 1u << a;
		} else if (!strcmp(w[0], "name")) {
			if (n != 2)
				return perr(err, errlen, file, line, "'name' takes one event name");
			if (strlen(w[1]) >= RUN_FILTER_NAME_MAX)
				return perr(err, errlen, file, line, "an event name longer than %d bytes",
					    RUN_FILTER_NAME_MAX - 1);
			if (f.nevents + f.nnames == VPMU_FILTER_MAX_EVENTS)
				return perr(err, errlen, file, line, "more than %d entries",
					    VPMU_FILTER_MAX_EVENTS);
			snprintf(f.names[f.nnames], RUN_FILTER_NAME_MAX, "%s", w[1]);
			f.name_line[f.nnames++] = line;
		} else {
			return perr(err, errlen, file, line, "unknown directive '%s' (action, event, "
				    "masked, fixed, name)", w[0]);
		}
	}
	if (!have_action)
		return perr(err, errlen, file, 0, "no 'action allow' or 'action deny' line");
	*out = f;
	return 0;
}

int run_filter_load(const char *arg, struct run_filter *out, char *err, size_t errlen)
{
	if (!strcmp(arg, "cross-tenant")) {
		memset(out, 0, sizeof(*out));
		snprintf(out->file, sizeof(out->file), "cross-tenant");
		out->preset = 1;
		out->action = VPMU_FILTER_DENY;
		out->flags = VPMU_FILTER_MASKED_EVENTS;
		return 0;
	}
	FILE *fp = fopen(arg, "r");
	if (!fp) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", arg, strerror(e));
		return -e;
	}
	static char text[RUN_FILTER_TEXT_MAX + 1];
	size_t len = fread(text, 1, sizeof(text), fp);
	int rerr = ferror(fp);
	fclose(fp);
	if (rerr) {
		snprintf(err, errlen, "%s: read error", arg);
		return -EIO;
	}
	if (memchr(text, 0, len)) {
		snprintf(err, errlen, "%s: a NUL byte: not a text file", arg);
		return -EINVAL;
	}
	return run_filter_parse(text, len, arg, out, err, errlen);
}

/*
 * The cross-tenant preset (docs/vpmu-run.md, "The cross-tenant preset"):
 * masked entries (any unit mask unless one is given) for the events that
 * observe the last-level cache, the memory controller and the offcore
 * responses, which other tenants' activity moves as much as the guest's own:
 * what cache side-channel attacks such as those of the CachePC paper
 * (Prime+Probe measured with performance counters) read.  The event numbers
 * are the vendors' (Intel SDM vol. 3B, the architectural LLC events and the
 * model-specific offcore and load-retirement events; the AMD BKDGs and PPRs,
 * the northbridge/memory-controller block and the data cache refills from the
 * system).  Unit masks 0xFF with mask 0x00: every unit mask.
 */
struct preset_entry {
	uint16_t event;
	uint8_t mask, match;
};
static const struct preset_entry intel_preset[] = {
	{ 0x2E, 0x00, 0x00 },  /* LONGEST_LAT_CACHE (architectural LLC references, misses);
	                          P6 family L2_RQSTS, its last level */
	{ 0x60, 0x00, 0x00 },  /* OFFCORE_REQUESTS_OUTSTANDING */
	{ 0xB0, 0x00, 0x00 },  /* OFFCORE_REQUESTS */
	{ 0xB7, 0x00, 0x00 },  /* OFFCORE_RESPONSE_0 (MSR_OFFCORE_RSP_0 selects the source) */
	{ 0xBB, 0x00, 0x00 },  /* OFFCORE_RESPONSE_1 */
	{ 0xD1, 0xFF, 0x04 },  /* MEM_LOAD_RETIRED.L3_HIT */
	{ 0xD1, 0xFF, 0x20 },  /* MEM_LOAD_RETIRED.L3_MISS */
	{ 0xD2, 0x00, 0x00 },  /* MEM_LOAD_L3_HIT_RETIRED (cross-core snoops) */
	{ 0xD3, 0x00, 0x00 },  /* MEM_LOAD_L3_MISS_RETIRED (local and remote DRAM) */
};
static const struct preset_entry amd_preset[] = {
	{ 0x43, 0x00, 0x00 },  /* data cache refills from the system (K7/K8); Zen
	                          LsDmndFillsFromSys: demand fills by source (L3, other
	                          CCX, DRAM, remote node) */
	{ 0x44, 0x00, 0x00 },  /* Zen LsAnyFillsFromSys; K8 data cache lines evicted */
	/* K8 and family 10h northbridge: DRAM accesses, memory controller, crossbar,
	 * HyperTransport, probes (events 0xE0-0xEF) */
	{ 0xE0, 0x00, 0x00 }, { 0xE1, 0x00, 0x00 }, { 0xE2, 0x00, 0x00 }, { 0xE3, 0x00, 0x00 },
	{ 0xE4, 0x00, 0x00 }, { 0xE5, 0x00, 0x00 }, { 0xE6, 0x00, 0x00 }, { 0xE7, 0x00, 0x00 },
	{ 0xE8, 0x00, 0x00 }, { 0xE9, 0x00, 0x00 }, { 0xEA, 0x00, 0x00 }, { 0xEB, 0x00, 0x00 },
	{ 0xEC, 0x00, 0x00 }, { 0xED, 0x00, 0x00 }, { 0xEE, 0x00, 0x00 }, { 0xEF, 0x00, 0x00 },
};

int run_filter_apply(const struct run_filter *rf, struct vpmu_vm *vm, char *err, size_t errlen)
{
	static uint64_t preset[VPMU_FILTER_MAX_EVENTS];
	const char *names[VPMU_FILTER_MAX_EVENTS];
	struct vpmu_event_filter f = { rf->action, rf->flags, rf->fixed, rf->nevents, rf->events,
				       rf->nnames, names };
	for (unsigned i = 0; i < rf->nnames; i++)
		names[i] = rf->names[i];
	const char *vendor = "";
	unsigned family, cpumodel, stepping;
	vpmu_vm_identity(vm, &vendor, &family, &cpumodel, &stepping);
	if (rf->preset) {
		bool amd = vendor && !strcmp(vendor, "AuthenticAMD");
		const struct preset_entry *p = amd ? amd_preset : intel_preset;
		unsigned n = amd ? sizeof(amd_preset) / sizeof(amd_preset[0])
				 : sizeof(intel_preset) / sizeof(intel_preset[0]);
		for (unsigned i = 0; i < n; i++)
			preset[i] = VPMU_FILTER_MASKED_ENTRY(p[i].event, p[i].mask, p[i].match, 0);
		f.nevents = n;
		f.events = preset;
	}
	int bad = -1;
	int r = vpmu_vm_set_event_filter(vm, &f, &bad);
	if (!r)
		return 0;
	unsigned line = 0;
	if (!rf->preset && bad >= 0)
		line = (unsigned)bad < rf->nevents ? rf->event_line[bad] : rf->name_line[bad - (int)rf->nevents];
	if (r == -ENOENT && bad >= (int)rf->nevents)
		perr(err, errlen, rf->file, line, "no event '%s' in the VM's event table (vpmu-events %s)",
		     rf->names[bad - (int)rf->nevents], vpmu_vm_model(vm));
	else if (r == -EOPNOTSUPP)
		perr(err, errlen, rf->file, 0, "the %s model's PMU has no event select of KVM's layout: "
		     "event filters apply to the p6, k7, k8, zen and architectural-perfmon models",
		     vpmu_vm_model(vm));
	else
		perr(err, errlen, rf->file, line, "refused: %s", strerror(-r));
	return r;
}
