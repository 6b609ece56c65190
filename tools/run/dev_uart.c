/* SPDX-License-Identifier: MIT */
/*
 * The 16550A of dev_uart.h.  Register offsets and bits: the PC16550D data
 * sheet; what Linux's 8250 driver checks when it probes a port
 * (drivers/tty/serial/8250/8250_port.c, autoconfig()): IER's low nibble reads
 * back, MSR shows CTS and DCD in loopback with RTS and OUT2 set (0x90), and IIR
 * bits 6-7 read 11 once FCR enables the FIFOs (a 16550A).
 */
#include <string.h>

#include "dev_uart.h"

enum { RBR_THR = 0, IER = 1, IIR_FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

#define IER_RDI   0x01   /* received data available */
#define IER_THRI  0x02   /* transmitter holding register empty */
#define IIR_NONE  0x01
#define IIR_THRI  0x02
#define IIR_RDI   0x04
#define IIR_FIFO  0xC0   /* FIFOs enabled: a 16550A */
#define FCR_ENABLE   0x01
#define FCR_CLEAR_RX 0x02
#define LCR_DLAB  0x80
#define MCR_DTR   0x01
#define MCR_RTS   0x02
#define MCR_OUT1  0x04
#define MCR_OUT2  0x08   /* gates the interrupt onto the PIC on a PC */
#define MCR_LOOP  0x10
#define LSR_DR    0x01
#define LSR_THRE  0x20
#define LSR_TEMT  0x40
#define MSR_CTS   0x10
#define MSR_DSR   0x20
#define MSR_RI    0x40
#define MSR_DCD   0x80

void uart__init(struct uart *u)
{
	memset(u, 0, sizeof(*u));
	u->dll = 12;   /* 9600 baud, what a PC's BIOS leaves */
}

static uint8_t uart_iir(const struct uart *u)
{
	uint8_t fifo = (u->fcr & FCR_ENABLE) ? IIR_FIFO : 0;
	if ((u->ier & IER_RDI) && u->rx_len)
		return fifo | IIR_RDI;
	if ((u->ier & IER_THRI) && u->thr_irq)
		return fifo | IIR_THRI;
	return fifo | IIR_NONE;
}

bool uart__irq_line(const struct uart *u)
{
	return (u->mcr & MCR_OUT2) && !(uart_iir(u) & IIR_NONE);
}

static void rx_push(struct uart *u, uint8_t b)
{
	if (u->rx_len < UART_RX_FIFO)
		u->rx[(u->rx_head + u->rx_len++) % UART_RX_FIFO] = b;
}

int uart__out(struct uart *u, unsigned off, uint8_t v)
{
	switch (off) {
	case RBR_THR:
		if (u->lcr & LCR_DLAB) {
			u->dll = v;
			return -1;
		}
		/* Sent at once: the holding register is empty again, and says so. */
		u->thr_irq = true;
		if (u->mcr & MCR_LOOP) {
			rx_push(u, v);
			return -1;
		}
		return v;
	case IER:
		if (u->lcr & LCR_DLAB) {
			u->dlm = v;
			return -1;
		}
		/* Enabling the THRE interrupt while THR is empty raises it. */
		if ((v & IER_THRI) && !(u->ier & IER_THRI))
			u->thr_irq = true;
		u->ier = v & 0x0F;
		return -1;
	case IIR_FCR:
		u->fcr = v & 0xC9;
		if (v & FCR_CLEAR_RX)
			u->rx_len = 0;
		return -1;
	case LCR:
		u->lcr = v;
		return -1;
	case MCR:
		u->mcr = v & 0x1F;
		return -1;
	case SCR:
		u->scr = v;
		return -1;
	default:   /* LSR, MSR: read-only */
		return -1;
	}
}

uint8_t uart__in(struct uart *u, unsigned off)
{
	switch (off) {
	case RBR_THR: {
		if (u->lcr & LCR_DLAB)
			return u->dll;
		if (!u->rx_len)
			return 0;
		uint8_t b = u->rx[u->rx_head];
		u->rx_head = (u->rx_head + 1) % UART_RX_FIFO;
		u->rx_len--;
		return b;
	}
	case IER:
		return (u->lcr & LCR_DLAB) ? u->dlm : u->ier;
	case IIR_FCR: {
		uint8_t iir = uart_iir(u);
		/* Reading IIR while it reports THRE acknowledges it. */
		if ((iir & 0x0F) == IIR_THRI)
			u->thr_irq = false;
		return iir;
	}
	case LCR:
		return u->lcr;
	case MCR:
		return u->mcr;
	case LSR:
		return LSR_THRE | LSR_TEMT | (u->rx_len ? LSR_DR : 0);
	case MSR:
		if (u->mcr & MCR_LOOP)
			return (uint8_t)(((u->mcr & MCR_RTS) ? MSR_CTS : 0) | ((u->mcr & MCR_DTR) ? MSR_DSR : 0) |
					 ((u->mcr & MCR_OUT1) ? MSR_RI : 0) | ((u->mcr & MCR_OUT2) ? MSR_DCD : 0));
		return MSR_DCD | MSR_DSR | MSR_CTS;   /* a terminal is attached */
	default:
		return u->scr;
	}
}

bool uart__rx_ready(const struct uart *u)
{
	return (u->ier & IER_RDI) && !(u->mcr & MCR_LOOP);
}

unsigned uart__input(struct uart *u, const uint8_t *bytes, unsigned n)
{
	unsigned k = 0;
	while (k < n && u->rx_len < UART_RX_FIFO)
		rx_push(u, bytes[k++]);
	return k;
}
