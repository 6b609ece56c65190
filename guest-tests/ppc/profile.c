// SPDX-License-Identifier: MIT
/*
 * The profile of the PowerPC guest's /init (make demo DEMO_MODEL=ppc7450):
 * a workload of three functions of known relative cost (6:3:1 loop
 * iterations) sampled by instruction addresses (PERF_SAMPLE_IP, user-state
 * instructions, a period prime to the loops' lengths), the addresses
 * resolved against this program's own ELF symbol table (/proc/self/exe, a
 * static binary linked unstripped) and the hottest functions printed.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vpmu-init.h"

#define UNIT 400000ul

__attribute__((noinline)) void work_hot(void) { loop(6 * UNIT); }
__attribute__((noinline)) void work_warm(void) { loop(3 * UNIT); }
__attribute__((noinline)) void work_cold(void) { loop(1 * UNIT); }

struct sym {
	uint32_t addr, size;
	const char *name;
	uint64_t hits;
};

static int by_hits(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->hits < y->hits ? 1 : x->hits > y->hits ? -1 : 0;
}

/* The function symbols of /proc/self/exe (an ELF32 of this machine's byte
 * order), in a malloc'ed array; *n their number.  The file stays mapped. */
static struct sym *symbols(size_t *n)
{
	struct stat st;
	int fd = open("/proc/self/exe", O_RDONLY);
	const unsigned char *f;
	const Elf32_Ehdr *eh;
	const Elf32_Shdr *sh;
	struct sym *out = NULL;
	size_t i, k = 0;

	*n = 0;
	if (fd < 0 || fstat(fd, &st))
		return NULL;
	f = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return NULL;
	eh = (const void *)f;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS32)
		return NULL;
	sh = (const void *)(f + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf32_Sym *s = (const void *)(f + sh[i].sh_offset);
		const char *str = (const char *)f + sh[sh[i].sh_link].sh_offset;
		size_t j, cnt = sh[i].sh_size / sizeof(*s);

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		out = calloc(cnt, sizeof(*out));
		for (j = 0; out && j < cnt; j++)
			if (ELF32_ST_TYPE(s[j].st_info) == STT_FUNC && s[j].st_size)
				out[k++] = (struct sym){ s[j].st_value, s[j].st_size, str + s[j].st_name, 0 };
	}
	*n = k;
	return out;
}

void check_profile(void)
{
	const uint64_t period = 9973; /* prime: no lock-step with the loops */
	const size_t pages = 64;
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	struct perf_event_mmap_page *mp;
	struct sym *syms;
	uint64_t head, off, total = 0, unknown = 0;
	size_t n, i;
	char *data;
	int fd, r;

	syms = symbols(&n);
	if (!syms || !n) {
		fail("profile", "a symbol table", "none", "the function symbols of /proc/self/exe");
		return;
	}
	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 1);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	if ((fd = perf_open(&a, -1)) < 0) {
		fail("profile", "a file descriptor", strerror(errno), "perf_event_open(instructions:u, period %llu)",
		     (unsigned long long)period);
		return;
	}
	mp = mmap(NULL, (pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		fail("profile", "a ring buffer", strerror(errno), "mmap of the event's ring buffer");
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (r = 0; r < 10; r++) {
		work_hot();
		work_warm();
		work_cold();
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	head = mp->data_head;
	__sync_synchronize();
	data = (char *)mp + psz;
	for (off = mp->data_tail; off < head;) {
		struct perf_event_header *h = (void *)(data + off % (pages * psz));

		if (h->size == 0)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t ip = *(uint64_t *)(h + 1);

			total++;
			for (i = 0; i < n; i++)
				if (ip >= syms[i].addr && ip < (uint64_t)syms[i].addr + syms[i].size)
					break;
			if (i < n)
				syms[i].hits++;
			else
				unknown++;
		}
		off += h->size;
	}
	qsort(syms, n, sizeof(*syms), by_hits);
	printf("VPMU profile: %llu samples of instructions:u every %llu\n", (unsigned long long)total,
	       (unsigned long long)period);
	printf("VPMU profile:  samples  share  function\n");
	for (i = 0; i < n && i < 8 && syms[i].hits; i++)
		printf("VPMU profile: %8llu %5.1f%%  %s\n", (unsigned long long)syms[i].hits,
		       100.0 * syms[i].hits / total, syms[i].name);
	if (unknown)
		printf("VPMU profile: %8llu %5.1f%%  (no symbol)\n", (unsigned long long)unknown,
		       100.0 * unknown / total);
	/* 6:3:1 iterations: the order is the workload's, whatever the skid. */
	expect(n >= 3 && !strcmp(syms[0].name, "work_hot") && !strcmp(syms[1].name, "work_warm") &&
		       !strcmp(syms[2].name, "work_cold"),
	       "profile", 0, 0, "the hottest functions are work_hot, work_warm, work_cold in that order");
	munmap(mp, (pages + 1) * psz);
	close(fd);
	free(syms);
}
