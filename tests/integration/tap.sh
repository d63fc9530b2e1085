# SPDX-License-Identifier: GPL-3.0-or-later
# What the shell tests share, sourced after they set T (their temporary folder): TAP's ok and
# is, with stderr of the case ($T/err) shown under a failure, and the closing plan.

n=0
failed=0

# ok STATUS DESC: a case passes when STATUS is 0.
ok() {
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2"
        failed=$((failed + 1))
        if [ -s "$T/err" ]; then sed 's/^/# stderr: /' "$T/err" | head -10; fi
    fi
}

# is GOT WANT DESC
is() {
    if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3"; echo "#   got: '$1'"; echo "#  want: '$2'"; fi
}

# The plan, last; the file's status says whether everything passed.
done_testing() {
    echo "1..$n"
    [ "$failed" -eq 0 ]
}
