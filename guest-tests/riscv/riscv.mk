# SPDX-License-Identifier: MIT
# The RISC-V guest's static programs (guest-tests/riscv/, docs/riscv.md "The
# guest"; scripts/riscv-guest-image puts them into the initramfs):
#     make guest-riscv      $(B)/guest-riscv/vpmu-rv-workload
# Built with Debian's cross compiler (gcc-riscv64-linux-gnu,
# libc6-dev-riscv64-cross), static, -O1 -fno-inline and not stripped: perf
# report resolves the profile's samples against the workload's symbols.

RV_CC      ?= riscv64-linux-gnu-gcc
RV_CFLAGS  := -std=gnu11 -O1 -fno-inline -g0 -Wall -Wextra -Werror -static
RV_DIR     := guest-tests/riscv

.PHONY: guest-riscv
guest-riscv: $(B)/guest-riscv/vpmu-rv-workload

$(B)/guest-riscv/vpmu-rv-workload: $(RV_DIR)/workload.c $(RV_DIR)/riscv.mk
	@mkdir -p $(dir $@)
	$(RV_CC) $(RV_CFLAGS) -o $@ $(RV_DIR)/workload.c
