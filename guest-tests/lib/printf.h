/* SPDX-License-Identifier: MIT */
/*
 * A minimal printf into buffers: %d %i %u %x %X %s %c %p %%, the l and ll
 * length modifiers (so %llx, %llu, %lld), a field width, '0' padding and '-'
 * left alignment.  Output is always NUL-terminated and truncated to the buffer.
 */
#ifndef GUEST_PRINTF_H
#define GUEST_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
