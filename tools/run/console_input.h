/* SPDX-License-Identifier: MIT */
/*
 * The VMM side of a serial console's input: a thread reads a file descriptor
 * (the terminal, or a pipe) and offers what it read to a sink (the UART) until
 * the sink takes it; bytes wait while the sink takes none, so typeahead is not
 * lost before the guest's driver listens.  A terminal is put in raw mode
 * (bytes as typed, no local echo: the guest echoes) and restored at the end;
 * its signals (Ctrl-C) still reach the VMM.
 */
#ifndef VPMU_TOOLS_CONSOLE_INPUT_H
#define VPMU_TOOLS_CONSOLE_INPUT_H

#include <stdint.h>

/* How many of the n bytes the sink took (0: try again later).  Called on the
 * input thread. */
typedef unsigned console_sink_fn(void *arg, const uint8_t *bytes, unsigned n);

struct console_input;

/* 0, or -errno (nothing started). */
int console_input_start(int fd, console_sink_fn *sink, void *arg, struct console_input **out);
/* Stops the thread and restores the terminal; NULL is a no-op. */
void console_input_stop(struct console_input *ci);

#endif
