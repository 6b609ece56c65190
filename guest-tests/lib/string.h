/* SPDX-License-Identifier: MIT */
/* The few libc string functions the guests use; GCC may also emit calls to
 * memset/memcpy for aggregate initialisation even with -ffreestanding. */
#ifndef GUEST_STRING_H
#define GUEST_STRING_H

#include <stddef.h>

void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

#endif
