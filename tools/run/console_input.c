/* SPDX-License-Identifier: MIT */
/* The console input thread of console_input.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#include "console_input.h"

#define POLL_MS 20

struct console_input {
	int fd;
	console_sink_fn *sink;
	void *arg;
	pthread_t thread;
	volatile bool stop;            /* written by console_input_stop, read by the thread */
	bool raw;                      /* the terminal was put in raw mode */
	struct termios saved;
};

static void *input_thread(void *p)
{
	struct console_input *ci = p;
	uint8_t buf[256];
	unsigned have = 0, off = 0;
	bool eof = false;
	while (!__atomic_load_n(&ci->stop, __ATOMIC_ACQUIRE)) {
		if (have) {
			unsigned took = ci->sink(ci->arg, buf + off, have);
			off += took;
			have -= took;
			if (took) {
				if (!have)
					off = 0;
				continue;
			}
		} else if (eof) {
			break;
		}
		struct pollfd pf = { .fd = ci->fd, .events = POLLIN };
		/* With bytes waiting for the sink, only wait; else wait for input. */
		int r = poll(have ? NULL : &pf, have ? 0 : 1, POLL_MS);
		if (r <= 0 || have)
			continue;
		ssize_t n = read(ci->fd, buf, sizeof(buf));
		if (n > 0) {
			have = (unsigned)n;
			off = 0;
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			eof = true;   /* the input ended: hand over what is left, then stop */
		}
	}
	return NULL;
}

int console_input_start(int fd, console_sink_fn *sink, void *arg, struct console_input **out)
{
	struct console_input *ci = calloc(1, sizeof(*ci));
	if (!ci)
		return -ENOMEM;
	ci->fd = fd;
	ci->sink = sink;
	ci->arg = arg;
	if (isatty(fd) && tcgetattr(fd, &ci->saved) == 0) {
		struct termios t = ci->saved;
		t.c_iflag &= ~(tcflag_t)(ICRNL | IXON);
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		ci->raw = tcsetattr(fd, TCSANOW, &t) == 0;
	}
	int r = pthread_create(&ci->thread, NULL, input_thread, ci);
	if (r) {
		if (ci->raw)
			tcsetattr(fd, TCSANOW, &ci->saved);
		free(ci);
		return -r;
	}
	*out = ci;
	return 0;
}

void console_input_stop(struct console_input *ci)
{
	if (!ci)
		return;
	__atomic_store_n(&ci->stop, true, __ATOMIC_RELEASE);
	pthread_join(ci->thread, NULL);
	if (ci->raw)
		tcsetattr(ci->fd, TCSANOW, &ci->saved);
	free(ci);
}
