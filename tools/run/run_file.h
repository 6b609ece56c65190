/* SPDX-License-Identifier: MIT */
/* vpmu-run's input files (tools/run/run_file.c), for the VMM of either architecture. */
#ifndef VPMU_TOOLS_RUN_RUN_FILE_H
#define VPMU_TOOLS_RUN_RUN_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Reads the file at path whole into *data (malloc'ed) and *size: a regular,
 * non-empty file of at most limit bytes, opened without blocking (a FIFO is
 * refused, not waited on).  0, or a negative errno with the reason in err
 * ("empty file", "a FIFO, not a regular file", its size against the limit)
 * and nothing allocated (tools/run/run_file.c). */
int run_read_file(const char *path, size_t limit, uint8_t **data, size_t *size, char *err,
		  size_t errlen);

#endif
