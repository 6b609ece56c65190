/* SPDX-License-Identifier: MIT */
/*
 * The 16550A model (tools/run/dev_uart.c) against what its clients do: Linux's
 * 8250 probe (drivers/tty/serial/8250/8250_port.c, autoconfig()), its
 * interrupt-driven transmit and receive, and a bare-metal guest's polled
 * output (guest-tests/lib/console.c).  Expected values: the PC16550D data
 * sheet's register bits.
 */
#include <string.h>

#include "run/dev_uart.h"
#include "tap.h"

enum { THR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

int main(void)
{
	struct uart u;
	uart__init(&u);

	/* autoconfig(): the scratch register and IER read back... */
	uart__out(&u, SCR, 0xA5);
	is_u64(uart__in(&u, SCR), 0xA5, "the scratch register reads back");
	uart__out(&u, IER, 0);
	is_u64(uart__in(&u, IER), 0, "IER = 0 reads back 0");
	uart__out(&u, IER, 0x0F);
	is_u64(uart__in(&u, IER) & 0x0F, 0x0F, "IER = 0x0F reads back 0x0F (the 8250 probe's test)");
	uart__out(&u, IER, 0);
	/* ... the loopback test: MCR = LOOP | OUT2 | RTS gives MSR 0x90 (DCD, CTS) ... */
	uart__out(&u, MCR, 0x10 | 0x0A);
	is_u64(uart__in(&u, MSR) & 0xF0, 0x90, "loopback with OUT2 and RTS: MSR shows DCD and CTS (0x90)");
	/* ... and with the FIFOs enabled, IIR bits 6-7 = 11: a 16550A. */
	uart__out(&u, MCR, 0);
	uart__out(&u, FCR, 0x01);
	is_u64(uart__in(&u, IIR) >> 6, 3, "FCR enables the FIFOs: IIR bits 6-7 read 11 (a 16550A)");
	is_u64(uart__in(&u, IIR) & 0x0F, 0x01, "no interrupt pending: IIR bit 0 set");
	is_u64(uart__in(&u, MSR), 0xB0, "outside loopback a terminal is attached: DCD, DSR, CTS");

	/* DLAB: the divisor latch at offsets 0 and 1, the data registers hidden. */
	uart__out(&u, LCR, 0x83);
	uart__out(&u, THR, 0x01);
	uart__out(&u, IER, 0x00);
	is_u64(uart__in(&u, THR), 0x01, "DLAB: offset 0 is the divisor's low byte");
	uart__out(&u, LCR, 0x03);
	is_u64(uart__in(&u, IER), 0, "DLAB cleared: offset 1 is IER again (the divisor write did not reach it)");

	/* Polled output: LSR says THR is empty, a THR write is printed. */
	is_u64(uart__in(&u, LSR), 0x60, "LSR: THRE and TEMT, no data");
	is_u64(uart__out(&u, THR, 'h'), 'h', "a THR write prints its byte");
	ok(!uart__irq_line(&u), "no interrupt without IER bits");

	/* Interrupt-driven transmit: enabling THRI raises THRE at once; the line
	 * reaches the PIC only with OUT2; an IIR read acknowledges it. */
	uart__out(&u, IER, 0x02);
	ok(!uart__irq_line(&u), "THRE pending but OUT2 clear: the line stays low (a PC's gate)");
	uart__out(&u, MCR, 0x0B);
	ok(uart__irq_line(&u), "with OUT2 set the THRE interrupt asserts the line");
	is_u64(uart__in(&u, IIR), 0xC2, "IIR: THRE (0x02) with the FIFO bits");
	ok(!uart__irq_line(&u), "reading IIR acknowledged THRE: the line drops");
	uart__out(&u, THR, 'i');
	ok(uart__irq_line(&u), "after a THR write the register is empty again: THRE asserts again");
	uart__out(&u, THR, 'j');
	is_u64(uart__in(&u, IIR), 0xC2, "... and IIR says so");

	/* Receive: a VMM holds input back until a driver enables the
	 * received-data interrupt; input sets DR; RDI outranks THRE; RBR pops. */
	ok(!uart__rx_ready(&u), "receiver not ready while IER lacks the received-data interrupt");
	uart__out(&u, IER, 0x03);
	ok(uart__rx_ready(&u), "IER's received-data bit: a driver listens");
	const uint8_t in[] = "ls\n";
	is_u64(uart__input(&u, in, 3), 3, "three bytes of input taken");
	is_u64(uart__in(&u, LSR), 0x61, "LSR: data ready");
	is_u64(uart__in(&u, IIR), 0xC4, "IIR: received data (0x04) outranks THRE");
	ok(uart__irq_line(&u), "received data asserts the line");
	is_u64(uart__in(&u, THR), 'l', "RBR: first byte");
	is_u64(uart__in(&u, THR), 's', "RBR: second byte");
	is_u64(uart__in(&u, THR), '\n', "RBR: third byte");
	is_u64(uart__in(&u, LSR), 0x60, "LSR: no data left");
	is_u64(uart__in(&u, IIR), 0xC1, "IIR: nothing pending once the data is read (THRE was "
	       "acknowledged by the IIR read before the input)");
	ok(!uart__irq_line(&u), "... and the line is low");

	/* The receive buffer is bounded; FCR clears it. */
	uint8_t many[UART_RX_FIFO + 10];
	memset(many, 'x', sizeof(many));
	is_u64(uart__input(&u, many, sizeof(many)), UART_RX_FIFO, "input beyond the buffer is not taken");
	uart__out(&u, FCR, 0x03);
	is_u64(uart__in(&u, LSR) & 0x01, 0, "FCR bit 1 clears the receive FIFO");

	/* Loopback: THR writes come back as input and are not printed. */
	uart__out(&u, MCR, 0x1B);
	ok(!uart__rx_ready(&u), "in loopback the receiver takes no outside input");
	is_u64(uart__out(&u, THR, 'z'), (uint64_t)-1, "loopback: a THR write is not printed");
	is_u64(uart__in(&u, THR), 'z', "loopback: it comes back in RBR");
	return tap_done();
}
