#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# `brock ca install`, `uninstall` and `status`: the CA made when there is none, then put in
# the system store, Chromium's NSS database (made when missing), each Firefox profile and
# Firefox's policy for new profiles; each place said in one line; both idempotent; a place
# that cannot be written said without undoing the others; a policy file's other policies
# kept; everything taken away again. The system store and the policy file are moved into
# this test's folder (BROCK_TRUST_*), HOME is the test's own: the machine's trust is never
# touched. Needs $BROCK and certutil (libnss3-tools); prints TAP.
set -u

: "${BROCK:?set BROCK to the brock binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/brock-catrust.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
HOME="$T/home"
BROCK_TRUST_SYSTEM_DIR="$T/system"
BROCK_TRUST_FIREFOX_POLICIES="$T/etc/firefox/policies/policies.json"
# The command after the system folder changes: here it records that it ran.
BROCK_TRUST_UPDATE="echo ran >> '$T/updates'"
export HOME BROCK_TRUST_SYSTEM_DIR BROCK_TRUST_FIREFOX_POLICIES BROCK_TRUST_UPDATE
unset XDG_STATE_HOME SUDO_USER
S="$T/state"
POL="$BROCK_TRUST_FIREFOX_POLICIES"

. "$(dirname "$0")/tap.sh"

if ! command -v certutil >/dev/null 2>&1; then
    echo "1..0 # SKIP certutil is not installed (libnss3-tools)"
    exit 0
fi

mkdir -p "$HOME/.mozilla/firefox/p1.default-esr" "$HOME/.mozilla/firefox/not-a-profile"
certutil -N -d "sql:$HOME/.mozilla/firefox/p1.default-esr" --empty-password
# A policy file with a policy of its own, which must stay.
mkdir -p "$(dirname "$POL")"
printf '{"policies": {"DisableTelemetry": true}}\n' >"$POL"

b() { "$BROCK" --state "$S" "$@"; }
nss_has() { certutil -L -d "sql:$1" -n "brock local CA $FP" >/dev/null 2>&1; }

b ca install >"$T/out" 2>"$T/err"
ok $? "install succeeds on a machine with no CA"
grep -q "^created the CA: $S/ca/ca.pem" "$T/out"
ok $? "install creates the CA when there is none, and says so"
FP=$(openssl x509 -in "$S/ca/ca.pem" -outform der | sha256sum | cut -c1-16)
is "$(grep -c ': added (' "$T/out")" 4 "one line a place: system, Chromium, one Firefox profile, the policy"
cmp -s "$S/ca/ca.pem" "$BROCK_TRUST_SYSTEM_DIR/brock-$FP.crt"
ok $? "the system store holds the certificate as brock-FINGERPRINT.crt"
is "$(stat -c %a "$BROCK_TRUST_SYSTEM_DIR/brock-$FP.crt")" 644 "readable by every program"
is "$(cat "$T/updates")" ran "the system's update command ran once"
nss_has "$HOME/.pki/nssdb"
ok $? "Chromium's NSS database was created and trusts the CA"
certutil -L -d "sql:$HOME/.pki/nssdb" | grep "brock local CA $FP" | grep -q 'C,,'
ok $? "trusted to issue server certificates (C,,)"
nss_has "$HOME/.mozilla/firefox/p1.default-esr"
ok $? "the existing Firefox profile trusts it"
test ! -e "$HOME/.mozilla/firefox/not-a-profile/cert9.db"
ok $? "a folder that is no profile is left alone"
perl -MJSON::PP -e 'local $/; my $p = decode_json(<STDIN>)->{policies};
    $p->{DisableTelemetry} or die "lost\n";
    grep { $_ eq $ARGV[0] } @{$p->{Certificates}{Install}} or die "missing\n";' \
    "$BROCK_TRUST_SYSTEM_DIR/brock-$FP.crt" <"$POL" 2>"$T/err"
ok $? "the policy names the system store's copy, and keeps its other policy"

b ca install >"$T/out" 2>"$T/err"
ok $? "install again succeeds"
is "$(grep -c 'already trusted' "$T/out")" 4 "install is idempotent: every place already trusts it"
is "$(wc -l <"$T/updates" | tr -d ' ')" 1 "nothing to update the second time"

b ca status >"$T/out" 2>"$T/err"
ok $? "status succeeds"
is "$(grep -c ': trusted (' "$T/out")" 4 "status says where the CA is trusted"

# A store that cannot be written: said, and the others are still done.
b ca uninstall >/dev/null 2>&1
BROCK_TRUST_SYSTEM_DIR="$T/file-not-dir/x" BROCK_TRUST_FIREFOX_POLICIES="$T/file-not-dir/p.json"
export BROCK_TRUST_SYSTEM_DIR BROCK_TRUST_FIREFOX_POLICIES
: >"$T/file-not-dir"
b ca install >"$T/out" 2>"$T/err"
is "$?" 1 "install fails when a place cannot be written"
grep -q '^system store: could not' "$T/out"
ok $? "the place that failed is said"
grep -q 'places* could not be changed' "$T/err"
ok $? "and the error names how many"
nss_has "$HOME/.pki/nssdb"
ok $? "the browsers were still done"
b ca uninstall >/dev/null 2>&1
BROCK_TRUST_SYSTEM_DIR="$T/system" BROCK_TRUST_FIREFOX_POLICIES="$POL"
export BROCK_TRUST_SYSTEM_DIR BROCK_TRUST_FIREFOX_POLICIES

b ca install >/dev/null 2>&1
b ca uninstall >"$T/out" 2>"$T/err"
ok $? "uninstall succeeds"
is "$(grep -c ': removed (' "$T/out")" 4 "uninstall says each place it took the CA out of"
test ! -e "$BROCK_TRUST_SYSTEM_DIR/brock-$FP.crt"
ok $? "the system store's copy is gone"
if nss_has "$HOME/.pki/nssdb" || nss_has "$HOME/.mozilla/firefox/p1.default-esr"; then
    ok 1 "no NSS database trusts it"
else
    ok 0 "no NSS database trusts it"
fi
perl -MJSON::PP -e 'local $/; my $p = decode_json(<STDIN>)->{policies};
    $p->{DisableTelemetry} && !exists $p->{Certificates} or die "wrong\n";' <"$POL" 2>"$T/err"
ok $? "the policy file keeps only its own policy"
b ca uninstall >"$T/out" 2>"$T/err"
ok $? "uninstall again succeeds"
is "$(grep -c ': not there (' "$T/out")" 4 "uninstall is idempotent"
b ca status >"$T/out" 2>"$T/err"
is "$(grep -c ': not trusted' "$T/out")" 4 "status says it is trusted nowhere"

# Firefox imports the CA under a name of its own: its policy does so in each profile made
# later, as does importing it by hand. status finds it there and uninstall takes it out; a
# certificate of a like name that is not the CA stays.
b ca install >/dev/null 2>&1
P2="$HOME/.mozilla/firefox/p2.later"
mkdir -p "$P2"
certutil -N -d "sql:$P2" --empty-password
certutil -A -d "sql:$P2" -n "brock local CA on elsewhere - brock" -t CT,CT, -a -i "$S/ca/ca.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=brock local CA on another" -keyout "$T/other.key" -out "$T/other.pem" 2>/dev/null
certutil -A -d "sql:$P2" -n "brock local CA on another" -t CT,CT, -a -i "$T/other.pem"
b ca status >"$T/out" 2>"$T/err"
grep -q "^Firefox profile: trusted ($P2)" "$T/out"
ok $? "status finds the CA under the name Firefox gave it"
b ca uninstall >"$T/out" 2>"$T/err"
grep -q "^Firefox profile: removed ($P2)" "$T/out"
ok $? "uninstall takes it out under that name"
certutil -L -d "sql:$P2" >"$T/list"
if grep -q "brock local CA on elsewhere" "$T/list"; then ok 1 "it is gone"; else ok 0 "it is gone"; fi
grep -q "brock local CA on another" "$T/list"
ok $? "another certificate of a like name stays"
rm -rf "$P2"

# A policy file that brock alone wrote goes with the last of brock's entries.
rm -f "$POL"
b ca install >/dev/null 2>&1 && b ca uninstall >/dev/null 2>&1
test ! -e "$POL"
ok $? "a policy file that held only brock's entry is removed"

# A broken policy file is left as it is and said.
printf '{"policies": [' >"$POL"
b ca install >"$T/out" 2>"$T/err"
grep -q '^Firefox policy (new profiles): could not .*not a policy file' "$T/out"
ok $? "a policy file that does not parse is said and left alone"
is "$(cat "$POL")" '{"policies": [' "and is unchanged"

b ca frobnicate >"$T/out" 2>"$T/err"
is "$?" 2 "an unknown ca command is a usage error"

# ---- make run's first step: ca offer ----

printf '{}' >"$POL"
b ca uninstall >/dev/null 2>&1

S2="$T/offer"
"$BROCK" --state "$S2" ca offer </dev/null >"$T/out" 2>"$T/err"
ok $? "offer succeeds without a terminal"
test -f "$S2/ca/ca.pem"
ok $? "offer creates the CA"
# Root is told the command without sudo, which root needs not (and may not have).
if [ "$(id -u)" = 0 ]; then sudo=''; else sudo='sudo '; fi
grep -q "brock: HTTPS will pass unseen until this machine trusts brock's CA: \`${sudo}brock --state $S2 ca install\` does it" "$T/err"
ok $? "without a terminal it asks nothing and prints the command (${sudo:-no sudo for root})"
is "$(ls "$BROCK_TRUST_SYSTEM_DIR" | wc -l | tr -d ' ')" 0 "and installs nothing"
# A terminal (script(1) gives one): asked once, no by default.
printf '\n' | script -qec "'$BROCK' --state '$S2' ca offer" /dev/null >"$T/out" 2>&1
grep -q "Install it now (\`${sudo}brock --state $S2 ca install\`" "$T/out"
ok $? "on a terminal it asks whether to install"
if [ -z "$sudo" ]; then ! grep -q 'asks for your password' "$T/out"; else grep -q 'asks for your password' "$T/out"; fi
ok $? "it speaks of a password only when sudo will ask for one"
is "$(ls "$BROCK_TRUST_SYSTEM_DIR" | wc -l | tr -d ' ')" 0 "no (the default) installs nothing"
printf 'y\n' | script -qec "'$BROCK' --state '$S2' ca offer" /dev/null >"$T/out" 2>&1
if grep -q 'Install it now' "$T/out"; then ok 1 "it asks only once"; else ok 0 "it asks only once"; fi
rm -f "$S2/ca/asked-to-install"
printf 'y\n' | script -qec "'$BROCK' --state '$S2' ca offer" /dev/null >"$T/out" 2>&1
grep -q 'system store: added' "$T/out"
ok $? "yes runs ca install"
"$BROCK" --state "$S2" ca offer </dev/null >"$T/out" 2>"$T/err"
is "$(cat "$T/err")" "" "once trusted, offer says nothing"
"$BROCK" --state "$S2" ca uninstall >/dev/null 2>&1

# ---- brock run sees inside HTTPS when the CA is in the system store, and says so ----

printf '{}' >"$POL"
chmod 755 "$T"
runpid=""
stop() { [ -z "$runpid" ] || { kill "$runpid" 2>/dev/null; wait "$runpid" 2>/dev/null; }; runpid=""; }
trap 'stop; rm -rf "$T"' EXIT
# Starts brock run with ARGS, waits for its first lines; PORT is where it listens.
start() {
    : >"$T/log"
    "$BROCK" --state "$S" --no-seed run --listen 127.0.0.1:0 --no-update "$@" >"$T/log" 2>&1 &
    runpid=$!
    for _ in $(seq 100); do
        grep -q 'HTTPS is' "$T/log" && break
        kill -0 "$runpid" 2>/dev/null || break
        sleep 0.1
    done
    PORT=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$T/log" | head -1)
}
https_status() {
    curl -s "http://127.0.0.1:$PORT/api/status" |
        perl -MJSON::PP -e 'local $/; my $h = decode_json(<STDIN>)->{https};
            print(($h->{seen} ? "seen" : "unseen"), " ", $h->{fix} // "-", "\n")'
}

b ca uninstall >/dev/null 2>&1
start
grep -q "HTTPS is passed unseen: brock sees only the names of HTTPS sites.*sudo brock --state $S ca install. lets it see inside" "$T/log"
ok $? "without a trusted CA, the first lines say HTTPS passes unseen and the command that fixes it"
is "$(https_status)" "unseen sudo brock --state $S ca install" "/api/status says so, with the command"
"$BROCK" --state "$S" status --listen "127.0.0.1:$PORT" >"$T/out" 2>"$T/err"
grep -q "^HTTPS is passed unseen.*ca install. lets it see inside" "$T/out"
ok $? "brock status says so too"
stop

b ca install >/dev/null 2>&1
start
grep -q "HTTPS is seen inside: this machine trusts brock's CA" "$T/log"
ok $? "with the CA in the system store, brock run sees inside HTTPS by default"
is "$(https_status)" "seen -" "/api/status: seen, nothing to fix"
stop

start --no-intercept
grep -q "HTTPS is passed unseen, as asked: .* (--no-intercept)$" "$T/log"
ok $? "--no-intercept alone turns it off"
is "$(https_status)" "unseen -" "off by choice: no command offered"
stop

printf 'intercept = no\n' >"$T/conf"
"$BROCK" --config "$T/conf" --state "$S" --no-seed run --listen 127.0.0.1:0 --no-update \
    >"$T/log" 2>&1 &
runpid=$!
for _ in $(seq 100); do grep -q 'HTTPS is' "$T/log" && break; sleep 0.1; done
grep -q "HTTPS is passed unseen, as asked: .* (--no-intercept)$" "$T/log"
ok $? "the configuration file's intercept = no turns it off"
stop

start --no-intercept '*.bank.example'
grep -q "HTTPS is seen inside" "$T/log"
ok $? "--no-intercept HOSTGLOB still only passes those hosts unseen"
stop
b ca uninstall >/dev/null 2>&1

done_testing
