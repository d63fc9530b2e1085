#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `make install` into a staging folder, from the build the suite uses: the program runs, the
# installed libbrock.a defines no global symbol but the public API's brock_*, brock.pc is valid,
# and a program written against the installed header links with `pkg-config --static` and runs,
# even one that has functions of its own named like the library's helpers. Then the targets
# that install what is missing first (scripts/deps), on a machine that lacks the libraries:
# what they build gets pkg-config's flags as they are once the install is done.
# Needs $BROCK (the binary) and $BROCK_MAKE (make with the build's BUILD and SANITIZE, as
# `make check` sets it; by default make in the repository with BUILD the folder of $BROCK);
# prints TAP.
set -u

: "${BROCK:?set BROCK to the brock binary}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$(dirname "$BROCK")" && pwd)
if [ -z "${BROCK_MAKE:-}" ]; then
    sanitize=
    if nm "$BROCK" 2>/dev/null | grep -q __asan_init; then sanitize=1; fi
    BROCK_MAKE="make --no-print-directory -C $TOP BUILD=$BUILD SANITIZE=$sanitize"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/brock-install.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
ROOT="$T/root"

. "$(dirname "$0")/tap.sh"

VERSION=$(sed -n 's/^#define BROCK_VERSION "\(.*\)"$/\1/p' "$TOP/include/brock.h")

# ---- the installation ----
: >"$T/stamp"
sleep 1
$BROCK_MAKE install DESTDIR="$ROOT" PREFIX=/usr >"$T/err" 2>&1
ok $? "make install DESTDIR=... PREFIX=/usr"
# Installing copies the build the suite tested: nothing is compiled or linked again (with
# other flags), only the public library may be made when it was not yet.
find "$BUILD" \( -name '*.o' -o -name '*.a' -o -path "$BUILD/brock" \) -newer "$T/stamp" \
    ! -path "$BUILD/public/*" >"$T/err"
[ ! -s "$T/err" ]
ok $? "installing rebuilt nothing"
for f in bin/brock include/brock.h lib/libbrock.a lib/pkgconfig/brock.pc share/man/man1/brock.1
do
    [ -f "$ROOT/usr/$f" ]
    ok $? "installs /usr/$f"
done

"$ROOT/usr/bin/brock" --version >"$T/out" 2>"$T/err"
ok $? "the installed brock runs"
is "$(cat "$T/out")" "brock $VERSION" "... and says its version"

# ---- the library's symbols ----
nm -g --defined-only "$ROOT/usr/lib/libbrock.a" >"$T/nm" 2>"$T/err"
ok $? "nm reads the installed libbrock.a"
awk 'NF == 3 { print $3 }' "$T/nm" | sort >"$T/syms"
grep -q '^brock_engine_open$' "$T/syms" && grep -q '^brock_version$' "$T/syms"
ok $? "it defines the public API"
grep -v '^brock_' "$T/syms" >"$T/err"
[ ! -s "$T/err" ]
ok $? "every global symbol it defines starts with brock_"
grep '^brock__' "$T/syms" >"$T/err"
[ ! -s "$T/err" ]
ok $? "none is one of the engine's brock__ internals"

# ---- pkg-config ----
PC="$ROOT/usr/lib/pkgconfig/brock.pc"
pkg-config --validate "$PC" >"$T/err" 2>&1
ok $? "brock.pc is valid"
PKG_CONFIG_SYSROOT_DIR="$ROOT"
PKG_CONFIG_PATH="$ROOT/usr/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
is "$(pkg-config --modversion brock 2>&1)" "$VERSION" "brock.pc has the version of brock.h"
flags=$(pkg-config --cflags --libs --static brock 2>"$T/err")
ok $? "pkg-config --cflags --libs --static brock"
echo "# $flags"

# A program of someone else's: the installed header and library only. Its own buf_init,
# strmap_get and file_read would clash with the library's helpers if those were global.
cat >"$T/prog.c" <<'EOF'
#include <brock.h>

#include <stdio.h>
#include <string.h>

int buf_init(void);
int strmap_get(int key);
int file_read(const char *path);

int buf_init(void)
{
    return 1;
}

int strmap_get(int key)
{
    return key + 1;
}

int file_read(const char *path)
{
    return path != NULL;
}

int main(void)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;
    struct brock_decision d;
    char err[256];

    if (strcmp(brock_version(), BROCK_VERSION) != 0)
        return 1;
    if (brock_engine_open(&cfg, &e, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK) != 0 ||
        brock_decide(e, "pixel.tracker.example", "news.example", &d) != 0) {
        fprintf(stderr, "%s\n", brock_engine_errmsg(e));
        brock_engine_free(e);
        return 1;
    }
    printf("%s %s %s %d\n", brock_version(), d.base, brock_effect_name(d.effect),
           buf_init() + strmap_get(1) + file_read("x"));
    brock_engine_free(e);
    return 0;
}
EOF
san=
if nm "$BROCK" 2>/dev/null | grep -q __asan_init; then san="-fsanitize=address,undefined"; fi
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror $san -o "$T/prog" "$T/prog.c" $flags >"$T/err" 2>&1
ok $? "a program using brock.h compiles and links with pkg-config's flags${san:+ (sanitizers on)}"
"$T/prog" >"$T/out" 2>"$T/err"
ok $? "... and runs"
is "$(cat "$T/out")" "$VERSION tracker.example block 4" "... opening an engine in memory and deciding"

# ---- the targets that install first, on a fresh machine ----
# A machine where the libraries appear only once scripts/deps has installed them: pkg-config
# and dpkg-query answer "missing" until apt-get (reached directly as root, else through sudo)
# has installed, which leaves a mark. pkg-config's flags are then a folder no compiler has,
# which the first compile (cc), or clang-tidy for lint, must be given; both write down their
# command line and stop the build there. Nothing is installed, fetched or compiled. deb is not
# here: dpkg-buildpackage builds in a make of its own, started after the install; asan is
# check in build/asan.
FAKE="$T/fake"
mkdir -p "$FAKE"
cat >"$FAKE/pkg-config" <<EOF
#!/bin/sh
if [ ! -e "$T/installed" ]; then
    echo "pkg-config: nothing is installed yet" >&2
    exit 1
fi
for a in "\$@"; do
    case \$a in
    --cflags) echo "-I/nonexistent/brock-test-include"; exit 0 ;;
    --libs) echo "-lbrock_test_lib"; exit 0 ;;
    esac
done
EOF
cat >"$FAKE/dpkg-query" <<EOF
#!/bin/sh
[ ! -e "$T/installed" ] || printf 'install ok installed'
EOF
cat >"$FAKE/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$1" >>"$T/steps"
[ "\$1" != install ] || : >"$T/installed"
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$FAKE/sudo"
printf '#!/bin/sh\n' >"$FAKE/npm"
printf '#!/bin/sh\n' >"$FAKE/cppcheck"
for tool in cc clang-tidy; do
    cat >"$FAKE/$tool" <<EOF
#!/bin/sh
echo "$tool \$*" >>"$T/steps"
echo "$tool: stopped here by install.t" >&2
exit 1
EOF
done
chmod 755 "$FAKE"/*
for target in run check lint fuzz; do
    rm -f "$T/installed" "$T/steps"
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH="$FAKE:$PATH" \
        make --no-print-directory -C "$TOP" BUILD="$T/build-$target" FUZZ_BUILD="$T/fuzz" \
        CC="$FAKE/cc" FUZZ_CC="$FAKE/cc" "$target" >"$T/err" 2>&1
    steps=$(grep -v '^apt-get' "$T/steps" 2>/dev/null | head -1)
    case $(head -1 "$T/steps" 2>/dev/null):$steps in
    "apt-get update":*" -I/nonexistent/brock-test-include "*)
        ok 0 "make $target installs, then builds with the libraries' flags" ;;
    *)
        ok 1 "make $target installs, then builds with the libraries' flags"
        echo "# first steps: $(head -3 "$T/steps" 2>/dev/null | cut -c1-240 | tr '\n' '|')" ;;
    esac
done

done_testing
