# make install / make uninstall (README.md, "Install"), included by the
# Makefile. Everything installed comes from $(BUILD), so a cross build
# (CROSS_COMPILE) installs what it built:
#   bin/hetrace
#   lib/libhetrace.a, lib/libhetrace.so* (the host library), and
#     lib/libhetrace-lttng.so when it is built (found by dlopen)
#   include/hetrace/{common,host/...}/*.h   the host library's API
#   share/hetrace/runtime/include/hetrace/*.h, .../src/*.c
#                            the target runtime, compiled into a firmware
#   share/hetrace/include/*.yaml  the standard includes of gen's configs
#   lib/pkgconfig/hetrace.pc, hetrace-runtime.pc
#   share/man/man1/hetrace.1, hetrace-COMMAND.1 (help2man, from --help)
#   share/bash-completion/completions/hetrace (from the option tables)
# The man pages and the completion are written by running hetrace:
# MAN_HETRACE names one that runs on the build machine (for a cross
# build, a native hetrace of the same tree, or the target's under
# qemu-user: MAN_HETRACE="qemu-aarch64 -L /usr/aarch64-linux-gnu build/hetrace").

PREFIX        ?= /usr/local
DESTDIR       ?=
bindir        ?= $(PREFIX)/bin
libdir        ?= $(PREFIX)/lib
includedir    ?= $(PREFIX)/include
datadir       ?= $(PREFIX)/share
mandir        ?= $(datadir)/man
completiondir ?= $(datadir)/bash-completion/completions
pkgconfigdir  ?= $(libdir)/pkgconfig
INSTALL       ?= install
MAN_HETRACE   ?= $(HETRACE)

HT_VERSION := $(shell sed -n 's/.*"hetrace \([0-9][0-9.]*\)\\n".*/\1/p' cli/main.c)
HT_SOVERSION := 0

# The host library's installed API: the CTF reader and writer, the
# capture reader, the clock fit, merge and sync run, the collector (every
# host/collect header but the internal ones), the error table. Their
# includes are all inside this set or the runtime's hetrace/*.h
# (tests/tools/test-install.sh compiles each one alone against the
# installed tree).
INSTALL_HDR := common/error.h common/yaml-doc.h host/ctf/ctf-reader.h host/ctf/ctf-writer.h \
	host/sync/capture-reader.h host/sync/clock-fit.h host/sync/convex-hull.h \
	host/sync/merge.h host/sync/sync-run.h \
	$(filter-out %-internal.h host/collect/master-ring-tracer.h, \
		$(wildcard host/collect/*.h))

# The shared library: the same sources compiled position-independent
# into $(BUILD)/pic, exporting the ht_* names (mk/libhetrace.map).
LIB_SO    := $(BUILD)/libhetrace.so.$(HT_SOVERSION)
PIC_OBJ   := $(HOST_SRC:%.c=$(BUILD)/pic/%.o) $(RT_SRC:%.c=$(BUILD)/pic/%.o) \
	$(BUILD)/pic/embedded-files.o \
	$(MASTER_EV_OBJ:$(BUILD)/%=$(BUILD)/pic/%)

$(BUILD)/pic/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -fPIC -fvisibility=default -c $< -o $@

# The recorder's generated tracer (host/collect/master-events.yaml).
$(BUILD)/pic/host/collect/gen/%.o: $(MASTER_EV_GEN)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -fPIC -c $< -o $@

$(MASTER_EV_USERS:$(BUILD)/%=$(BUILD)/pic/%): $(MASTER_EV_GEN)/master-events.h
$(MASTER_EV_USERS:$(BUILD)/%=$(BUILD)/pic/%): private HOST_CFLAGS += -I$(MASTER_EV_GEN)

$(BUILD)/pic/embedded-files.o: $(BUILD)/embedded-files.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -fPIC -c $< -o $@

$(LIB_SO): $(PIC_OBJ) mk/libhetrace.map
	$(CC) -shared -Wl,-soname,libhetrace.so.$(HT_SOVERSION) -Wl,-z,defs \
		-Wl,--version-script=mk/libhetrace.map $(LDFLAGS_ALL) \
		-o $@ $(PIC_OBJ) $(LDLIBS)

# The pkg-config files, for PREFIX.
$(BUILD)/pkgconfig/hetrace.pc: mk/install.mk cli/main.c FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(libdir)' \
		'includedir=$(includedir)' '' 'Name: hetrace' \
		'Description: hetrace host library: CTF reader and writer, capture reader, clock sync and merge, collector' \
		'Version: $(HT_VERSION)' 'Requires: hetrace-runtime' \
		'Cflags: -I$${includedir}/hetrace' 'Libs: -L$${libdir} -lhetrace' \
		'Libs.private: $(LDLIBS)' >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(BUILD)/pkgconfig/hetrace-runtime.pc: mk/install.mk cli/main.c FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' 'prefix=$(PREFIX)' 'datadir=$(datadir)' \
		'runtime_includedir=$${datadir}/hetrace/runtime/include' \
		'runtime_srcdir=$${datadir}/hetrace/runtime/src' \
		'yaml_includedir=$${datadir}/hetrace/include' '' \
		'Name: hetrace-runtime' \
		'Description: hetrace target runtime (C99, freestanding): headers, and sources in runtime_srcdir to compile into a firmware' \
		'Version: $(HT_VERSION)' 'Cflags: -I$${runtime_includedir}' >$@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

# The man pages and the completion, from the program.
$(BUILD)/man/hetrace.1: $(HETRACE) tools/gen-man.sh
	@rm -rf $(BUILD)/man
	tools/gen-man.sh "$(MAN_HETRACE)" $(BUILD)/man

$(BUILD)/completion/hetrace: $(HETRACE) tools/gen-completion.sh
	@mkdir -p $(dir $@)
	tools/gen-completion.sh "$(MAN_HETRACE)" $@

.PHONY: install uninstall install-files
install-files: $(HETRACE) $(LIB_HOST) $(LIB_SO) $(LTTNG_SO) \
	$(BUILD)/pkgconfig/hetrace.pc $(BUILD)/pkgconfig/hetrace-runtime.pc \
	$(BUILD)/man/hetrace.1 $(BUILD)/completion/hetrace

# The files to remove on uninstall are the ones install writes: the
# directories named after hetrace go whole.
install: install-files
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(libdir) \
		$(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(mandir)/man1 \
		$(DESTDIR)$(completiondir) $(DESTDIR)$(includedir)/hetrace \
		$(DESTDIR)$(datadir)/hetrace/runtime/include/hetrace \
		$(DESTDIR)$(datadir)/hetrace/runtime/src \
		$(DESTDIR)$(datadir)/hetrace/include
	$(INSTALL) -m 755 $(HETRACE) $(DESTDIR)$(bindir)/hetrace
	$(INSTALL) -m 644 $(LIB_HOST) $(DESTDIR)$(libdir)/libhetrace.a
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(libdir)/
	ln -sf libhetrace.so.$(HT_SOVERSION) $(DESTDIR)$(libdir)/libhetrace.so
	$(if $(LTTNG_SO),$(INSTALL) -m 755 $(LTTNG_SO) $(DESTDIR)$(libdir)/)
	for h in $(INSTALL_HDR); do \
		$(INSTALL) -D -m 644 $$h $(DESTDIR)$(includedir)/hetrace/$$h || exit 1; \
	done
	$(INSTALL) -m 644 include/hetrace/*.h \
		$(DESTDIR)$(datadir)/hetrace/runtime/include/hetrace/
	$(INSTALL) -m 644 runtime/*.c $(DESTDIR)$(datadir)/hetrace/runtime/src/
	$(INSTALL) -m 644 gen/include/*.yaml $(DESTDIR)$(datadir)/hetrace/include/
	$(INSTALL) -m 644 $(BUILD)/pkgconfig/*.pc $(DESTDIR)$(pkgconfigdir)/
	$(INSTALL) -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(mandir)/man1/
	$(INSTALL) -m 644 $(BUILD)/completion/hetrace $(DESTDIR)$(completiondir)/hetrace

uninstall:
	rm -f $(DESTDIR)$(bindir)/hetrace $(DESTDIR)$(libdir)/libhetrace.a \
		$(DESTDIR)$(libdir)/libhetrace.so $(DESTDIR)$(libdir)/libhetrace.so.$(HT_SOVERSION) \
		$(DESTDIR)$(libdir)/libhetrace-lttng.so \
		$(DESTDIR)$(pkgconfigdir)/hetrace.pc $(DESTDIR)$(pkgconfigdir)/hetrace-runtime.pc \
		$(DESTDIR)$(mandir)/man1/hetrace.1 $(DESTDIR)$(mandir)/man1/hetrace-*.1 \
		$(DESTDIR)$(completiondir)/hetrace
	rm -rf $(DESTDIR)$(includedir)/hetrace $(DESTDIR)$(datadir)/hetrace
