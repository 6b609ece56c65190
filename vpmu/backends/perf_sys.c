/* SPDX-License-Identifier: MIT */
/* The perf backend's real system calls (perf_sys.h; perf_event_open(2)). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vpmu/event_table.h"
#include "perf_sys.h"

static int sys_open(void *c, struct perf_event_attr *attr)
{
	(void)c;
	/* pid 0, cpu -1: the calling (vCPU) thread, on whatever CPU it runs. */
	int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int sys_read(void *c, int fd, uint64_t *value)
{
	(void)c;
	ssize_t n = read(fd, value, sizeof(*value));
	if (n == (ssize_t)sizeof(*value))
		return 1;
	return n == 0 ? 0 : n < 0 ? -errno : -EIO;
}

static int sys_set_period(void *c, int fd, uint64_t period)
{
	(void)c;
	return ioctl(fd, PERF_EVENT_IOC_PERIOD, &period) < 0 ? -errno : 0;
}

static int sys_signal_thread(void *c, int fd, int signo)
{
	(void)c;
	/* The overflow is a signal to this very thread (not the process): it is
	 * the one inside KVM_RUN that must be kicked out. */
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 || fcntl(fd, F_SETSIG, signo) < 0)
		return -errno;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) < 0)
		return -errno;
	return 0;
}

static const volatile uint32_t *sys_map_lock(void *c, int fd)
{
	(void)c;
	/* The metadata page alone (no ring buffer): what self-monitoring reads. */
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	return &((const volatile struct perf_event_mmap_page *)p)->lock;
}

static void sys_unmap(void *c, const volatile uint32_t *lock)
{
	(void)c;
	const volatile char *page = (const volatile char *)lock - offsetof(struct perf_event_mmap_page, lock);
	munmap((void *)(uintptr_t)page, (size_t)sysconf(_SC_PAGESIZE));
}

static void sys_close(void *c, int fd)
{
	(void)c;
	close(fd);
}

static uint64_t sys_now_ns(void *c)
{
	(void)c;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The host CPU's identity is the event tables' business (event_table.h). */
static int sys_host_cpu(void *c, char vendor[13], unsigned *family, unsigned *cpumodel,
			unsigned *stepping)
{
	(void)c;
	return vpmu_events_host_cpu(vendor, family, cpumodel, stepping);
}

const struct vpmu_perf_sys vpmu_perf_sys_linux = {
	.open = sys_open,
	.read = sys_read,
	.set_period = sys_set_period,
	.signal_thread = sys_signal_thread,
	.map_lock = sys_map_lock,
	.unmap = sys_unmap,
	.close = sys_close,
	.now_ns = sys_now_ns,
	.host_cpu = sys_host_cpu,
	.ctx = NULL,
};
