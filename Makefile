# SPDX-License-Identifier: GPL-3.0-or-later
# brock: one non-recursive Makefile. Output goes to build/ (or build/asan/ for the
# sanitizer build). Honours CFLAGS, CPPFLAGS, LDFLAGS, PREFIX and DESTDIR.

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
LD      ?= ld
OBJCOPY ?= objcopy

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
        -Wcast-qual -Wwrite-strings -Wformat=2 -Wundef -Wvla -Wimplicit-fallthrough
ifeq ($(WERROR),1)
WARN += -Werror
endif

ifeq ($(SANITIZE),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDOPT := -fsanitize=address,undefined
else
OPT := -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
LDOPT := -pie -Wl,-z,relro,-z,now
endif

# libpq gives its headers only: the PostgreSQL store loads libpq.so.5 with dlopen() when one is
# opened (src/store/pq.h), so that a process on SQLite never maps libpq and its dependencies.
PKGS := libpsl sqlite3 jansson yajl libidn2 libevent libevent_openssl libcares openssl zlib \
	libbrotlidec libsystemd libnghttp2 libpcre2-8
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) libpq 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lhttp_parser -lm

ALL_CPPFLAGS := -D_GNU_SOURCE -DBROCK_BUILDING -Iinclude -Isrc $(PKG_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS   := -std=c11 $(OPT) $(WARN) -fvisibility=hidden -MMD -MP $(CFLAGS)
ALL_LDFLAGS  := $(LDOPT) $(LDFLAGS)

# The library's helpers; the log is the programs' only (the library prints nothing).
UTIL_SRC   := $(filter-out src/util/log.c,$(wildcard src/util/*.c))
# The library's rooms (docs/design.md): Privacy Badger's data, decisions and learning, the
# store, HAR reading, the exports, and the opening that joins them.
ENGINE_SRC := $(wildcard src/data/*.c src/engine/*.c src/store/*.c src/har/*.c src/export/*.c \
	src/front/*.c)
# The rooms of brock run around the library: transports and TLS, HTTP heads, what the proxy
# counts and logs, running as a process and whom to let in, the proxy, the dashboard, the
# background jobs (docs/design.md).
RUN_SRC    := $(wildcard src/net/*.c src/http/*.c src/monitor/*.c src/process/*.c src/proxy/*.c \
	src/dash/*.c src/jobs/*.c) src/util/log.c
CLI_SRC    := $(wildcard src/cli/*.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
BENCH_SRC  := $(wildcard bench/*.c)

LIB_OBJ   := $(UTIL_SRC:%.c=$(BUILD)/%.o) $(ENGINE_SRC:%.c=$(BUILD)/%.o)
RUN_OBJ   := $(RUN_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

LIB  := $(BUILD)/libbrock.a
BIN  := $(BUILD)/brock
# The library as other programs link it (make install); brock and the tests link $(LIB).
PUBLIC_LIB := $(BUILD)/public/libbrock.a

VERSION := $(shell sed -n 's/^\#define BROCK_VERSION "\(.*\)"$$/\1/p' include/brock.h)

# Tests read real data (Privacy Badger's files, Public Suffix List vectors) from tests/data/
# (its README says where each file comes from); override with TESTDATA=DIR.
TESTDATA ?= tests/data

.PHONY: all check asan fuzz lint lint-installed format bench install clean deps run unit \
	integration pkgconfig deb

all: $(BIN) $(PUBLIC_LIB)

deps:
	@scripts/deps

# Before anything is compiled, pkg-config's own words for a library it cannot find. The flags
# above are read quietly, when make starts: on a fresh machine that is before scripts/deps
# has installed anything, and they are empty. So every target that installs what is missing
# first (check, asan, run, fuzz, lint; deb builds in a make of dpkg-buildpackage's) does
# its work in a second make, which reads them again.
pkgconfig:
	@pkg-config --print-errors --exists $(PKGS) libpq || { \
		echo "brock: libraries are missing (above); scripts/deps installs them" >&2; exit 1; }

$(BUILD)/%.o: %.c | pkgconfig
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The same objects linked into one, in which every symbol not marked BROCK_API (they are
# built with -fvisibility=hidden) is made local: a program linking it sees only brock_*, never
# the helpers (buf_*, strmap_*, ...) or the engine's brock__ internals, which the unit tests
# reach through $(LIB).
$(BUILD)/public/brock.o: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(LD) -r -o $@.tmp $^
	$(OBJCOPY) --localize-hidden $@.tmp $@
	rm -f $@.tmp

$(PUBLIC_LIB): $(BUILD)/public/brock.o
	rm -f $@
	ar rcs $@ $^

# The dashboard's files (web/) become a C file built into brock, by a generator built first.
WEB_SRC := $(sort $(wildcard web/*))
WEB_OBJ := $(BUILD)/gen/web_files.o

$(BUILD)/gen/embed: scripts/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -o $@ $<

$(BUILD)/gen/web_files.c: $(BUILD)/gen/embed $(WEB_SRC)
	$(BUILD)/gen/embed $(WEB_SRC) > $@.tmp && mv $@.tmp $@

$(WEB_OBJ): $(BUILD)/gen/web_files.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The hosts never intercepted that brock ships (data/https-exclusions/), built in the same way.
EXCL_SRC := $(sort $(wildcard data/https-exclusions/*.txt))
EXCL_OBJ := $(BUILD)/gen/exclusions.o

$(BUILD)/gen/exclusions.c: $(BUILD)/gen/embed $(EXCL_SRC)
	$(BUILD)/gen/embed --text passthrough_shipped $(EXCL_SRC) > $@.tmp && mv $@.tmp $@

$(EXCL_OBJ): $(BUILD)/gen/exclusions.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# ClearURLs' rules that brock ships (data/clearurls/), built in the same way.
CLEAN_SRC := data/clearurls/data.min.json
CLEAN_OBJ := $(BUILD)/gen/clearurls.o

$(BUILD)/gen/clearurls.c: $(BUILD)/gen/embed $(CLEAN_SRC)
	$(BUILD)/gen/embed --text clearurls_shipped $(CLEAN_SRC) > $@.tmp && mv $@.tmp $@

$(CLEAN_OBJ): $(BUILD)/gen/clearurls.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(BIN): $(CLI_OBJ) $(RUN_OBJ) $(WEB_OBJ) $(EXCL_OBJ) $(CLEAN_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(RUN_OBJ) $(WEB_OBJ) $(EXCL_OBJ) \
		$(CLEAN_OBJ) $(LIB) \
		$(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(filter %.o,$^) $(LIB) \
		$(PKG_LIBS) $(shell pkg-config --libs cmocka 2>/dev/null)

# Unit tests of the rooms outside the library link the objects they test.
NET_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/net/*.c))
$(BUILD)/tests/test_ca $(BUILD)/tests/test_dial $(BUILD)/tests/test_dns $(BUILD)/tests/test_tls \
	$(BUILD)/tests/test_tls_sessions: $(NET_OBJ)
$(BUILD)/tests/test_intercept: $(NET_OBJ) $(BUILD)/src/proxy/intercept.o
$(BUILD)/tests/test_resolve: $(BUILD)/src/net/resolve.o
$(BUILD)/tests/test_fetch: $(NET_OBJ) $(BUILD)/src/http/head.o $(BUILD)/src/jobs/fetch.o $(BUILD)/src/util/log.o
$(BUILD)/tests/test_access: $(BUILD)/src/process/access.o
$(BUILD)/tests/test_clientnames: $(BUILD)/src/process/access.o $(BUILD)/src/process/clientnames.o
$(BUILD)/tests/test_proxyproto: $(BUILD)/src/process/proxyproto.o
$(BUILD)/tests/test_log: $(BUILD)/src/util/log.o
$(BUILD)/tests/test_firstparty: $(BUILD)/src/proxy/firstparty.o
$(BUILD)/tests/test_report: $(BUILD)/src/proxy/report.o
$(BUILD)/tests/test_reportlimit: $(BUILD)/src/proxy/reportlimit.o
$(BUILD)/tests/test_widgetallow: $(BUILD)/src/proxy/widgetallow.o
$(BUILD)/tests/test_passthrough: $(BUILD)/src/proxy/passthrough.o $(EXCL_OBJ)
$(BUILD)/tests/test_scriptjobs: $(BUILD)/src/proxy/scriptjobs.o
$(BUILD)/tests/test_framing: $(BUILD)/src/proxy/framing.o
$(BUILD)/tests/test_socks: $(BUILD)/src/proxy/socks.o
$(BUILD)/tests/test_nftrules: $(BUILD)/src/process/nftrules.o $(BUILD)/src/net/origdst.o
$(BUILD)/tests/test_peek: $(BUILD)/src/proxy/peek.o
$(BUILD)/tests/test_inject: $(BUILD)/src/proxy/inject.o
$(BUILD)/tests/test_csp: $(BUILD)/src/proxy/csp.o
$(BUILD)/tests/test_decode: $(BUILD)/src/proxy/decode.o
$(BUILD)/tests/test_decode: PKG_LIBS += -lbrotlienc
# It sets up its databases with libpq itself.
$(BUILD)/tests/test_store_backends: PKG_LIBS += -lpq
$(BUILD)/tests/test_http: $(BUILD)/src/http/head.o
$(BUILD)/tests/test_h2req: $(BUILD)/src/http/head.o $(BUILD)/src/http/h2req.o
$(BUILD)/tests/test_h2resp: $(BUILD)/src/http/head.o $(BUILD)/src/http/h2resp.o
$(BUILD)/tests/test_owner: $(BUILD)/src/dash/owner.o
$(BUILD)/tests/test_blocked: $(BUILD)/src/proxy/blocked.o $(BUILD)/src/http/head.o
$(BUILD)/tests/test_rewrite: $(BUILD)/src/http/head.o $(BUILD)/src/proxy/rewrite.o
$(BUILD)/tests/test_side: $(BUILD)/src/proxy/framing.o $(BUILD)/src/http/head.o \
	$(BUILD)/src/proxy/side.o

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# Every test, unit and integration, in one prove run so that one summary closes it. Each file
# runs under timeout(1) in a process group of its own: past TEST_DEADLINE seconds it and
# everything it started are killed, and it fails (exit 124). The node tests also stop
# themselves a little earlier (BROCK_TEST_DEADLINE), saying so.
TEST_DEADLINE ?= 900

# Test files run TEST_JOBS at a time: most of a file's time is spent waiting on the network,
# a browser or a timer, so two at once on two cores takes little more than one. The heavy
# ones (a browser each, valgrind, building the Debian package, thousands of connections,
# floods, memory limits) run one after another among themselves, beside the light ones
# (scripts/testrun: a lock, and the order).
TEST_JOBS ?= 2
HEAVY_TESTS := $(wildcard tests/browser/*.t) $(addprefix tests/integration/,$\
	valgrind.t deb.t load.t flood.t oom.t)
TESTS = $(shell scripts/testrun order $(HEAVY_TESTS) -- $(UNIT_BIN) $\
	$(filter-out $(HEAVY_TESTS),$(wildcard tests/integration/*.t)))

check:
	@scripts/deps test
	@$(MAKE) --no-print-directory BUILD=$(BUILD) $(BIN) $(PUBLIC_LIB) $(UNIT_BIN)
	@rm -f $(BUILD)/test-failures.txt
	BROCK=$(abspath $(BIN)) BROCK_TESTDATA=$(abspath $(TESTDATA)) CMOCKA_MESSAGE_OUTPUT=TAP \
	BROCK_TEST_DEADLINE=$$(($(TEST_DEADLINE) - 30)) \
	BROCK_MAKE="$(MAKE) --no-print-directory -C $(CURDIR) BUILD=$(BUILD) SANITIZE=$(SANITIZE)" \
	BROCK_TEST_FAILURES=$(abspath $(BUILD))/test-failures.txt \
	BROCK_TEST_HEAVY="$(HEAVY_TESTS)" BROCK_TEST_LOCK=$(abspath $(BUILD))/test-heavy.lock \
		prove -f --timer -j$(TEST_JOBS) --exec 'scripts/testrun $(TEST_DEADLINE)' $(TESTS) || { \
		st=$$?; [ ! -s $(BUILD)/test-failures.txt ] || cat $(BUILD)/test-failures.txt; exit $$st; }

asan:
	@scripts/deps test
	@$(MAKE) --no-print-directory SANITIZE=1 BUILD=build/asan check

run:
	@scripts/deps
	@$(MAKE) --no-print-directory BUILD=$(BUILD) $(BIN)
	$(BIN) ca offer
	$(BIN) run

bench: $(BIN) $(BENCH_BIN)
	BROCK=$(abspath $(BIN)) BROCK_TESTDATA=$(abspath $(TESTDATA)) \
	BROCK_BENCH_DIR=$(abspath $(BUILD)/bench) bench/run

# Fuzzing (fuzz/README.md): clang, libFuzzer, ASan and UBSan. The library and the proxy's
# parsers are built with coverage into build/fuzz/; each target then runs FUZZ_TIME seconds
# after its regression inputs. A crash, leak or timeout fails.
FUZZ_CC      ?= clang
FUZZ_TIME    ?= 60
FUZZ_BUILD   := build/fuzz
FUZZ_TARGETS := http_request http_response cookie domain resolve har pbjson pbconfig surrogates_js \
                inject report proxyproto diff_normalize diff_base diff_decide diff_har h2req h2resp \
                owner clearurls socks peek
FUZZ_PURE    := http/head http/h2req http/h2resp proxy/rewrite proxy/firstparty net/resolve proxy/framing proxy/side \
                proxy/inject proxy/csp proxy/report process/proxyproto dash/owner proxy/socks proxy/peek
FUZZ_BIN     := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/%)

fuzz:
	@scripts/deps fuzz
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) SANITIZE=1 BUILD=$(FUZZ_BUILD) \
		CFLAGS=-fsanitize=fuzzer-no-link $(FUZZ_BIN)
	fuzz/run $(FUZZ_TIME) $(FUZZ_BUILD) $(FUZZ_TARGETS)

$(BUILD)/fuzz/%: fuzz/%.c $(FUZZ_PURE:%=$(BUILD)/src/%.o) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer $(ALL_LDFLAGS) -o $@ \
		$(filter %.c %.o %.a,$^) $(PKG_LIBS)

-include $(FUZZ_BIN:=.d) $(FUZZ_PURE:%=$(BUILD)/src/%.d)

# cppcheck, then clang-tidy's analyzer and bugprone checks, failing on any finding. Left out:
# swappable parameters and reserved names (style), the C11 Annex K "_s" functions glibc does
# not have, and the va_list check, which clang 14 gets wrong for a va_list passed in.
TIDY_CHECKS := -*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters
TIDY_CHECKS := $(TIDY_CHECKS),-bugprone-reserved-identifier,-clang-analyzer-valist.Uninitialized,-clang-analyzer-valist.Unterminated
TIDY_CHECKS := $(TIDY_CHECKS),-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling

# cppcheck reads no system header, but the <sys/queue.h> list macros declare structures: it is
# given that one header before each file.
QUEUE_H := $(firstword $(wildcard /usr/include/sys/queue.h /usr/include/*/sys/queue.h))

# Both run on every core: clang-tidy a few files an invocation (xargs fails when one does).
NPROC := $(shell nproc 2>/dev/null || echo 1)

lint:
	@scripts/deps lint
	@$(MAKE) --no-print-directory lint-installed

# lint's checks, once what they need is installed (and pkg-config's flags can be read).
lint-installed:
	@! find tests -name '*.t' -not -path '*/node_modules/*' ! -perm -u+x | grep . || \
		{ echo 'lint: these tests are not executable (prove runs each file itself)' >&2; exit 1; }
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --std=c11 \
		-j $(NPROC) -Iinclude -Isrc --suppress=missingIncludeSystem $(QUEUE_H:%=--include=%) src
	printf '%s\n' $(UTIL_SRC) $(ENGINE_SRC) $(RUN_SRC) $(CLI_SRC) | \
		xargs -P $(NPROC) -n 8 sh -c 'exec clang-tidy --quiet --warnings-as-errors="*" \
		-checks="$(TIDY_CHECKS)" "$$@" -- $(ALL_CPPFLAGS) -std=c11' clang-tidy
	@scripts/rooms || { echo 'lint: a file includes a header of a room it may not use' >&2; exit 1; }
	@clang-format --dry-run --Werror $(FORMAT_FILES) || \
		{ echo 'lint: the files above do not follow .clang-format (make format mends them)' >&2; exit 1; }
	@mkdir -p $(BUILD)/lint
	@pmccabe $(UTIL_SRC) $(ENGINE_SRC) $(RUN_SRC) $(CLI_SRC) $(TEST_C_SRC) > $(BUILD)/lint/pmccabe.txt
	@awk '$$5 > $(FUNC_MAX) || ($$5 > $(FUNC_COMPLEX_MAX) && $$1 > $(COMPLEXITY_MAX)) { \
		at = $$6; sub(/\(/, ":", at); sub(/\):$$/, "", at); bad = 1; \
		printf "%s: %s() has %d lines, complexity %d (at most %d, or %d past complexity %d)\n", \
			at, $$7, $$5, $$1, $(FUNC_MAX), $(FUNC_COMPLEX_MAX), $(COMPLEXITY_MAX) } \
		END { exit bad }' $(BUILD)/lint/pmccabe.txt || \
		{ echo 'lint: the functions above are too long (split them into named steps)' >&2; exit 1; }
	@wc -l $(SIZE_FILES) | awk '$$2 != "total" && $$1 > $(FILE_MAX) { bad = 1; \
		printf "%s: %d lines (at most %d)\n", $$2, $$1, $(FILE_MAX) } END { exit bad }' || \
		{ echo 'lint: the files above are too long (move a part into a file of its own)' >&2; exit 1; }

# How long a function or a file of C (src/, the tests, fuzz/, bench/) may grow before `make
# lint` fails on it (STYLE.md section 1: past these, look for the second idea it hides): a
# function of more than FUNC_MAX lines, or of more than FUNC_COMPLEX_MAX with a modified McCabe
# complexity (pmccabe's first column) over COMPLEXITY_MAX; a .c or .h file of more than
# FILE_MAX lines. Functions are measured in the .c files only: pmccabe reads a header's
# declarations as bodies.
FUNC_MAX := 80
FUNC_COMPLEX_MAX := 60
COMPLEXITY_MAX := 15
FILE_MAX := 1000
SIZE_FILES := $(wildcard src/*/*.[ch] tests/unit/*.[ch] tests/integration/*.[ch] fuzz/*.[ch] \
	bench/*.[ch])
# The C of the tests, the fuzz targets and the benchmarks, held to the same lengths.
TEST_C_SRC := $(wildcard tests/unit/*.c tests/integration/*.c fuzz/*.c bench/*.c)

# Every C file of the tree follows .clang-format; `make lint` fails on one that does not.
FORMAT_FILES := $(wildcard include/*.h src/*/*.[ch] tests/unit/*.[ch] tests/integration/*.[ch] \
	fuzz/*.[ch] bench/*.[ch] scripts/*.c)

format:
	clang-format -i $(FORMAT_FILES)

# brock.pc is made here, for the PREFIX of this installation.
install: $(BIN) $(PUBLIC_LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/brock
	install -m 644 man/brock.1 $(DESTDIR)$(PREFIX)/share/man/man1/brock.1
	install -m 644 $(PUBLIC_LIB) $(DESTDIR)$(PREFIX)/lib/libbrock.a
	install -m 644 include/brock.h $(DESTDIR)$(PREFIX)/include/brock.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' brock.pc.in > $(BUILD)/brock.pc
	install -m 644 $(BUILD)/brock.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/brock.pc

# The Debian package (debian/), built from a copy of the tree into $(BUILD)/deb/ and checked
# by lintian.
deb:
	@scripts/deps deb
	scripts/deb --lintian $(abspath $(BUILD))/deb

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(RUN_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_BIN:=.d)
