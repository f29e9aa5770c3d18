# hetrace — top-level build.
#   make         everything into build/ (the CLI is build/hetrace)
#   make demo    build and run the demo
#   make check   every test (sanitized build in build/asan)
#   make bench   benchmarks against the anchors (ratios, bench/results.md)
#   make CROSS_COMPILE=aarch64-linux-gnu-
#                the master tools (hetrace, the host library) for an
#                aarch64 Linux master into build/aarch64; the programs the
#                build runs are built with HOSTCC (docs/build.md)
# Sources are discovered by directory: adding a file needs no edit here.
# The folders and the rules between them: docs/architecture.md.

# A cross build (docs/build.md): CROSS_COMPILE=TRIPLET- compiles with
# $(CROSS_COMPILE)gcc into build/<cpu>, without elfutils unless
# NO_ELFUTILS=0; what the build runs on the build machine
# (tools/gen-boot) is built with HOSTCC into $(BUILD)/host. Taken from
# the command line only: a CROSS_COMPILE exported for a kernel build does
# not make `make check` a cross build.
ifneq ($(origin CROSS_COMPILE),command line)
CROSS_COMPILE :=
endif
HOSTCC        ?= cc
CROSS_TRIPLET := $(patsubst %-,%,$(notdir $(CROSS_COMPILE)))
ifneq ($(CROSS_COMPILE),)
BUILD   ?= build/$(firstword $(subst -, ,$(CROSS_TRIPLET)))
ifeq ($(origin CC),default)
CC      := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR      := $(CROSS_COMPILE)ar
endif
endif
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config
# Without elfutils, ELF function names (--elf) are refused with a message
# saying so (host/analysis/func-symbols-none.c).
NO_ELFUTILS ?= $(if $(CROSS_COMPILE),1)
ELFUTILS := $(if $(filter-out 0,$(NO_ELFUTILS)),,y)

BUILD   ?= build
CC      ?= cc
SAN     ?=
OPT     ?= -O2

WARN      = -Wall -Wextra -Werror
HOST_STD  = -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE
SANITIZE  = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
SANFLAGS  = $(if $(SAN),$(SANITIZE))
# Includes are written from the top of the tree ("host/ctf/ctf-reader.h",
# "common/error.h") or name a file of the same folder; the runtime's
# public headers are "hetrace/<name>.h".
HOST_CFLAGS = $(HOST_STD) $(OPT) -g $(WARN) $(SANFLAGS) -fvisibility=hidden \
	-Iinclude -I. -MMD -MP $(CFLAGS)
RT_CFLAGS = -std=c99 -pedantic $(OPT) -g $(WARN) $(SANFLAGS) -ffreestanding \
	-Iinclude -MMD -MP $(CFLAGS)
LDLIBS  = -lyaml $(if $(ELFUTILS),-ldw -lelf) -lm -lpthread
LDFLAGS_ALL = $(SANFLAGS) $(LDFLAGS)

# The host library, lowest layer first (docs/architecture.md).
HOST_DIRS := common gen/config gen/emit host/ctf host/collect host/sync \
	host/analysis host/export

RT_SRC   := $(wildcard runtime/*.c)
HOST_SRC := $(filter-out host/analysis/func-symbols$(if $(ELFUTILS),-none).c, \
	$(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c)))
CLI_SRC  := $(wildcard cli/*.c)
TEST_SRC := $(wildcard tests/*/t-*.c tests/*/*/t-*.c)

RT_OBJ   := $(RT_SRC:%.c=$(BUILD)/%.o)
HOST_OBJ := $(HOST_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:%.c=$(BUILD)/%)

# Files built into the binary (common/embedded.h), by name: the runtime
# headers as "hetrace/<name>.h", the standard config includes as
# "include/3/<name>.yaml", the others by their path in the tree.
EMBED_SRC := $(wildcard include/hetrace/*.h) $(wildcard gen/include/*.yaml) \
	$(wildcard host/export/report/*.js host/export/report/*.css \
	host/export/report/*.html) platforms/sim/frame-paths.yaml
EMBED_OBJ := $(BUILD)/embedded-files.o
embed_name = $(if $(filter gen/include/%,$(1)),$(patsubst gen/include/%,include/3/%,$(1)),$(patsubst include/%,%,$(1)))

LIB_RT   := $(BUILD)/libhetrace-rt.a
LIB_HOST := $(BUILD)/libhetrace.a
HETRACE  := $(BUILD)/hetrace

.PHONY: all deps demo demo-qemu check check-layers bench fuzz fuzz-bin clean \
	format format-check build-all FORCE

all: deps
	@$(MAKE) --no-print-directory build-all

build-all: $(HETRACE) $(LIB_RT) $(if $(CROSS_COMPILE),,$(TEST_BIN))

deps:
	@scripts/deps.sh build $(if $(CROSS_COMPILE),cross-$(CROSS_TRIPLET) \
		$(if $(ELFUTILS),cross-elfutils-$(CROSS_TRIPLET)))

$(BUILD)/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(LIB_RT): $(RT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/embedded-files.c: $(EMBED_SRC) tools/embed.sh
	@mkdir -p $(dir $@)
	tools/embed.sh $@ $(foreach f,$(EMBED_SRC),$(call embed_name,$(f))=$(f))

$(BUILD)/embedded-files.o: $(BUILD)/embedded-files.c
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(LIB_HOST): $(HOST_OBJ) $(RT_OBJ) $(EMBED_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# The subcommand table, from the `hetrace-command:` line of each cli/*.c.
$(BUILD)/cli-commands.h: $(CLI_SRC) tools/cli-table.sh
	@mkdir -p $(dir $@)
	@tools/cli-table.sh $@ $(CLI_SRC)

$(CLI_OBJ): $(BUILD)/cli-commands.h
$(CLI_OBJ): HOST_CFLAGS += -I$(BUILD)

# The simulated board (platforms/sim, docs/sim.md) is part of hetrace.
# Its tracepoints (board-*.yaml) go through the generator at build time,
# run as tools/gen-boot (the gen library alone: hetrace itself holds the
# generated code). One run writes the three files (a grouped target).
SIM_CFG   := $(wildcard platforms/sim/*/board-*.yaml)
SIM_GEN   := $(BUILD)/platforms/sim/gen
SIM_HDR   := $(foreach f,$(SIM_CFG),$(SIM_GEN)/$(basename $(notdir $(f))).h)
SIM_OBJ   := $(patsubst %.c,$(BUILD)/%.o,$(wildcard platforms/sim/*.c \
	platforms/sim/*/*.c)) \
	$(foreach f,$(SIM_CFG),$(SIM_GEN)/$(basename $(notdir $(f))).o \
	$(SIM_GEN)/$(basename $(notdir $(f)))-metadata.o)
GEN_BOOT  := $(BUILD)/tools/gen-boot

ifeq ($(CROSS_COMPILE),)
$(GEN_BOOT): $(BUILD)/tools/gen-boot.o $(LIB_HOST)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS)
else
# A cross build runs a gen-boot of the build machine: a native build of
# it (a sub-make, incremental) in HOST_BUILD, with HOSTCFLAGS/HOSTLDFLAGS.
HOST_BUILD ?= $(BUILD)/host
GEN_BOOT  := $(HOST_BUILD)/tools/gen-boot
$(GEN_BOOT): FORCE
	@$(MAKE) --no-print-directory $@ BUILD=$(HOST_BUILD) CROSS_COMPILE= \
		CC=$(HOSTCC) AR=ar PKG_CONFIG=pkg-config NO_ELFUTILS=$(NO_ELFUTILS) \
		SAN= CFLAGS="$(HOSTCFLAGS)" LDFLAGS="$(HOSTLDFLAGS)"
# (its recipe runs every time: the files generated after it are kept, so
# that the next run does not make them again)
.SECONDARY: $(foreach f,$(SIM_CFG),$(SIM_GEN)/$(basename $(notdir $(f)))-metadata.c)
endif

define sim_gen
$(SIM_GEN)/$(1).c $(SIM_GEN)/$(1).h $(SIM_GEN)/$(1).metadata &: $(2) $(GEN_BOOT)
	@rm -rf $(SIM_GEN)/$(1).out
	$(GEN_BOOT) gen $(2) -o $(SIM_GEN)/$(1).out --no-runtime
	mv $(SIM_GEN)/$(1).out/$(1).c $(SIM_GEN)/$(1).out/$(1).h $(SIM_GEN)/
	mv $(SIM_GEN)/$(1).out/metadata $(SIM_GEN)/$(1).metadata
endef
$(foreach f,$(SIM_CFG),$(eval $(call sim_gen,$(basename $(notdir $(f))),$(f))))

$(SIM_GEN)/%-metadata.c: $(SIM_GEN)/%.metadata tools/embed-text.sh
	tools/embed-text.sh $< $@

$(SIM_GEN)/%.o: $(SIM_GEN)/%.c
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(filter $(BUILD)/platforms/sim/%,$(SIM_OBJ)): $(SIM_HDR)
$(filter $(BUILD)/platforms/sim/%,$(SIM_OBJ)): private HOST_CFLAGS += -I$(SIM_GEN)
# The slaves' Sobel filter is instrumented (docs/sim.md, "Function tracing"),
# but for its per-pixel helper; the rest of the board and the tracer are not.
$(BUILD)/platforms/sim/target/sobel.o: private HOST_CFLAGS += -finstrument-functions \
	-finstrument-functions-exclude-function-list=sobel_gradient

# The QEMU board's master (platforms/qemu/master, docs/qemu.md) traces
# the master with the simulated board's master tracer.
QEMU_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard platforms/qemu/master/*.c))
$(QEMU_OBJ): $(SIM_HDR)
$(QEMU_OBJ): private HOST_CFLAGS += -I$(SIM_GEN)

$(HETRACE): $(CLI_OBJ) $(SIM_OBJ) $(QEMU_OBJ) $(LIB_HOST)
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(SIM_OBJ) $(QEMU_OBJ) $(LIB_HOST) $(LDLIBS)

# hetrace's LTTng-UST provider (platforms/linux/master, docs/lttng.md): a
# shared object next to hetrace, loaded at run time (`hetrace sim
# --lttng`), built only when liblttng-ust-dev is installed ($(PKG_CONFIG)
# finds it); never
# sanitized (lttng-ust is not).
LTTNG_SRC := $(wildcard platforms/linux/master/*.c)
LTTNG_SO  := $(if $(shell $(PKG_CONFIG) --exists lttng-ust 2>/dev/null && echo y),$(BUILD)/libhetrace-lttng.so)
$(BUILD)/libhetrace-lttng.so: $(LTTNG_SRC) $(wildcard platforms/linux/master/*.h) \
		host/collect/lttng-provider.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(OPT) -g $(WARN) -fPIC -shared -fvisibility=hidden \
		-I. -Iplatforms/linux/master $(shell $(PKG_CONFIG) --cflags lttng-ust) \
		-o $@ $(LTTNG_SRC) $(shell $(PKG_CONFIG) --libs lttng-ust)
build-all: $(LTTNG_SO)

$(BUILD)/tests/%: tests/%.c $(LIB_HOST)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $< $(LIB_HOST) $(LDFLAGS_ALL) $(LDLIBS)

demo: all
	@scripts/demo.sh $(BUILD)

# Firmware on QEMU Cortex-M3 and RISC-V with the Linux master (docs/qemu.md).
demo-qemu: all
	@scripts/deps.sh qemu
	@scripts/demo-qemu.sh $(BUILD)

# The include rules between the folders (docs/architecture.md).
check-layers:
	@tools/check-layers.sh

# The tests run against a build with AddressSanitizer and UBSan, after
# the include rules and the formatting are checked.
check:
	@scripts/deps.sh build check
	@tools/check-layers.sh
	@tools/format-check.sh
	@$(MAKE) --no-print-directory build-all BUILD=build/asan SAN=1 OPT=-O1
	@$(MAKE) --no-print-directory build-all
	@BUILD=build/asan HETRACE=$(CURDIR)/build/asan/hetrace \
		HETRACE_OPT=$(CURDIR)/build/hetrace tests/run.sh

bench: all
	@scripts/deps.sh bench
	@bench/run.sh $(BUILD)

# libFuzzer targets: every tests/<area>/fuzz/fuzz-NAME.c, seeded from
# tests/<area>/fuzz/seeds/fuzz-NAME/, linked against the host library
# built once with clang for coverage (build/fuzz/lib). `make fuzz` runs
# each for FUZZ_SECONDS into corpora kept in build/fuzz; make check runs
# each briefly (tests/tools/test-fuzz.sh). Any crash, hang, leak or
# sanitizer report fails.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_SRC     := $(wildcard tests/*/fuzz/fuzz-*.c tests/*/*/fuzz/fuzz-*.c)
FUZZ_BIN     := $(foreach f,$(FUZZ_SRC),build/fuzz/$(basename $(notdir $(f))))
FUZZ_LIBDIR  := build/fuzz/lib
FUZZ_LIB     := $(FUZZ_LIBDIR)/libhetrace.a
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined

# (a sub-make, outside the pattern rules' reach: its $(LIB_HOST) is this file)
ifneq ($(BUILD),$(FUZZ_LIBDIR))
$(FUZZ_LIB): FORCE
	@$(MAKE) --no-print-directory $@ BUILD=$(FUZZ_LIBDIR) CC=$(FUZZ_CC) \
		SAN=1 OPT=-O1 SANITIZE="$(FUZZ_SAN)"
endif

define fuzz_rule
build/fuzz/$(basename $(notdir $(1))): $(1) $(FUZZ_LIB) $(wildcard $(dir $(1))*.h)
	$(FUZZ_CC) $(HOST_STD) -O1 -g $(WARN) -Iinclude -I. -I$(dir $(1)) \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $$@ $(1) $(FUZZ_LIB) $(LDLIBS)
endef
$(foreach f,$(FUZZ_SRC),$(eval $(call fuzz_rule,$(f))))

fuzz-bin: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	@tools/fuzz.sh $(FUZZ_SECONDS) build/fuzz $(FUZZ_SRC)

FORCE:

clean:
	rm -rf build

# clang-format over every C file git tracks (.clang-format).
format:
	clang-format -i $$(git ls-files '*.c' '*.h')

format-check:
	@tools/format-check.sh

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
