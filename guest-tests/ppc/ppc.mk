# SPDX-License-Identifier: MIT
# The PowerPC guest's initramfs (guest-tests/ppc/, scripts/ppc-guest):
#     make guest-ppc        $(B)/guest-ppc/init and $(B)/guest-ppc/initrd.cpio
# /init is a static ppc32 program built with Debian's cross compiler
# (gcc-powerpc-linux-gnu, libc6-dev-powerpc-cross), not stripped: its profile
# check reads its own symbol table.  The archive is newc with /init alone: the
# kernel unpacks its built-in default initramfs (/dev/console) first, so no
# device node is needed here.

PPC_CC      ?= powerpc-linux-gnu-gcc
PPC_CFLAGS  := -std=c11 -O2 -Wall -Wextra -Werror -static
PPC_DIR     := guest-tests/ppc
PPC_SRC     := $(sort $(wildcard $(PPC_DIR)/*.c))

.PHONY: guest-ppc
guest-ppc: $(B)/guest-ppc/initrd.cpio

$(B)/guest-ppc/init: $(PPC_SRC) $(PPC_DIR)/vpmu-init.h $(PPC_DIR)/ppc.mk
	@mkdir -p $(dir $@)
	$(PPC_CC) $(PPC_CFLAGS) -o $@ $(PPC_SRC)

$(B)/guest-ppc/initrd.cpio: $(B)/guest-ppc/init
	cd $(B)/guest-ppc && echo init | cpio --quiet -o -H newc --owner=0:0 --reproducible >initrd.cpio.tmp && mv initrd.cpio.tmp initrd.cpio
