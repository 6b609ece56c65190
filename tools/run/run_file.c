/* SPDX-License-Identifier: MIT */
/*
 * vpmu-run's input files (IMAGE, --kernel, --initrd), read whole before
 * anything else is set up.  A file given on the command line may be anything:
 * a FIFO (whose open(2) for reading blocks until a writer comes, long before
 * --timeout is armed), a device that never ends, a directory, or a file larger
 * than guest memory.  So it is opened with O_NONBLOCK (open(2): a FIFO's
 * read-only open then returns at once), and fstat(2) decides before a byte is
 * read: a regular file, not empty, and no larger than guest memory, since
 * every loader copies the file into it (tools/run/guest_boot.c, linux_boot.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_file.h"

static int refuse(char *err, size_t errlen, int e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -e;
}

static const char *file_type(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ?
	       "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       "not a regular file";
}

int run_read_file(const char *path, size_t limit, uint8_t **data, size_t *size, char *err,
		  size_t errlen)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int e, fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return refuse(err, errlen, errno, "%s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		return refuse(err, errlen, e, "%s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(err, errlen, EINVAL, "%s, not a regular file", file_type(st.st_mode));
	}
	if (st.st_size == 0) {
		close(fd);
		return refuse(err, errlen, EINVAL, "empty file");
	}
	if ((uint64_t)st.st_size > limit) {
		close(fd);
		return refuse(err, errlen, EFBIG, "%lld bytes, more than the %zu MiB of guest memory "
			      "(--mem)", (long long)st.st_size, limit >> 20);
	}
	if (!(buf = malloc((size_t)st.st_size))) {
		close(fd);
		return refuse(err, errlen, ENOMEM, "%lld bytes: out of memory", (long long)st.st_size);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			free(buf);
			close(fd);
			if (n < 0)
				return refuse(err, errlen, e, "%s", strerror(e));
			return refuse(err, errlen, e, "it shrank while being read (%zu of %lld bytes)",
				      got, (long long)st.st_size);
		}
		got += (size_t)n;
	}
	close(fd);
	*data = buf;
	*size = got;
	return 0;
}
