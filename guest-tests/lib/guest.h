/* SPDX-License-Identifier: MIT */
/*
 * The guest runtime's whole API (docs/guest-tests.md).  A guest program
 * includes this and defines guest_main(), which the BSP calls once the IDT
 * is loaded and the command line parsed; returning from it is guest_exit().
 */
#ifndef GUEST_GUEST_H
#define GUEST_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../guest_abi.h"
#include "apic.h"
#include "cmdline.h"
#include "console.h"
#include "idt.h"
#include "layout.h"
#include "msr.h"
#include "printf.h"
#include "report.h"
#include "smp.h"
#include "string.h"
#include "timing.h"
#include "x86.h"

void guest_main(void);

#endif
