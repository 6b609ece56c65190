# SPDX-License-Identifier: MIT
# vpmu — one top-level Makefile.
#   make            libvpmu.a, libvpmu.so and the programs in build/bin/
#   make lib        the library alone (libvpmu.a, libvpmu.so): needs only libxxhash
#   make check      everything again with ASan+UBSan, then every test under prove
#   make fuzz       libFuzzer targets (clang), each for FUZZ_SECONDS
#   make bench      callgrind instruction counts and ns/op (bench/README.md)
#   make demo       the main job: a profiled guest under the virtual PMU, with accounting
#   make install    headers, libvpmu.a, libvpmu.so.$(VERSION), libvpmu.pc, the four
#                   programs and their manual pages under $(DESTDIR)$(PREFIX)
#                   (PREFIX=/usr/local); make uninstall removes them again
#   make man        docs/man/*.md rendered from the manual pages in man/ (mandoc)
#   make riscv64    libvpmu and a static vpmu-run for riscv64 KVM hosts, cross-built
#                   into build/riscv64/ (docs/riscv.md "vpmu-run on RISC-V")
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS := -Iinclude -Ivpmu -D_GNU_SOURCE
LDLIBS  := -lxxhash -lpthread
# The tools' accounting formats (tools/acct_*.c) use json-c; libvpmu does not.
TOOL_LDLIBS := -ljson-c
# Only the public API (include/vpmu/*.h, which mark their declarations visible)
# leaves the shared library: tests/abi.t checks its dynamic symbol table.
VIS     := -fvisibility=hidden

# The version is written once, in include/vpmu/version.h (tests/version.t).
VERSION := $(shell sed -n 's/^\#define VPMU_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' \
	include/vpmu/version.h | paste -sd.)
SOMAJOR := 1
PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man

B       ?= build
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Test and fuzz builds also check the models' shortcuts against the full path
# (vpmu_txn_retarget: vpmu/model.h).
CHECKS  := -DVPMU_CONTRACT_CHECKS

# The architecture the build is for: x86 (the host's), or riscv64 (make
# riscv64, below: the RISC-V vpmu-run cross-built).  The KVM glue is per
# architecture: vmm-glue/kvm_riscv*.c is the RISC-V VMM's, linked into its
# vpmu-run and not into libvpmu; the rest of vmm-glue/ is x86's, in libvpmu.
VPMU_ARCH ?= x86
RISCV_GLUE := $(wildcard vmm-glue/kvm_riscv*.c)
X86_GLUE := $(filter-out $(RISCV_GLUE),$(wildcard vmm-glue/*.c))
RISCV_RUN := $(wildcard tools/run/riscv_*.c)
ifeq ($(VPMU_ARCH),riscv64)
LIB_SRC := $(sort $(wildcard vpmu/*.c vpmu/models/*.c vpmu/backends/*.c))
else
LIB_SRC := $(sort $(wildcard vpmu/*.c vpmu/models/*.c vpmu/backends/*.c) $(X86_GLUE))
endif
LIB_HDR := $(wildcard include/vpmu/*.h vpmu/*.h vpmu/models/*.h vpmu/backends/*.h)
# The programs' mains, one per folder of tools/ (below).
TOOL_MAINS := $(wildcard tools/*/vpmu-*.c)
TOOLS   := $(patsubst %.c,%,$(notdir $(TOOL_MAINS)))
# The event tables (docs/events.md): C and manual pages generated from
# data/perfmon by scripts/gen-events.py (Python 3, standard library only).
PYTHON  ?= python3
GEN_EVENTS := scripts/gen-events.py
PERFMON ?= data/perfmon
EVENT_DATA := $(sort $(wildcard $(PERFMON)/tables.csv $(PERFMON)/*/*.json $(PERFMON)/*/*/*.json \
	$(PERFMON)/*/*/*/*.json $(PERFMON)/intel/mapfile.csv))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/obj/%.o) $(B)/gen/events.o
UNIT    := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/*.c))

.PHONY: all lib event-man check check-linux test fuzz bench clean deps demo demo-bare demo-qemu kvm-programs guests install uninstall man version
.SECONDARY:
all: lib event-man $(TOOLS:%=$(B)/bin/%) $(B)/lib/libvpmu-acct-libvirt.a
# The library's build dependencies are libxxhash and the kernel's KVM headers
# (linux-libc-dev); json-c, libmicrohttpd and libvirt are the programs'.
lib: $(B)/lib/libvpmu.a $(B)/lib/libvpmu.so

# The library sees only its own headers; the tools and tests also theirs.
$(B)/obj/vpmu/%.o: vpmu/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(VIS) -fPIC $(CPPFLAGS) -c $< -o $@
$(B)/obj/vmm-glue/%.o: vmm-glue/%.c $(LIB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(VIS) -fPIC $(CPPFLAGS) -c $< -o $@
$(B)/obj/%.o: %.c $(LIB_HDR) $(wildcard tools/*/*.h tools/*/*/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(VIS) -fPIC $(CPPFLAGS) -Itools -Itests/unit -c $< -o $@

# A data file that is malformed or inconsistent fails here, naming the file and
# the entry (tests/events-gen.t).
$(B)/gen/events.c: $(GEN_EVENTS) $(EVENT_DATA)
	@mkdir -p $(dir $@)
	$(PYTHON) $(GEN_EVENTS) --data $(PERFMON) --c $@
# The Pentium 4's event lists, as X-macros vpmu/models/p4_events.c expands.
$(B)/gen/p4_event_list.h: $(GEN_EVENTS) $(EVENT_DATA)
	@mkdir -p $(dir $@)
	$(PYTHON) $(GEN_EVENTS) --data $(PERFMON) --p4 $@
$(B)/obj/vpmu/models/p4_events.o: $(B)/gen/p4_event_list.h
$(B)/obj/vpmu/models/p4_events.o: CPPFLAGS += -I$(B)/gen
$(B)/gen/events.o: $(B)/gen/events.c $(LIB_HDR)
	$(CC) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) $(VIS) -fPIC $(CPPFLAGS) -c $< -o $@
# One mdoc page per event table, vpmu-events-TABLE(7), in the build tree.
$(B)/man/.stamp: $(GEN_EVENTS) $(EVENT_DATA)
	@mkdir -p $(dir $@)
	rm -f $(B)/man/vpmu-events-*.7
	$(PYTHON) $(GEN_EVENTS) --data $(PERFMON) --man $(B)/man
	touch $@
event-man: $(B)/man/.stamp

$(B)/lib/libvpmu.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/lib/libvpmu.so: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libvpmu.so.$(SOMAJOR) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ $^ $(LDLIBS)

# make install [PREFIX=/usr/local] [DESTDIR=]: the public headers, both libraries
# (the shared one as libvpmu.so.$(VERSION) with its soname and development
# links), libvpmu.pc for pkg-config, the programs and the manual pages.
# The .pc is written at install time, so that it names this PREFIX.
PROGRAMS := vpmu-run vpmu-trace vpmu-stat vpmu-events
# A directory under PREFIX as $${prefix}/..., so that pkg-config's
# --define-prefix can move the tree (pkg-config(1)); one elsewhere as it is.
pc_dir = $(if $(filter $(PREFIX)/%,$(1)),$${prefix}/$(patsubst $(PREFIX)/%,%,$(1)),$(1))
MAN1    := $(sort $(wildcard man/*.1))
MAN3    := $(sort $(wildcard man/*.3))
# The event tables' names (the first column of data/perfmon/tables.csv).
EVENT_TABLES := $(shell sed -n '/^[a-z0-9]/{s/,.*//;/^table$$/d;p}' $(PERFMON)/tables.csv)
ACCT_HDRS := tools/accounting/acct_snapshot.h tools/accounting/libvirt/acct_typed_params.h
install: $(B)/lib/libvpmu.a $(B)/lib/libvpmu.so $(PROGRAMS:%=$(B)/bin/%) $(B)/man/.stamp \
		$(B)/lib/libvpmu-acct-libvirt.a
	install -d $(DESTDIR)$(INCDIR)/vpmu $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(INCDIR)/vpmu-acct/accounting/libvirt
	install -m 644 include/vpmu/*.h $(DESTDIR)$(INCDIR)/vpmu/
	install -m 644 tools/accounting/acct_snapshot.h $(DESTDIR)$(INCDIR)/vpmu-acct/accounting/
	install -m 644 tools/accounting/libvirt/acct_typed_params.h \
		$(DESTDIR)$(INCDIR)/vpmu-acct/accounting/libvirt/
	install -m 644 $(B)/lib/libvpmu-acct-libvirt.a $(DESTDIR)$(LIBDIR)/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_dir,$(LIBDIR))' \
		'includedir=$(call pc_dir,$(INCDIR))' '' \
		'Name: libvpmu-acct-libvirt' \
		'Description: a VM'"'"'s vpmu accounting as libvirt typed parameters' \
		'Version: $(VERSION)' 'Requires: libvpmu libvirt' \
		'Cflags: -I$${includedir}/vpmu-acct' 'Libs: -L$${libdir} -lvpmu-acct-libvirt' \
		> $(DESTDIR)$(LIBDIR)/pkgconfig/libvpmu-acct-libvirt.pc
	install -m 644 $(B)/lib/libvpmu.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/lib/libvpmu.so $(DESTDIR)$(LIBDIR)/libvpmu.so.$(VERSION)
	ln -sf libvpmu.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libvpmu.so.$(SOMAJOR)
	ln -sf libvpmu.so.$(SOMAJOR) $(DESTDIR)$(LIBDIR)/libvpmu.so
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_dir,$(LIBDIR))' \
		'includedir=$(call pc_dir,$(INCDIR))' '' \
		'Name: libvpmu' 'Description: a virtual PMU for KVM-based VMMs' 'Version: $(VERSION)' \
		'Requires.private: libxxhash' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lvpmu' \
		'Libs.private: -lpthread' > $(DESTDIR)$(LIBDIR)/pkgconfig/libvpmu.pc
	install -m 755 $(PROGRAMS:%=$(B)/bin/%) $(DESTDIR)$(BINDIR)/
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN3) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 $(B)/man/vpmu-events-*.7 $(DESTDIR)$(MANDIR)/man7/

# Everything install put there, and the one directory that is vpmu's alone
# (tests/install.t installs, uninstalls and finds nothing left).
uninstall:
	rm -f $(patsubst include/%,$(DESTDIR)$(INCDIR)/%,$(wildcard include/vpmu/*.h))
	-rmdir $(DESTDIR)$(INCDIR)/vpmu
	rm -f $(patsubst tools/%,$(DESTDIR)$(INCDIR)/vpmu-acct/%,$(ACCT_HDRS))
	-rmdir $(DESTDIR)$(INCDIR)/vpmu-acct/accounting/libvirt $(DESTDIR)$(INCDIR)/vpmu-acct/accounting \
		$(DESTDIR)$(INCDIR)/vpmu-acct
	rm -f $(DESTDIR)$(LIBDIR)/libvpmu-acct-libvirt.a $(DESTDIR)$(LIBDIR)/pkgconfig/libvpmu-acct-libvirt.pc
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libvpmu.a libvpmu.so.$(VERSION) libvpmu.so.$(SOMAJOR) \
		libvpmu.so pkgconfig/libvpmu.pc)
	rm -f $(PROGRAMS:%=$(DESTDIR)$(BINDIR)/%)
	rm -f $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) $(MAN3:man/%=$(DESTDIR)$(MANDIR)/man3/%)
	rm -f $(EVENT_TABLES:%=$(DESTDIR)$(MANDIR)/man7/vpmu-events-%.7)

# The manual pages are written once, in mdoc(7), in man/; docs/man/PAGE.md is
# their rendering for the web (mandoc -T markdown; Debian's mandoc package),
# committed, and tests/man.t fails when it is out of date.
man: $(patsubst man/%,docs/man/%.md,$(MAN1) $(MAN3))
docs/man/%.md: man/%
	@mkdir -p $(dir $@)
	mandoc -T lint -W warning $<
	mandoc -T markdown $< >$@.tmp && mv $@.tmp $@

# The tools (docs/design.md, "The programs"), one folder per concern, each
# using only the folders above it in this list:
#   accounting/  the snapshot data model, its formats and the JSON reader (json-c)
#   common/      what the programs' command lines share
#   live/        the VM side of the live accounting socket
#   trace/       the trace replayer, and vpmu-trace
#   run/         the VMM (devices, boot, KVM), and vpmu-run
#   stat/        the live view and the Prometheus exporter, and vpmu-stat
#   events/      vpmu-events
# Everything but the mains and stat/ goes into one archive, from which each
# program and test links what it uses.
TOOL_SRC := $(filter-out $(TOOL_MAINS) $(RISCV_RUN),$(wildcard tools/accounting/*.c \
		tools/common/*.c tools/live/*.c tools/trace/*.c tools/run/*.c))
TOOL_ARCHIVE := $(B)/lib/libvpmu-tools.a
$(TOOL_ARCHIVE): $(TOOL_SRC:%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(B)/bin/vpmu-trace: $(B)/obj/tools/trace/vpmu-trace.o $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(LDLIBS)
$(B)/bin/vpmu-events: $(B)/obj/tools/events/vpmu-events.o $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(LDLIBS)
ifneq ($(VPMU_ARCH),riscv64)
$(B)/bin/vpmu-run: $(B)/obj/tools/run/vpmu-run.o $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(LDLIBS)
endif

# libvirt typed parameters (tools/accounting/libvirt/, docs/accounting.md) are
# the only code that links libvirt.  They stay out of the archive, so neither
# libvpmu nor the programs need libvirt: vpmu-run is also linked static, and
# Debian's libvirt-dev has no static library.
VIRT_SRC := $(wildcard tools/accounting/libvirt/*.c)
VIRT_LDLIBS := -lvirt
# For VMMs and libvirt drivers: the snapshot (tools/accounting/acct_snapshot.c),
# the key walk and the builder; installed with its two headers under
# $(INCDIR)/vpmu-acct and libvpmu-acct-libvirt.pc (Requires: libvpmu, libvirt).
$(B)/lib/libvpmu-acct-libvirt.a: $(VIRT_SRC:%.c=$(B)/obj/%.o) $(B)/obj/tools/accounting/acct_keys.o \
		$(B)/obj/tools/accounting/acct_snapshot.o
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(B)/tests/acct_typed_params: $(B)/obj/tests/unit/acct_typed_params.o $(VIRT_SRC:%.c=$(B)/obj/%.o) \
		$(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(VIRT_LDLIBS) $(TOOL_LDLIBS) $(LDLIBS)

# vpmu-stat (tools/stat/: the live view and the Prometheus exporter) is the
# one program with libmicrohttpd, which has no usable static link in Debian.
# --web.config.file: libyaml parses it, libcrypt (libxcrypt) checks bcrypt.
STAT_SRC := $(wildcard tools/stat/*.c)
STAT_LDLIBS := -lmicrohttpd -lyaml -lcrypt
$(B)/bin/vpmu-stat: $(STAT_SRC:%.c=$(B)/obj/%.o) $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(STAT_LDLIBS) $(TOOL_LDLIBS) $(LDLIBS)

# The live path's test (tests/live_stat.t, and under TSan tests/tsan.t) uses
# vpmu-stat's client.
$(B)/tests/live_stat: $(B)/obj/tests/unit/live_stat.o $(filter-out %/vpmu-stat.o,$(STAT_SRC:%.c=$(B)/obj/%.o)) \
		$(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(STAT_LDLIBS) $(TOOL_LDLIBS) $(LDLIBS)

# vpmu-stat's QMP client (tests/stat_qmp.t).
$(B)/tests/stat_qmp: $(B)/obj/tests/unit/stat_qmp.o $(B)/obj/tools/stat/stat_qmp.o \
		$(B)/obj/tools/live/stat_dir.o $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(LDLIBS)

# The KVM glue's test answers the glue's KVM calls itself (tests/unit/kvm_glue.c).
$(B)/tests/kvm_glue: LDFLAGS += -Wl,--wrap=ioctl

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(TOOL_ARCHIVE) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(LDLIBS)

# The RISC-V glue's headers are not the library's (LIB_HDR): its objects and
# the RISC-V VMM's depend on them here.
$(RISCV_GLUE:%.c=$(B)/obj/%.o) $(RISCV_RUN:%.c=$(B)/obj/%.o): $(wildcard vmm-glue/kvm_riscv*.h)
# The RISC-V VMM's pure parts, tested on the build host (tests/riscv_*.t): the
# device tree writer read back with libfdt, the Image layout, and the exit
# dispatch with the glue's KVM calls answered by the test (--wrap=ioctl).
$(B)/tests/riscv_fdt: $(B)/obj/tests/unit/riscv_fdt.o $(B)/obj/tools/run/riscv_fdt.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ -lfdt
$(B)/tests/riscv_image: $(B)/obj/tests/unit/riscv_image.o $(B)/obj/tools/run/riscv_image.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^
$(B)/tests/riscv_exit: $(B)/obj/tests/unit/riscv_exit.o $(B)/obj/tools/run/riscv_exit.o \
		$(B)/obj/vmm-glue/kvm_riscv.o $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -Wl,--wrap=ioctl -o $@ $^ $(LDLIBS)

# make riscv64: libvpmu and a static vpmu-run for riscv64 KVM hosts
# (docs/riscv.md "vpmu-run on RISC-V"), cross-built with Debian's
# gcc-riscv64-linux-gnu into $(RVB) by this Makefile with VPMU_ARCH=riscv64.
# No riscv64 library but the cross glibc: xxHash is header-only
# (XXH_INLINE_ALL, the host's xxhash.h), the device tree has its own writer
# (tools/run/riscv_fdt.c), and the JSON accounting (json-c) is left out.
RVB := build/riscv64
RV_CC ?= riscv64-linux-gnu-gcc
.PHONY: riscv64
riscv64:
	$(MAKE) --no-print-directory VPMU_ARCH=riscv64 B=$(RVB) CC=$(RV_CC) CFLAGS="-O2 -g" \
		LDFLAGS=-static $(RVB)/bin/vpmu-run
ifeq ($(VPMU_ARCH),riscv64)
CPPFLAGS += -DXXH_INLINE_ALL -I$(B)/xxhash
LDLIBS  := -lpthread -latomic
$(B)/xxhash/xxhash.h:
	@mkdir -p $(dir $@)
	ln -sf /usr/include/xxhash.h $@
$(LIB_OBJ) $(B)/obj/vmm-glue/kvm_riscv.o: | $(B)/xxhash/xxhash.h
RV_TOOL_SRC := tools/common/cli.c tools/run/run_accounting.c tools/run/run_backend.c tools/run/run_file.c $(RISCV_RUN) \
	$(filter-out tools/accounting/acct_json.c tools/accounting/acct_json_read.c, \
		$(wildcard tools/accounting/*.c))
$(B)/bin/vpmu-run: $(RV_TOOL_SRC:%.c=$(B)/obj/%.o) $(RISCV_GLUE:%.c=$(B)/obj/%.o) $(B)/lib/libvpmu.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
endif

# Programs that run inside the nested KVM tier must be static (scripts/kvm-env),
# so they are built apart from the sanitizer build (ASan does not link static).
KVMB := build/static
# vpmu-stat cannot be static (libmicrohttpd): tests/live-view.t stages it with
# its libraries and loader.
kvm-programs:
	$(MAKE) --no-print-directory B=$(KVMB) LDFLAGS=-static CFLAGS="-O2 -g" $(KVMB)/bin/vpmu-run
	$(MAKE) --no-print-directory B=$(KVMB) CFLAGS="-O2 -g" $(KVMB)/bin/vpmu-stat

# The bare-metal guests (guest-tests/guest.mk): 32-bit freestanding images.
include guest-tests/guest.mk
# The PowerPC guest's /init and initramfs (make guest-ppc; scripts/ppc-guest).
include guest-tests/ppc/ppc.mk
# The RISC-V guest's static programs (make guest-riscv; scripts/riscv-guest-image).
include guest-tests/riscv/riscv.mk

# Tests run against the sanitizer build in build/san; the guest tier runs the
# static vpmu-run with the guest images under real KVM (tests/guests.t).
SANB := build/san
# Where threads share state (hyper-thread siblings' register file), a
# ThreadSanitizer build of the test that drives them (tests/tsan.t).
TSANB := build/tsan
check: deps
	$(MAKE) --no-print-directory B=$(SANB) EXTRA_CFLAGS="$(SAN) $(CHECKS)" CFLAGS="-O1 -g" all $(UNIT:%=$(SANB)/tests/%)
	$(MAKE) --no-print-directory B=$(TSANB) EXTRA_CFLAGS="-fsanitize=thread $(CHECKS)" CFLAGS="-O1 -g" $(TSANB)/tests/model_contract $(TSANB)/tests/live_stat $(TSANB)/tests/p4_ht $(TSANB)/tests/kvm_glue \
		$(TSANB)/bin/vpmu-stat $(TSANB)/bin/vpmu-trace
	$(MAKE) --no-print-directory kvm-programs guests
	VPMU_BUILD=$(SANB) VPMU_TSAN_BUILD=$(TSANB) VPMU_KVM_BUILD=$(KVMB) VPMU_GUEST_BUILD=$(B)/guest ASAN_OPTIONS=detect_leaks=1 prove tests/*.t
test: check

fuzz:
	$(MAKE) --no-print-directory -f fuzz/fuzz.mk

bench:
	$(MAKE) --no-print-directory -f bench/bench.mk

clean:
	rm -rf build

# The main job (README.md): a profiled Linux guest.  Debian's 686 kernel on an
# emulated Pentium III under vpmu-run, on KVM with the RDPMC exit (nested in QEMU
# TCG: scripts/kvm-env --patched-kvm); perf record and perf report inside the
# guest, then vpmu-run's accounting (scripts/demo-linux, docs/linux-guests.md).
# A PowerPC model (DEMO_MODEL=ppc7450, ...) profiles a workload inside the
# PowerPC Linux guest under qemu-system-ppc with patches/qemu-ppc instead
# (docs/ppc.md): its /init samples instruction addresses with perf and prints
# the hottest functions of the workload, then QEMU prints the vPMU's accounting.
DEMO_MODEL ?= p6
demo: deps
ifneq ($(filter ppc%,$(DEMO_MODEL)),)
	$(MAKE) --no-print-directory lib guest-ppc
	scripts/ppc-guest --model $(DEMO_MODEL) --append vpmucheck=profile
else
	$(MAKE) --no-print-directory all kvm-programs guests
	scripts/demo-linux $(DEMO_MODEL)
endif

# The main job's guest under QEMU with vpmu instead of vpmu-run (docs/qemu.md):
# the patched QEMU built once (scripts/qemu-build), perf record in the guest,
# then QEMU's query-stats of the vPMU.
demo-qemu: deps
	$(MAKE) --no-print-directory lib guests
	scripts/demo-qemu $(DEMO_MODEL)

# The bare-metal demo: a two-vCPU guest (guest-tests/demo) that samples its own
# cycles with PMIs as Linux's P6 driver programs them and prints its profile.
demo-bare: deps
	$(MAKE) --no-print-directory all kvm-programs guests
	scripts/kvm-env --timeout 300 --file $(B)/guest/demo-profile.bin -- \
		$(KVMB)/bin/vpmu-run --model $(DEMO_MODEL) --vcpus 2 --timeout 240 demo-profile.bin

# The Linux tier alone (docs/linux-guests.md): Linux boots, the guest images,
# perf inside the legacy models' guests (p6, k7, k8, p4, p4-em64t) and the
# architectural PMUs' (core2, nehalem, skylake, icelake, zen1, zen4).
check-linux: deps
	$(MAKE) --no-print-directory kvm-programs guests
	VPMU_KVM_BUILD=$(KVMB) VPMU_GUEST_BUILD=$(B)/guest prove tests/linux-boot.t tests/guest-image.t tests/linux-perf.t \
		tests/linux-modern.t

# The version (include/vpmu/version.h), for scripts and tests: make -s version.
version:
	@echo $(VERSION)

# Debian packages the build and tests need (fresh machine: README.md).
deps:
	scripts/install-deps
