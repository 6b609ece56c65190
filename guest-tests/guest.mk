# SPDX-License-Identifier: MIT
# Bare-metal guest images for vpmu-run (docs/guest-tests.md).
#
# Included from the top-level Makefile (paths are relative to the repository
# root; $(B) is the build directory, default build), or used alone:
#     make -f guest-tests/guest.mk B=build guests
# Produces $(B)/guest/<name>.bin (flat multiboot image, loaded at 1 MiB) and
# $(B)/guest/<name>.elf (the same, with symbols, for debugging); objects go to
# $(B)/guest/obj/.  A guest program is a directory of .c files defining
# guest_main(), linked with the runtime in guest-tests/lib/; GUEST_PROGRAMS
# maps image names to directories, and a program whose directory holds no .c
# file is left out.  $(B)/guest/vpmu-workload is an i386 Linux program (below).

B ?= build

_guest_mk := $(lastword $(MAKEFILE_LIST))
_guest_prev_goal := $(.DEFAULT_GOAL)

GUEST_DIR     := guest-tests
GUEST_CC      ?= gcc
GUEST_LD      ?= ld
GUEST_OBJCOPY ?= objcopy
# x86_64 gcc builds -m32 freestanding objects without multilib; no libgcc is
# linked, so the code avoids 64-bit division (printf.c divides by 10 itself).
GUEST_CFLAGS  := -m32 -ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-builtin \
		 -nostdlib -mno-sse -mno-mmx -mno-80387 -fno-asynchronous-unwind-tables \
		 -O2 -g -std=c11 -Wall -Wextra -Werror -I$(GUEST_DIR)/lib -MMD -MP
GUEST_LDFLAGS := -m elf_i386 -nostdlib -static -T $(GUEST_DIR)/lib/link.ld

# image-name:directory (under guest-tests/)
GUEST_PROGRAMS := pmu-tests:pmu arch-tests:arch demo-profile:demo bench-exits:bench-exits live-busy:live \
		  migrate-check:migrate
_guest_dir     = $(lastword $(subst :, ,$(filter $(1):%,$(GUEST_PROGRAMS))))
GUEST_PROGS   := $(foreach p,$(GUEST_PROGRAMS),$(if $(wildcard $(GUEST_DIR)/$(lastword $(subst :, ,$(p)))/*.c),$(firstword $(subst :, ,$(p)))))
GUEST_IMAGES  := $(GUEST_PROGS:%=$(B)/guest/%.bin)

GUEST_LIB_SRC := $(sort $(wildcard $(GUEST_DIR)/lib/*.c $(GUEST_DIR)/lib/*.S))
GUEST_LIB_OBJ := $(patsubst $(GUEST_DIR)/%,$(B)/guest/obj/%.o,$(basename $(GUEST_LIB_SRC)))
_guest_prog_obj = $(patsubst $(GUEST_DIR)/%.c,$(B)/guest/obj/%.o, \
	$(sort $(wildcard $(GUEST_DIR)/$(call _guest_dir,$(1))/*.c)))
GUEST_OBJS    := $(GUEST_LIB_OBJ) $(foreach p,$(GUEST_PROGS),$(call _guest_prog_obj,$(p)))

.PHONY: guests
guests: $(GUEST_IMAGES) $(B)/guest/vpmu-workload $(B)/guest/vpmu-selfcount
# Keep the objects and the .elf (make would delete them as intermediates).
# .PRECIOUS, not .SECONDARY with a list: a .SECONDARY with prerequisites would
# cancel the including Makefile's bare .SECONDARY (every target secondary).
.PRECIOUS: $(B)/guest/obj/%.o $(B)/guest/%.elf

$(B)/guest/obj/%.o: $(GUEST_DIR)/%.c $(_guest_mk)
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@

$(B)/guest/obj/%.o: $(GUEST_DIR)/%.S $(_guest_mk)
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_CFLAGS) -c $< -o $@

.SECONDEXPANSION:
$(B)/guest/%.elf: $(GUEST_LIB_OBJ) $$(call _guest_prog_obj,$$*) $(GUEST_DIR)/lib/link.ld
	@mkdir -p $(dir $@)
	$(GUEST_LD) $(GUEST_LDFLAGS) -o $@ $(GUEST_LIB_OBJ) $(call _guest_prog_obj,$*)

# The flat image, then a check of its multiboot header against the ELF's
# symbols (check-image.sh), so a broken image fails the build, not the boot.
$(B)/guest/%.bin: $(B)/guest/%.elf $(GUEST_DIR)/check-image.sh
	$(GUEST_OBJCOPY) -O binary $< $@.tmp
	sh $(GUEST_DIR)/check-image.sh $@.tmp $<
	mv $@.tmp $@

# vpmu-workload: not a bare-metal guest but a freestanding i386 Linux program
# (its own _start, int $0x80 system calls, no libc), for perf in a Linux guest
# booted with scripts/guest-image's kernel and initramfs.  Static and not
# stripped: perf report names hot_crc_loop and cold_mix_loop.
GUEST_LINUX_CFLAGS := -m32 -march=i686 -static -nostdlib -ffreestanding -fno-pie -no-pie \
		      -fno-stack-protector -O1 -g -std=c11 -Wall -Wextra -Werror -Wl,--build-id

$(B)/guest/vpmu-workload: $(GUEST_DIR)/linux/workload.c $(GUEST_DIR)/linux/i386_linux.h $(_guest_mk)
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_LINUX_CFLAGS) -o $@ $<

# vpmu-selfcount: the same kind of program, the simplest perf client (events
# it opens on itself with perf_event_open and ioctl).
$(B)/guest/vpmu-selfcount: $(GUEST_DIR)/linux/selfcount.c $(GUEST_DIR)/linux/i386_linux.h $(_guest_mk)
	@mkdir -p $(dir $@)
	$(GUEST_CC) $(GUEST_LINUX_CFLAGS) -o $@ $<

-include $(GUEST_OBJS:.o=.d)

# Keep the including Makefile's default goal (this file defines targets).
ifneq ($(firstword $(MAKEFILE_LIST)),$(_guest_mk))
.DEFAULT_GOAL := $(_guest_prev_goal)
endif
