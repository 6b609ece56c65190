/* SPDX-License-Identifier: MIT */
/*
 * A 16550A UART (COM1 at 0x3F8, IRQ 4), as much of it as a serial console
 * needs: Linux's 8250 driver probes it (IER and the scratch register read back,
 * the FIFO bits in IIR), sends with THR and the THRE interrupt, and receives
 * with RBR and the data-ready interrupt; a bare-metal guest polls LSR and
 * writes THR.  Registers: National Semiconductor/TI PC16550D data sheet,
 * "Register summary".  The model is pure: the VMM gives it port accesses and
 * input bytes, and it says what to print and where its interrupt line is.
 */
#ifndef VPMU_TOOLS_DEV_UART_H
#define VPMU_TOOLS_DEV_UART_H

#include <stdbool.h>
#include <stdint.h>

#define UART_COM1_BASE 0x3F8u
#define UART_COM1_IRQ  4u
#define UART_RX_FIFO   64u           /* bytes of input held (the 16550's FIFO is 16) */

struct uart {
	uint8_t ier, lcr, mcr, scr, fcr;
	uint8_t dll, dlm;
	bool thr_irq;                    /* THRE interrupt pending (cleared by an IIR read or a THR write) */
	uint8_t rx[UART_RX_FIFO];
	unsigned rx_head, rx_len;
};

void uart__init(struct uart *u);
/* A guest OUT to base + off (0-7).  Returns the byte to print, or -1. */
int uart__out(struct uart *u, unsigned off, uint8_t v);
/* A guest IN from base + off (0-7). */
uint8_t uart__in(struct uart *u, unsigned off);
/* Whether a driver listens: the received-data interrupt is enabled (and the
 * port is not in loopback).  A VMM holds input back until then. */
bool uart__rx_ready(const struct uart *u);
/* Input for the guest: how many of n bytes the receive buffer took. */
unsigned uart__input(struct uart *u, const uint8_t *bytes, unsigned n);
/* Whether the UART's interrupt line is asserted (OUT2 gates it onto the PIC, as
 * on a PC). */
bool uart__irq_line(const struct uart *u);

#endif
