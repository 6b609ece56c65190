/* SPDX-License-Identifier: MIT */
/* Console output: one OUT of a byte per character to the 16550 at 0x3F8
 * (guest_abi.h: VPMU_PORT_SERIAL; its line status always reads ready). */
#ifndef GUEST_CONSOLE_H
#define GUEST_CONSOLE_H

/* Writes s and a newline as one line; lines from different vCPUs do not
 * interleave (a lock, taken with a bounded spin). */
void console_line(const char *s);

#endif
