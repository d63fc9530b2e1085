#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The command line end to end: HAR files written here are learned from, and what brock then
# lists, checks, exports and imports is compared with what Privacy Badger's rules say. Every
# bad input must fail with a message naming it and leave the state exactly as it was.
# Needs $BROCK (the binary); reads tests/data (or $BROCK_TESTDATA); prints TAP.
set -u

: "${BROCK:?set BROCK to the brock binary}"
: "${BROCK_TESTDATA:=$(cd "$(dirname "$0")/../data" && pwd)}"
DATA="$BROCK_TESTDATA/privacybadger"
T=$(mktemp -d "${TMPDIR:-/tmp}/brock-cli.XXXXXX") || exit 1
runpid=""
trap '[ -z "$runpid" ] || kill -9 "$runpid" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP
# No test may reach a real user's state, whatever a case forgets.
HOME="$T/home"
XDG_STATE_HOME="$T/xdg"
export HOME XDG_STATE_HOME
unset http_proxy https_proxy

. "$(dirname "$0")/tap.sh"

# A fresh state folder for each case; S is the current one.
states=0
fresh() {
    states=$((states + 1))
    S="$T/state$states"
}

# brock on the current state with Privacy Badger's lists but no seed: learning starts empty.
b() {
    "$BROCK" --state "$S" --data "$DATA" --no-seed "$@"
}

# brock ARGS, keeping stdout in $T/out and stderr in $T/err; returns brock's status.
run() {
    b "$@" >"$T/out" 2>"$T/err"
}

# The resolved action of DOMAIN in `brock list --all`, or "none".
action_of() {
    b list --all | awk -v d="$1" 'NR > 1 && $1 == d { print $2; f = 1 } END { if (!f) print "none" }'
}

# ---- HAR writing ----
# A HAR is written as pages of entries. hdr NAME VALUE prints one header object.
hdr() {
    printf '{"name":"%s","value":"%s"}' "$1" "$2"
}

# entry PAGEREF URL REQ_HEADERS RESP_HEADERS [MIME [EXTRA]]: one entry; headers are lists of
# hdr objects joined by commas; EXTRA is more JSON members, with a leading comma.
entry() {
    printf '{"pageref":"%s","startedDateTime":"2024-05-01T10:00:00.000+02:00","time":12,' "$1"
    printf '"request":{"method":"GET","url":"%s","httpVersion":"HTTP/1.1","headers":[%s],' "$2" "$3"
    printf '"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},'
    printf '"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[%s],' "$4"
    printf '"cookies":[],"content":{"size":0,"mimeType":"%s"},"redirectURL":"",' "${5:-image/gif}"
    printf '"headersSize":-1,"bodySize":0},"cache":{},"timings":{"send":0,"wait":1,"receive":0}%s}' \
        "${6:-}"
}

# doc PAGEREF URL: the page's top-level navigation.
doc() {
    entry "$1" "$2" "$(hdr Sec-Fetch-Dest document),$(hdr Sec-Fetch-Mode navigate)" \
        "$(hdr Set-Cookie 'session=9f8e7d6c5b4a3; Path=/')" "text/html; charset=utf-8"
}

# har FILE ENTRY...: a whole HAR whose pages are named by the entries' pagerefs.
har() {
    f=$1
    shift
    {
        printf '{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"pages":[],'
        printf '"entries":['
        sep=""
        for e in "$@"; do
            printf '%s%s' "$sep" "$e"
            sep=","
        done
        printf ']}}\n'
    } >"$f"
}

# visit FILE SITE TRACKER_URL COOKIE: a page on SITE whose tracker request sends COOKIE.
visit() {
    har "$1" "$(doc p1 "https://www.$2/")" \
        "$(entry p1 "$3" "$(hdr Referer "https://www.$2/"),$(hdr Cookie "$4")" "")"
}

# The state's pb export, to compare a state before and after a failing command.
snapshot() {
    b export >"$T/$1" 2>/dev/null
}

TR=tracker-brock-test.com

# ---- learning from cookies ----
fresh
visit "$T/a.har" site-one.com "https://px.$TR/p.gif?x=1" "uid=8f3a9c2e1b7d"
run learn "$T/a.har"
ok $? "learn a HAR with a tracking cookie"
summary="2 entries read, 1 third-party requests, 0 trackers newly blocked"
is "$(cat "$T/out")" "$summary, 0 skipped (first party unknown)" "learn prints one summary line"
visit "$T/b.har" site-two.com "https://px.$TR/p.gif" "uid=77aa11bb22cc"
b learn "$T/b.har" >/dev/null 2>&1
is "$(action_of "$TR")" allow "a tracker with an identifying cookie on two sites is allow"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" "site-one.com,site-two.com" \
    "list shows the sites, comma-joined, in the order seen"
visit "$T/c.har" site-three.com "https://px.$TR/p.gif" "uid=0011aa22bb33"
run learn "$T/c.har"
ok $? "learn a third site"
case $(cat "$T/out") in
*", 1 trackers newly blocked"*) ok 0 "the summary counts the tracker newly blocked" ;;
*) ok 1 "the summary counts the tracker newly blocked" ;;
esac
is "$(action_of "$TR")" block "on a third site the tracker is block"
is "$(action_of "px.$TR")" block "the host that was seen is block too"
run check --site https://news.site-four.com/a "https://cdn.$TR/x.js"
ok $? "check a subdomain of a blocked tracker"
perl -MJSON::PP -e '
    local $/; my $d = decode_json(<STDIN>);
    my @k = qw(url host base site third_party action effect why);
    for (@k) { exists $d->{$_} or die "no $_\n" }
    $d->{host} eq "cdn.'"$TR"'" or die "host\n";
    $d->{base} eq "'"$TR"'" or die "base\n";
    $d->{site} eq "site-four.com" or die "site $d->{site}\n";
    JSON::PP::is_bool($d->{third_party}) && $d->{third_party} or die "third_party\n";
    $d->{action} eq "block" && $d->{effect} eq "block" or die "action\n";
    $d->{why} eq "'"$TR"' was seen tracking on 3 sites (site-one.com: cookie; " .
        "site-two.com: cookie; site-three.com: cookie): blocked (from '"$TR"')."
        or die "why: $d->{why}\n";
    exists $d->{tracker} and die "tracker without a CNAME\n";
    $d->{url} eq "https://cdn.'"$TR"'/x.js" or die "url\n";
' <"$T/out" 2>"$T/err"
ok $? "check prints one JSON object with url, host, base, site, third_party, action, effect, why"
is "$(sed -n 's/^  "\([a-z_]*\)".*/\1/p' "$T/out" | tr '\n' ' ')" \
    "url host base site third_party type action effect reason why " \
    "... and no other field"
run check --site "https://www.$TR/" "https://cdn.$TR/x.js"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    !$d->{third_party} && $d->{effect} eq "pass" or exit 1' <"$T/out"
ok $? "a first-party request passes even when the domain is blocked"
# An IPv4 address is its own base: two addresses are two parties, and a dotted name that is
# not an address has the base Privacy Badger's getBaseDomain gives it.
run check --site http://2.2.3.4/ http://1.2.3.4/x
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    $d->{base} eq "1.2.3.4" && $d->{site} eq "2.2.3.4" && $d->{third_party} or exit 1' <"$T/out"
ok $? "an address on another address is a third party, each its own base"
run check --site https://news.site-four.com/ http://a.1.2.3/x
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    $d->{base} eq "2.3" or exit 1' <"$T/out"
ok $? "a dotted name that is not an address has Privacy Badger's base (2.3)"
run list --json
perl -MJSON::PP -e '
    local $/; my $a = decode_json(<STDIN>); ref $a eq "ARRAY" or die "not an array\n";
    my ($t) = grep { $_->{domain} eq "'"$TR"'" } @$a or die "tracker missing\n";
    $t->{action} eq "block" && $t->{base} eq "'"$TR"'" or die "action/base\n";
    join(",", @{$t->{sites}}) eq "site-one.com,site-two.com,site-three.com" or die "sites\n";
    JSON::PP::is_bool($t->{dnt}) && JSON::PP::is_bool($t->{cookieblock_listed}) or die "bools\n";
    my $e = $t->{evidence}[0];
    $e->{site} eq "site-one.com" && $e->{kind} eq "cookie" && $e->{host} eq "px.'"$TR"'"
        or die "evidence $e->{kind} $e->{host}\n";
    $e->{detail} eq "uid" or die "detail $e->{detail}\n";
    $e->{time_ms} == 1714550400000 or die "time_ms $e->{time_ms}\n";
    !exists $e->{time} or die "one name for the time, as in the API\n";
' <"$T/out" 2>"$T/err"
ok $? "list --json has domain, action, base, sites, dnt, cookieblock_listed and evidence"
run list --site site-two.com
is "$?:$(cat "$T/out")" "0:DOMAIN  ACTION  SITES" \
    "list --site lists what the site's pages requested through brock: a HAR records none"
b set mine.example block >/dev/null 2>&1
b set friend.example allow >/dev/null 2>&1
run list --action block
is "$?:$(awk 'NR > 1 { print $1 ":" $2 }' "$T/out" | sort | tr '\n' ' ')" \
    "0:mine.example:user_block px.$TR:block $TR:block " \
    "list --action block: blocked, by learning or by you"
run list --action user_block,allow
is "$(awk 'NR > 1 { print $1 }' "$T/out" | sort | tr '\n' ' ')" "friend.example mine.example " \
    "list --action takes a list, and Privacy Badger's names alone"
run list --count
is "$?:$(cat "$T/out")" "0:$(b list | awk 'NR > 1' | wc -l)" "list --count counts the list"
run list --action cookieblock --count
is "$(cat "$T/out")" "0" "... of the actions asked for"
for bad in "--action blocked" "--action block," "--action" "--count --json"; do
    # shellcheck disable=SC2086
    run list $bad
    st=$?
    [ "$st" -eq 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
    ok $? "list $bad: a usage error naming it"
done
b import "$DATA/seed.json" >/dev/null 2>&1
run list --learned-only
is "$(awk 'NR > 1 { print $1 }' "$T/out" | sort | tr '\n' ' ')" \
    "friend.example mine.example px.$TR $TR " "list --learned-only leaves out what the seed brought"
run list --site site-nine.com
is "$?:$(cat "$T/out")" "0:DOMAIN  ACTION  SITES" \
    "list --site of a site never seen prints its header alone"
run list --action user_cookieblock
is "$?:$(cat "$T/out")" "0:DOMAIN  ACTION  SITES" "... as does any list with nothing in it"

# ---- what does not count ----
fresh
L=lowentropy-brock-test.com
for s in one two three four; do
    visit "$T/l$s.har" "site-$s.com" "https://$L/p.gif" "lang=en; ok=yes"
    b learn "$T/l$s.har" >/dev/null 2>&1
done
is "$(action_of "$L")" none "low-entropy cookies (lang=en, yes) never count"
run check "https://$L/p.gif"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{action} eq "noaction" or exit 1' \
    <"$T/out"
ok $? "check of a domain never seen tracking says noaction"

fresh
har "$T/same.har" \
    "$(doc p1 https://www.site-one.com/)" \
    "$(entry p1 "https://a.$TR/p" "$(hdr Cookie uid=aa11bb22cc33dd)" "")" \
    "$(doc p2 https://shop.site-one.com/cart)" \
    "$(entry p2 "https://b.$TR/p" "$(hdr Cookie uid=ee44ff55aa66bb)" "")" \
    "$(doc p3 https://www.site-two.com/)" \
    "$(entry p3 "https://a.$TR/p" "$(hdr Cookie uid=1122334455667788)" "")"
run learn "$T/same.har"
ok $? "learn pages of one site on two hosts"
is "$(action_of "$TR")" allow "the same site twice counts once"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" "site-one.com,site-two.com" \
    "sites are base domains, each once"

# ---- other kinds of evidence ----
fresh
SC=setcookie-brock-test.com
for s in one two three; do
    har "$T/sc$s.har" "$(doc p1 "https://www.site-$s.com/")" \
        "$(entry p1 "https://sync.$SC/i" "" "$(hdr Set-Cookie "id=c0ffee$s$s$s; Path=/; Secure")")"
    b learn "$T/sc$s.har" >/dev/null 2>&1
done
is "$(action_of "$SC")" block "identifying Set-Cookie headers on three sites block"
run list --json
perl -MJSON::PP -e 'local $/; my ($t) = grep { $_->{domain} eq "'"$SC"'" } @{decode_json(<STDIN>)};
    $t && $t->{evidence}[0]{kind} eq "set-cookie" or exit 1' <"$T/out"
ok $? "the evidence of a Set-Cookie says set-cookie"

fresh
CA=cookiesarray-brock-test.com
RA=respcookies-brock-test.com
for s in one two three; do
    # The request's cookies list comes before headersSize, the response's before content.
    reqc='"cookies":[{"name":"uid","value":"5e6f7a8b9c'$s'"}],"headersSize"'
    respc='"cookies":[{"name":"sid","value":"77aa'$s'bb99","path":"/"}],"content"'
    har "$T/ca$s.har" "$(doc p1 "https://www.site-$s.com/")" \
        "$(entry p1 "https://$CA/p" "" "" | sed "s|\"cookies\":\\[\\],\"headersSize\"|$reqc|")" \
        "$(entry p1 "https://$RA/p" "" "" | sed "s|\"cookies\":\\[\\],\"content\"|$respc|")"
    b learn "$T/ca$s.har" >/dev/null 2>&1
done
is "$(action_of "$CA")" block "a request's cookies array stands in for stripped Cookie headers"
is "$(action_of "$RA")" block "a response's cookies array stands in for stripped Set-Cookie headers"

fresh
BE=beacon-brock-test.com
PT=pingtype-brock-test.com
NP=pingback-brock-test.com
for s in one two three; do
    har "$T/be$s.har" "$(doc p1 "https://www.site-$s.com/")" \
        "$(entry p1 "https://$BE/collect" "$(hdr Ping-To "https://www.site-$s.com/")" "")" \
        "$(entry p1 "https://other-beacon.$BE.example/b" "" "" text/plain ',"_resourceType":"ping"')" \
        "$(entry p1 "https://$PT/p" "$(hdr Content-Type "text/ping; charset=UTF-8")" "")" \
        "$(entry p1 "https://$NP/p" "$(hdr Content-Type "text/pingback")" "")"
    b learn "$T/be$s.har" >/dev/null 2>&1
done
is "$(action_of "$BE")" block "beacons count without cookies"
is "$(action_of "other-beacon.$BE.example")" block "Chrome's _resourceType ping is a beacon"
is "$(action_of "$PT")" block "Content-Type text/ping with a parameter is a ping"
is "$(action_of "$NP")" none "Content-Type text/pingback is not a ping"
run check --site https://www.site-four.com/ "https://$BE/collect"
perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{why}' <"$T/out" >"$T/why"
is "$(cat "$T/why")" "$BE was seen tracking on 3 sites (site-one.com: beacon; site-two.com: \
beacon; site-three.com: beacon): blocked (from $BE)." "check's why names the kind of evidence"
fresh
for s in one two; do
    har "$T/mix$s.har" "$(doc p1 "https://www.site-$s.com/")" \
        "$(entry p1 "https://sync.$SC/i" "" "$(hdr Set-Cookie "id=c0ffee$s$s$s; Path=/; Secure")")"
    b learn "$T/mix$s.har" >/dev/null 2>&1
done
visit "$T/mixthree.har" site-three.com "https://sync.$SC/p" "uid=0a1b2c3d4e5f"
b learn "$T/mixthree.har" >/dev/null 2>&1
run check --site https://www.site-four.com/ "https://$SC/x"
perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{why}' <"$T/out" >"$T/why"
is "$(cat "$T/why")" "$SC was seen tracking on 3 sites (site-one.com: Set-Cookie; site-two.com: \
Set-Cookie; site-three.com: cookie): blocked (from $SC)." "... each site's own"

# ---- the cookieblock list ----
fresh
Y=$(grep -E '^[a-z0-9-]+\.com$' "$DATA/yellowlist.txt" | head -1)
for s in one two three; do
    visit "$T/y$s.har" "site-$s.com" "https://$Y/w.js" "yid=99aa88bb77$s"
    b learn "$T/y$s.har" >/dev/null 2>&1
done
is "$(action_of "$Y")" cookieblock "a yellowlisted base ($Y) on three sites becomes cookieblock"
run check --site https://www.site-one.com/ "https://$Y/w.js"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{effect} eq "cookieblock" or exit 1' \
    <"$T/out"
ok $? "check of a cookieblocked domain says cookieblock"

# ---- HAR dialects ----
fresh
printf '\357\273\277' >"$T/bom.har"
visit "$T/bom-body.har" site-one.com "https://$TR/p" "uid=abcdef012345"
cat "$T/bom-body.har" >>"$T/bom.har"
run learn "$T/bom.har"
ok $? "a HAR starting with a UTF-8 BOM is accepted"
fresh
visit "$T/pipe.har" site-one.com "https://px.$TR/p.gif" "uid=1234abcd5678"
cat "$T/pipe.har" | b learn /dev/stdin >"$T/out" 2>"$T/err"
ok $? "a HAR read from a pipe is learned"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" site-one.com "what came down the pipe was learned"
is "$(action_of "$TR")" allow "and learned from"

fresh
{
    printf '{"log":{"version":"1.2","creator":{"name":"t","version":"1"},"pages":null,"entries":['
    entry "" "https://$TR/p" \
        "$(hdr Referer https://www.site-one.com/page),$(hdr Cookie uid=12ab34cd56ef)" ""
    printf ','
    entry "" "https://$TR/q" "$(hdr Cookie uid=12ab34cd56ef)" ""
    printf ']}}'
} | sed 's/"pageref":"",//g' >"$T/nopages.har"
run learn "$T/nopages.har"
ok $? "a HAR with pages null and no pagerefs is accepted"
is "$(cat "$T/out")" "$summary, 1 skipped (first party unknown)" \
    "the Referer gives the first party; an entry with neither page nor Referer is skipped"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" site-one.com "the Referer's site was learned"

fresh
{
    printf '{"log":{"version":"1.2","creator":{"name":"t","version":"1"},'
    printf '"pages":[{"id":"page_1","title":"https://www.site-one.com/",'
    printf '"startedDateTime":"2024-05-01T08:00:00Z"}],'
    printf '"entries":['
    entry page_1 "https://$TR/p" "$(hdr Cookie uid=9a8b7c6d5e4f)" "" image/gif ',"_resourceType":"image"'
    printf ']}}'
} >"$T/title.har"
run learn "$T/title.har"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" "" \
    "without a navigation the page's first entry is its document (so nothing is learned)"
fresh
{
    printf '{"log":{"version":"1.2","creator":{"name":"t","version":"1"},'
    printf '"pages":[{"id":"page_1","title":"https://www.site-one.com/"}],"entries":['
    entry page_1 "https://www.site-one.com/" "" "" "text/html" ',"_resourceType":"document"'
    printf ','
    entry page_1 "https://$TR/p" "$(hdr Cookie uid=9a8b7c6d5e4f)" "" image/gif ',"_resourceType":"image"'
    printf ']}}'
} >"$T/chrome.har"
run learn "$T/chrome.har"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" site-one.com \
    "Chrome's _resourceType document marks the page's document"

# A real recording: Playwright keeps one page for a tab across its navigations, and over
# plain http no request says whether it is for a page or a frame.
fresh
run learn "$BROCK_TESTDATA/har/playwright-one-page.har"
ok $? "learn a HAR recorded by Playwright"
case $(cat "$T/out") in
*", 1 trackers newly blocked"*) ok 0 "a tracker on three navigations of one page is blocked" ;;
*) ok 1 "a tracker on three navigations of one page is blocked" ;;
esac
is "$(b list | awk '$1 == "tracker.test" { print $2, $3 }')" \
    "block site-one.test,site-two.test,site-three.test" \
    "each navigation is the first party of what follows it; a frame's host never is"
is "$(cat "$T/err")" "" "a recording by Playwright reads without a warning"

# Plain http recorded without fetch metadata or DevTools' resource types, the tab's three
# sites under one page: each HTML document the tab asked for is a navigation.
fresh
run learn "$BROCK_TESTDATA/har/untyped-one-page.har"
is "$(cat "$T/out")" "6 entries read, 3 third-party requests, 1 trackers newly blocked, 0 skipped \
(first party unknown)" "a recording without resource types: its documents are navigations"
is "$(b list | awk '$1 == "tracker.example" { print $2, $3 }')" \
    "block site-one.example,site-two.example,site-three.example" \
    "each entry's first party is the navigation it follows"

# ---- odd fields: read as absent, one warning per kind and file ----
fresh
for s in one two three; do
    visit "$T/ie$s.har" "site-$s.com" "https://px.$TR/p.gif" "uid=0011aa22bb3$s"
    sed -i 's/"cookies":\[\]/"cookies":{}/g' "$T/ie$s.har"
    b learn "$T/ie$s.har" >"$T/out" 2>"$T/err"
done
is "$(action_of "$TR")" block "IE11's \"cookies\": {} is read as none and the headers learned from"
is "$(cat "$T/err")" "brock learn: warning: $T/iethree.har: log.entries[0].request.cookies is an \
object, not an array; read as none (and 3 more like it)" "one warning per file names the file and the field"

fresh
har "$T/url.har" "$(doc p1 https://www.site-one.com/)" \
    "$(entry p1 "https://$TR/p" "$(hdr Cookie uid=aaaabbbbcccc)" "" | sed 's/"url":"[^"]*"/"url":42/')" \
    "$(entry p1 "https://px.$TR/q" "$(hdr Referer https://www.site-one.com/),$(hdr Cookie uid=aaaabbbbcccc)" "")"
run learn "$T/url.har"
ok $? "an entry whose URL is not a string does not fail the file"
is "$(cat "$T/err")" "brock learn: warning: $T/url.har: log.entries[1].request.url is a number, \
not a string; skipped" "the warning names the file, the entry and the field"
is "$(cat "$T/out")" "2 entries read, 1 third-party requests, 0 trackers newly blocked, \
0 skipped (first party unknown), 1 skipped (unreadable)" "the summary counts the entry skipped"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" site-one.com "the other entries are learned"
har "$T/hdrs.har" "$(doc p1 https://www.site-two.com/)" \
    "$(entry p1 "https://a.$TR/p" "" "" | sed 's/"headers":\[\]/"headers":{}/')" \
    "$(entry p1 "https://$TR/p" '{"name":"Cookie"},'"$(hdr Cookie uid=aaaabbbbcccc)" "")"
run learn "$T/hdrs.har"
ok $? "headers that are not an array, or a header without a value, do not fail the file"
grep -Fq "hdrs.har: log.entries[1].request.headers is an object, not an array; read as none" \
    "$T/err" && grep -Fq "hdrs.har: log.entries[2].request.headers[0] is not an object with a \
string name and value; left out" "$T/err"
ok $? "each is told once, naming the field"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" site-one.com,site-two.com \
    "the entry's other headers are read"

# ---- user choices ----
fresh
visit "$T/u.har" site-one.com "https://$TR/p" "uid=0f1e2d3c4b5a"
b learn "$T/u.har" >/dev/null 2>&1
run set "$TR" block
ok $? "set DOMAIN block"
is "$(cat "$T/out")" "$TR: blocked, as you chose" "set prints what the domain is now, in words"
is "$(action_of "$TR")" user_block "list shows the user's choice"
run set "$TR" cookieblock
is "$(action_of "$TR")" user_cookieblock "set DOMAIN cookieblock"
run set "$TR" allow
is "$(action_of "$TR")" user_allow "set DOMAIN allow"
run set "$TR" reset
ok $? "set DOMAIN reset"
is "$(action_of "$TR")" allow "after reset the learned action is back"
run set "$TR" user_block
is "$(action_of "$TR")" user_block "set takes Privacy Badger's name of a choice too"
run set "$TR" reset
run set "NEW.$TR" block
is "$(action_of "new.$TR")" user_block "set normalises the domain's case"
run set "new.$TR" reset
is "$(cat "$T/out")" "new.$TR: allowed" "reset of a domain with nothing learned falls back to its base"
is "$(action_of "new.$TR")" none "and leaves no entry for it"

# ---- a choice for one site only ----
fresh
visit "$T/s.har" site-one.com "https://$TR/p" "uid=0f1e2d3c4b5a"
b learn "$T/s.har" >/dev/null 2>&1
b set "$TR" block >/dev/null 2>&1
run set "$TR" allow --site www.news-site.com
ok $? "set DOMAIN allow --site SITE"
is "$(cat "$T/out")" "$TR on news-site.com: allowed, as you chose" \
    "set --site prints the action on the site's base domain, in words"
is "$(action_of "$TR")" user_block "the choice for every site is unchanged"
run check --site https://news-site.com/a "https://cdn.$TR/x"
is "$(sed -n 's/.*"effect": "\([a-z]*\)".*/\1/p' "$T/out")" pass "check: allowed on that site"
grep -q '"site_choice": true' "$T/out"
ok $? "check says the choice for the site set it"
run check --site https://other-site.com/ "https://cdn.$TR/x"
is "$(sed -n 's/.*"effect": "\([a-z]*\)".*/\1/p' "$T/out")" block "check: blocked on another site"
run set only.example cookieblock --site shop-site.com
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" news-site.com=allow \
    "list shows the choice in the SITE CHOICES column"
is "$(b list | awk '$1 == "only.example" { print $2 " " $3 }')" "noaction shop-site.com=cookieblock" \
    "list shows a domain with only a choice for a site"
b list --json >"$T/out"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    my ($t) = grep { $_->{domain} eq $ARGV[0] } @$d;
    exit !($t && $t->{site_actions}{"news-site.com"} eq "user_allow")' "$TR" <"$T/out"
ok $? "list --json has site_actions"
cp "$S/brock.db" "$T/site-before.db"
for bad in "--site com" "--site 127.0.0.1" "--site news-site.com maybe" "--site site-one.com"; do
    # shellcheck disable=SC2086
    run set "cdn.site-one.com" $bad
    [ $? -ne 0 ] && [ -s "$T/err" ] && cmp -s "$S/brock.db" "$T/site-before.db"
    ok $? "set cdn.site-one.com $bad fails, says why and changes nothing"
done
b export -o "$T/site.json" 2>"$T/err"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    exit !($d->{brock_site_actions}{"news-site.com"}{$ARGV[0]} eq "user_allow"
        && $d->{brock_site_actions}{"shop-site.com"}{"only.example"} eq "user_cookieblock")' \
    "$TR" <"$T/site.json"
ok $? "export keeps the choices for one site in brock_site_actions"
SITE_STATE=$S
fresh
run import "$T/site.json"
is "$(b list | awk -v d="$TR" '$1 == d { print $2 " " $3 }')" "user_block news-site.com=allow" \
    "import brings them back"
sed 's/"user_cookieblock"/"cookieblock"/' "$T/site.json" >"$T/site-bad.json"
cp "$S/brock.db" "$T/site-before.db"
run import "$T/site-bad.json"
[ $? -ne 0 ] && grep -q 'brock_site_actions\["shop-site.com"\]\["only.example"\] is not one of' "$T/err" &&
    cmp -s "$S/brock.db" "$T/site-before.db"
ok $? "import of a bad choice for a site names it and changes nothing"
S=$SITE_STATE
run set "$TR" reset --site news-site.com
is "$(cat "$T/out")" "$TR on news-site.com: blocked, as you chose" "reset --site removes that choice alone"
is "$(b list | awk -v d="$TR" '$1 == d { print $3 }')" "-" "and list shows none left for it"

# ---- export and import ----
fresh
A=$S
for s in one two three; do
    visit "$T/e$s.har" "site-$s.com" "https://px.$TR/p" "uid=aa$s$s$s""bbccdd"
    visit "$T/f$s.har" "site-$s.com" "https://$Y/p" "uid=aa$s$s$s""bbccdd"
    b learn "$T/e$s.har" "$T/f$s.har" >/dev/null 2>&1
done
visit "$T/g.har" site-one.com "https://$CA/p" "uid=5e6f7a8b9c0d"
b learn "$T/g.har" >/dev/null 2>&1
b set "user.$SC" block >/dev/null
b list >"$T/list-a"
run export
ok $? "export writes Privacy Badger JSON"
cp "$T/out" "$T/export-stdout"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    for (qw(action_map snitch_map settings_map tracking_map fp_scripts)) { exists $d->{$_} or exit 1 }' \
    <"$T/out"
ok $? "the pb export has Privacy Badger's five stores"
run export -o "$T/export.json"
ok $? "export -o FILE"
cmp -s "$T/export.json" "$T/export-stdout"
ok $? "export -o writes the same text as standard output"
is "$(stat -c %a "$T/export.json")" 600 \
    "export -o of the pb format writes mode 0600: it lists the sites seen"
fresh
run import "$T/export.json"
ok $? "import the export into a fresh state"
b list >"$T/list-b"
cmp -s "$T/list-a" "$T/list-b"
ok $? "the re-imported state has identical decisions"
S=$A
run export --format hosts
ok $? "export --format hosts"
b export --format hosts -o "$T/export.hosts" 2>"$T/err"
is "$?:$(stat -c %a "$T/export.hosts")" "0:644" "a block list that names no site is written 0644"
grep -Eq "^0\.0\.0\.0[[:space:]]+px\.$TR\$" "$T/out" && grep -Fq "$TR" "$T/out"
ok $? "the hosts export lists the blocked domains"
grep -Fq "$CA" "$T/out"
is $? 1 "the hosts export leaves out domains that are only allow"
run export --format abp
ok $? "export --format abp"
grep -Fq "||$TR^" "$T/out"
ok $? "the abp export blocks the blocked domains"

# ---- bad input changes nothing ----
S=$A
snapshot before
# fails DESC NEEDLE ARGS...: brock ARGS must fail, name NEEDLE on stderr, change nothing.
fails() {
    desc=$1
    needle=$2
    shift 2
    run "$@"
    st=$?
    snapshot after
    if [ $st -ne 0 ] && grep -Fq -- "$needle" "$T/err" && cmp -s "$T/before" "$T/after"; then
        ok 0 "$desc"
    else
        ok 1 "$desc"
        echo "#   status $st; stderr: $(head -c 300 "$T/err")"
    fi
}
printf 'this is not JSON' >"$T/bad.har"
fails "learn of a file that is not JSON" bad.har learn "$T/bad.har"
printf '{"log":{"version":"1.2","entries":[]}}' >"$T/empty.har"
fails "learn of a HAR without entries" empty.har learn "$T/empty.har"
printf '{"log":{"version":"1.2"}}' >"$T/noentries.har"
fails "learn of a HAR with no entries array" noentries.har learn "$T/noentries.har"
printf '[1,2,3]' >"$T/array.har"
fails "learn of JSON that is not a HAR" array.har learn "$T/array.har"
har "$T/entry.har" '"just a string"'
fails "learn of a HAR whose only entry is not an object" "entries[0]" learn "$T/entry.har"
visit "$T/good.har" site-five.com "https://fresh.$TR/p" "uid=ffeeddccbbaa"
visit "$T/good2.har" site-six.com "https://new-brock-test-tracker.com/p" "uid=ffeeddccbbaa"
fails "learn of a good file then a bad one saves nothing" bad.har learn "$T/good2.har" "$T/bad.har"
# A file cut short in its last entry: the entries before the cut teach nothing either.
head -c -60 "$T/good2.har" >"$T/cut.har"
fails "learn of a HAR cut short in an entry" "cut.har: not JSON: the text ends before the JSON does" \
    learn "$T/cut.har"
fails "learn of a good file then one cut short saves nothing" cut.har \
    learn "$T/good2.har" "$T/cut.har"
fails "learn of a missing file" nosuch.har learn "$T/nosuch.har"
fails "learn without files is a usage error" "HAR file" learn
fails "set of a bad domain" "bad domain!" set "bad domain!" block
fails "set of a bad action" maybe set "$TR" maybe
fails "export in an unknown format" xml export --format xml
fails "export to a folder that does not exist" "$T/no/such/dir" export -o "$T/no/such/dir/x.json"
fails "list with an unknown flag" "--bogus" list --bogus
fails "an unknown global flag" "--bogus" --bogus list
fails "an unknown command" frobnicate frobnicate
fails "check of a bad URL" "ftp:/x" check "ftp:/x"
fails "check of a URL that is not a web URL" "ftp://example.com/" check "ftp://example.com/"
fails "check of text that is not a URL" "not a url" check "not a url"
fails "check with a bad --site" "not a site" check --site "not a site" https://example.com/
printf '{"action_map": 5' >"$T/bad.json"
fails "import of a file that is not JSON" bad.json import "$T/bad.json"
printf '{"action_map": 5, "snitch_map": {}}' >"$T/shape.json"
fails "import of a file with the wrong shapes" shape.json import "$T/shape.json"
fails "import of a missing file" nosuch.json import "$T/nosuch.json"
fails "run with a bad --listen" "nowhere" run --listen nowhere
fails "run with a bad --resolve" "example.com" run --resolve example.com
fails "a missing option argument" "--site" check --site
fails "check with an unknown --type" "--type: use other, main_frame" check --type bogus example.com

run set "$TR" maybe
is $? 2 "a bad action is a usage error (exit 2)"
grep -Fq "'maybe' is not an action: use allow, cookieblock, block or reset" "$T/err"
ok $? "a bad action is named, with the choices"
run export --format xml
formats=$(sed -n "s/.*--format 'xml' is not a format; the formats are //p" "$T/err")
is "$formats" "pb, hosts, abp, dnsmasq, unbound, rpz, privoxy, ubo, adguard, dnr, safari" \
    "an unknown export format is named, with the formats"
b export --help >"$T/out" 2>&1
missing=""
for f in $(echo "$formats" | tr -d ,); do
    grep -q "^  $f " "$T/out" && grep -q "\[--format .*$f" "$T/out" || missing="$missing $f"
done
is "$missing" "" "export --help describes every format the error lists"
run list --bogus
is $? 2 "a bad flag is a usage error (exit 2)"
run learn "$T/bad.har"
is $? 1 "a bad file is an error (exit 1)"

# ---- learning switched off ----
"$BROCK" --state "$S" --data "$DATA" --no-seed --no-learn learn "$T/good.har" >"$T/out" 2>"$T/err"
st=$?
snapshot after
[ $st -eq 1 ] && grep -q "learning is off" "$T/err" && cmp -s "$T/before" "$T/after"
ok $? "learn with --no-learn says learning is off, exits 1 and changes nothing"

# ---- help, version, defaults ----
"$BROCK" --help >"$T/out" 2>"$T/err"
ok $? "brock --help exits 0"
missing=""
for c in run check learn list set import export; do
    grep -q "^  $c " "$T/out" || missing="$missing $c"
done
is "$missing" "" "brock --help lists every command"
# Every command `brock --help` lists: its --help names it, and says what it alone does (a
# text copied from another command would describe that one).
commands=$(awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }' \
    "$T/out")
for c in $commands; do
    "$BROCK" "$c" --help >"$T/help-$c" 2>"$T/err" &&
        grep -q "^Usage: brock \[GLOBAL OPTIONS\] $c\( \|\$\)" "$T/help-$c"
    ok $? "brock $c --help names $c"
done
same=""
for c in $commands; do
    for o in $commands; do
        # The text below the usage and the summary: the command's own description.
        if [ "$c" \< "$o" ] && [ -n "$(tail -n +3 "$T/help-$c")" ] &&
            [ "$(tail -n +3 "$T/help-$c")" = "$(tail -n +3 "$T/help-$o")" ]; then
            same="$same $c=$o"
        fi
    done
done
is "$same" "" "no two commands' --help describe the same thing"
grep -q "^Turns brock on again on SITE" "$T/help-enable" &&
    ! grep -q "Turns brock off" "$T/help-enable"
ok $? "brock enable --help says that it turns brock on again"
"$BROCK" help learn >"$T/out" 2>&1 && grep -q "FILE.har" "$T/out"
ok $? "brock help learn"
"$BROCK" help nosuch >"$T/out" 2>"$T/err"
is $? 2 "brock help of an unknown command is a usage error"
is "$("$BROCK" --version)" "brock 0.1.0" "brock --version"
"$BROCK" --data "$DATA" --no-seed set example.com block >"$T/out" 2>"$T/err"
ok $? "without --state the state is under \$XDG_STATE_HOME"
[ -f "$XDG_STATE_HOME/brock/brock.db" ]
ok $? "\$XDG_STATE_HOME/brock/brock.db exists"
if [ "$(id -u)" -ne 0 ]; then
    env -u XDG_STATE_HOME "$BROCK" --data "$DATA" --no-seed set example.com block \
        >"$T/out" 2>"$T/err" && [ -f "$HOME/.local/state/brock/brock.db" ]
    ok $? "without \$XDG_STATE_HOME the state is under ~/.local/state/brock"
else
    # Root's is the system's, where the user brock serves as can reach it. Only asked where
    # (a command that reads): this machine's own state is not touched.
    env -u XDG_STATE_HOME "$BROCK" --data "$DATA" ca path >"$T/out" 2>"$T/err"
    grep -q "^/var/lib/brock/ca/ca.pem\$" "$T/out" || grep -q "/var/lib/brock has no CA" "$T/err"
    ok $? "without \$XDG_STATE_HOME, root's state is /var/lib/brock"
fi

# ---- commands that only read, and the seed as a property of the state ----
fresh
"$BROCK" --state "$S/deeper" --data "$DATA" list >"$T/out" 2>"$T/err"
ok $? "list on a state that does not exist yet"
[ ! -e "$S" ] && [ "$(wc -l <"$T/out")" -gt 1000 ]
ok $? "... shows what a new state would hold (the seed) and creates nothing"
"$BROCK" --state "$S" --data "$DATA" check https://www.google-analytics.com/collect >"$T/out" 2>"$T/err" &&
    "$BROCK" --state "$S" --data "$DATA" export >"$T/out2" 2>"$T/err" && [ ! -e "$S" ]
ok $? "check and export create nothing either"
mkdir -p "$S"
"$BROCK" --state "$S" --data "$DATA" --no-seed set example.com block >"$T/out" 2>"$T/err"
ok $? "a state made with --no-seed"
size=$(wc -c <"$S/brock.db")
"$BROCK" --state "$S" --data "$DATA" list >"$T/out" 2>"$T/err" &&
    "$BROCK" --state "$S" --data "$DATA" set example.net allow >/dev/null 2>>"$T/err" &&
    "$BROCK" --state "$S" --data "$DATA" list >"$T/out" 2>>"$T/err"
ok $? "list and set on it without --no-seed"
is "$(tail -n +2 "$T/out" | wc -l | tr -d ' ')" 2 "... it stays without the seed (two domains, both set by hand)"
is "$(wc -c <"$S/brock.db" | tr -d ' ')" "$size" "... and its database did not grow"
touch "$T/a-file"
"$BROCK" --state "$T/a-file" --data "$DATA" list >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "1:brock list: --state $T/a-file is not a folder" \
    "--state naming a file says so"
fresh
"$BROCK" --state "$S" --data "$DATA" ca path >"$T/out" 2>"$T/err"
grep -Fq "run \`brock --state $S ca init\`" "$T/err"
ok $? "an error naming brock ca init repeats --state"
"$BROCK" --state "$T/it's here" --data "$DATA" ca path >"$T/out" 2>"$T/err"
grep -Fq "run \`brock --state '$T/it'\\''s here' ca init\`" "$T/err"
ok $? "... quoted for the shell where it must be"

# ---- the seed ----
fresh
"$BROCK" --state "$S" --data "$DATA" check --site https://news.site-one.com/ \
    https://www.google-analytics.com/collect >"$T/out" 2>"$T/err"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{action} eq "block" or exit 1' \
    <"$T/out"
ok $? "a seeded state blocks what Privacy Badger's seed blocks"
C=$(perl -MJSON::PP -e 'local $/; my $m = decode_json(<STDIN>);
    for (sort keys %$m) { print "$_ $m->{$_}\n"; last }' <"$DATA/cname_domains.json")
run check --site https://www.site-one.com/ "https://${C% *}/t.js"
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); $d->{tracker} eq $ARGV[0] or exit 1' \
    "${C#* }" <"$T/out"
ok $? "check names the CNAME target as tracker when it differs from the host"

# ---- check: the type, fingerprinting scripts, surrogates ----
# A value of the JSON object check printed: json KEY (an absent key prints "none").
json() {
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
        my $v = $d->{$ARGV[0]}; print defined $v ? $v : "none"' "$1" <"$T/out"
}
FP="https://cdn.jsdelivr.net/npm/fingerprintjs2@2.1.0/dist/fingerprint2.min.js?v=1"
"$BROCK" --state "$S" --data "$DATA" check --type script --site https://news.example/ "$FP" \
    >"$T/out" 2>"$T/err"
ok $? "check --type script of a fingerprinting script on a cookieblocked CDN"
is "$(json type) $(json action) $(json effect) $(json reason)" "script cookieblock block fp_script" \
    "... denies it alone, for the fp_scripts reason"
case $(json why) in
*"seen fingerprinting"*) ok 0 "... and says why" ;;
*) ok 1 "... and says why" ;;
esac
"$BROCK" --state "$S" --data "$DATA" check --site https://news.example/ "$FP" >"$T/out" 2>"$T/err"
is "$(json type) $(json effect) $(json reason)" "other cookieblock action" \
    "without --type the request is of type other: the host's cookieblock applies"
"$BROCK" --state "$S" --data "$DATA" check --type script \
    "https://cdn.jsdelivr.net/npm/@fingerprintjs/fingerprintjs@3.3.2/dist/fp.js" >"$T/out" 2>&1
is "$(json reason) $(json surrogate)" "fp_script /npm/@fingerprintjs/fingerprintjs@3.3.2/dist/fp.js" \
    "a fingerprinting script with a surrogate rule names its token"
"$BROCK" --state "$S" --data "$DATA" check --type script \
    "https://www.google-analytics.com/x/analytics.js?id=7" >"$T/out" 2>&1
is "$(json effect) $(json surrogate)" "block /analytics.js" \
    "a blocked script that a surrogate rule matches names the surrogate"
case $(json why) in
*"surrogate /analytics.js"*) ok 0 "... in the explanation too" ;;
*) ok 1 "... in the explanation too" ;;
esac
"$BROCK" --state "$S" --data "$DATA" check --type stylesheet \
    "https://www.google-analytics.com/x/analytics.js" >"$T/out" 2>&1
is "$(json type) $(json surrogate)" "stylesheet none" "a stylesheet gets no script's surrogate"
"$BROCK" --state "$S" --data "$DATA" check --type script --site https://www.google-analytics.com/ \
    "https://www.google-analytics.com/analytics.js" >"$T/out" 2>&1
is "$(json effect) $(json surrogate)" "pass none" "a first-party script gets no surrogate"
"$BROCK" --state "$S" --data "$DATA" check --type script www.google-analytics.com >"$T/out" 2>&1
is "$(json effect) $(json surrogate)" "block none" "a host alone is decided, with no URL to match"

# ---- settings, disable, enable ----
fresh
run settings
is "$?:$(cat "$T/out")" "0:learn             on
send_dnt          on
check_dnt         on
clean_urls        on
uncloak           on
page_view_days    7
paused            no
disabled_sites    (none)
clean_urls_off    (none)
uncloak_off       (none)
widget_allowlist  (none)" "settings prints each setting, under the dashboard's names"
[ ! -e "$S" ]
ok $? "... and reading them creates no state"
run settings send_dnt off
is "$?:$(cat "$T/out")" "0:send_dnt          off" "settings NAME off sets it and prints it"
run settings page_view_days 30
is "$?:$(cat "$T/out")" "0:page_view_days    30" "settings page_view_days DAYS"
run disable bank.example
is "$?:$(cat "$T/out")" "0:disabled_sites    bank.example" "disable SITE adds it to the disabled sites"
run disable https://shop.example/cart
is "$(cat "$T/out")" "disabled_sites    bank.example, shop.example" "... a URL names its host"
b check --site https://bank.example/ https://www.google-analytics.com/collect >"$T/out" 2>&1
is "$(json effect) $(json reason)" "pass disabled" "a disabled site gets nothing blocked"
run enable bank.example
is "$?:$(cat "$T/out")" "0:disabled_sites    shop.example" "enable SITE removes it"
run settings --json
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    ($d->{send_dnt} ? 1 : 0) == 0 && $d->{learn} && $d->{page_view_days} == 30 &&
    join(",", @{$d->{disabled_sites}}) eq "shop.example" or exit 1' <"$T/out"
ok $? "settings --json: the dashboard's /api/settings object"
for bad in "colour" "learn maybe" "page_view_days 3651" "page_view_days x" \
    "disabled_sites x.example" "widget_allowlist x" "learn on extra" "paused yes" \
    "clean_urls maybe" "clean_urls_off x.example" "uncloak maybe" "uncloak_off x.example"; do
    # shellcheck disable=SC2086
    run settings $bad
    st=$?
    [ "$st" -eq 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
    ok $? "settings $bad: a usage error naming it"
done
run disable "not a site"
is "$?:$(cat "$T/err")" "1:brock disable: 'not a site' is not a site: give a host name \
(example.com) or a URL with one (https://example.com/)" "disable of something not a site says so"
run settings
is "$(cat "$T/out")" "learn             on
send_dnt          off
check_dnt         on
clean_urls        on
uncloak           on
page_view_days    30
paused            no
disabled_sites    shop.example
clean_urls_off    (none)
uncloak_off       (none)
widget_allowlist  (none)" "... and no bad input changed anything"

# ---- pause, resume, a site off for a while ----
fresh
run resume
is "$?:$(cat "$T/out")" "0:brock is not paused" "resume without a pause says so"
[ ! -e "$S" ]
ok $? "... and creates no state"
run pause
st=$?
[ "$st" -eq 0 ] && grep -Eq '^brock is paused until [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [-+][0-9]{4}, (10m|9m5[0-9]s) left; brock resume ends it sooner$' "$T/out"
ok $? "pause: ten minutes, with when it ends"
b check --site https://bank.example/ https://www.google-analytics.com/collect >"$T/out" 2>&1
is "$(json effect) $(json reason)" "pass disabled" "paused, every site is as a disabled one"
run settings paused
grep -Eq '^paused +until .*, (10m|9m[0-9]+s) left$' "$T/out"
ok $? "settings paused: until when"
run pause 2h30m
grep -Eq ', (2h30m|2h29m5[0-9]s) left;' "$T/out"
ok $? "pause 2h30m replaces the pause in force"
run pause --until-resume
is "$?:$(cat "$T/out")" "0:brock is paused until you resume it (brock resume)" "pause --until-resume: no end"
run settings --json
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    $d->{paused} && !defined $d->{paused_until_ms} or exit 1' <"$T/out"
ok $? "settings --json: paused, with no end"
run resume
is "$?:$(cat "$T/out")" "0:resumed: brock is on again everywhere but on the disabled sites" "resume ends it"
b check --site https://bank.example/ https://www.google-analytics.com/collect >"$T/out" 2>&1
is "$(json reason)" "action" "... and brock decides again"
for bad in "0m" "0h0m0s" "8d" "169h" "10" "1h1h" "1m1h" "-5m" "1.5h" "soon" "1m 2m" \
    "--until-resume 1m" "--for 1m"; do
    # shellcheck disable=SC2086
    run pause $bad
    st=$?
    [ "$st" -eq 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
    ok $? "pause $bad: a usage error naming it"
done
run pause 8d
is "$(cat "$T/err")" "brock pause: '8d' is more than 7 days; for a pause with no end, brock pause --until-resume
Try 'brock pause --help'." "pause 8d says the longest, and what has no end"
run pause 0m
is "$(head -1 "$T/err")" "brock pause: '0m' is no time at all: give at least one second" "pause 0m says why"
run disable shop.example --for 90m
st=$?
[ "$st" -eq 0 ] && grep -Eq '^disabled_sites    shop\.example \(until .*, (1h30m|1h29m5[0-9]s) left\)$' "$T/out"
ok $? "disable SITE --for 90m: off there until a time"
b check --site https://shop.example/ https://www.google-analytics.com/collect >"$T/out" 2>&1
is "$(json reason)" "disabled" "... and off there now"
run settings --json
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    $d->{disabled_until}[0]{site} eq "shop.example" && $d->{disabled_until}[0]{until_ms} > 0
    or exit 1' <"$T/out"
ok $? "settings --json: the site's end in disabled_until"
run disable shop.example
is "$(cat "$T/out")" "disabled_sites    shop.example" "disable SITE again: off for good"
for bad in "x.example --for 8d" "x.example --for" "x.example --for 0s" "--for 1m" \
    "x.example --for 2 minutes"; do
    # shellcheck disable=SC2086
    run disable $bad
    st=$?
    [ "$st" -eq 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
    ok $? "disable $bad: a usage error naming it"
done
run enable x.example --for 1m
is "$?" "2" "enable takes no --for"
for suffix in com co.uk "*.co.uk" https://github.io/; do
    run disable "$suffix"
    st=$?
    [ "$st" -eq 1 ] && grep -q "is a public suffix, under which anyone can have a site: brock off there would be off on all of them; give one site (example\." "$T/err"
    ok $? "disable $suffix: a public suffix is refused, saying why"
done
run disable co.uk
is "$(cat "$T/err")" "brock disable: 'co.uk' is a public suffix, under which anyone can have a site: brock off there would be off on all of them; give one site (example.co.uk)" "... naming the suffix and a site under it"
run disable 1.2.3.4
is "$?:$(cat "$T/out")" "0:disabled_sites    shop.example, 1.2.3.4" "an address is a site to disable"
run settings disabled_sites
is "$(cat "$T/out")" "disabled_sites    shop.example, 1.2.3.4" "... and nothing refused changed anything"

# ---- stats ----
# A state nothing went through: the days are there, empty, oldest first, today last (UTC).
fresh
today=$(date -u +%Y-%m-%d)
run stats
st=$?
[ "$st" -eq 0 ] && [ ! -e "$S" ] && [ "$(wc -l <"$T/out")" -eq 8 ] &&
    head -1 "$T/out" | grep -Eq '^day +blocked +cookieblocked +allowed +learned +sites +cleaned$' &&
    tail -1 "$T/out" | grep -Eq "^$today +0 +0 +0 +0 +0 +0$"
ok $? "stats: a header and the last 7 days, empty, creating nothing"
run stats --json --days 3
perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>);
    @$d == 3 && $d->[2]{day} eq $ARGV[0] && $d->[0]{day} lt $d->[1]{day} &&
    !grep { $_->{blocked} || $_->{allowed} || $_->{learned} || $_->{sites} } @$d
    or exit 1' "$today" <"$T/out"
ok $? "stats --json --days 3: the dashboard's /api/stats array"
for bad in "--days 0" "--days 3651" "--days x" "--days" "--days=-1" "extra" "--colour"; do
    # shellcheck disable=SC2086
    run stats $bad
    st=$?
    [ "$st" -eq 2 ] && [ -s "$T/err" ] && [ ! -s "$T/out" ]
    ok $? "stats $bad: a usage error naming it"
done
run stats --days x
is "$(cat "$T/err")" "brock stats: --days: 'x' is not a number of days from 1 to 3650
Try 'brock stats --help'." "stats --days x says what is wrong"

# ---- the configuration file ----
fresh
conf="$T/brock.conf"
printf '# the state and its options\nstate = %s\n\n  no-seed = yes\ndata=%s\n' "$S" "$DATA" >"$conf"
"$BROCK" --config "$conf" set conf-tracker.example block >"$T/out" 2>"$T/err"
ok $? "the configuration file's state, data and no-seed are used"
is "$(b list --all | awk 'NR > 1 { print $1, $2 }')" "conf-tracker.example user_block" \
    "... it is the state the file names, without the seed"
other="$T/state-other"
"$BROCK" --config "$conf" --state "$other" set other.example block >"$T/out" 2>"$T/err"
ok $? "a --state on the command line..."
[ -d "$other" ] && ! b list --all | grep -q other.example
ok $? "... wins over the file's"
for bad in "bogus = 1:3:unknown key 'bogus'" "no-seed = perhaps:3:'no-seed' is a flag" \
    "state:3:expected 'key = value'" "state = :3:'state' needs a value"; do
    printf '# a\n\n%s\n' "${bad%%:*}" >"$conf"
    fresh
    "$BROCK" --config "$conf" --state "$S" set x.example block >"$T/out" 2>"$T/err"
    st=$?
    rest=${bad#*:}
    case $(cat "$T/err") in
    "brock: $conf:${rest%%:*}: ${rest#*:}"*) [ "$st" -eq 1 ] && [ ! -e "$S" ] ;;
    *) false ;;
    esac
    ok $? "a bad line (${bad%%:*}) is refused naming $conf:${rest%%:*}, and nothing is made"
done
"$BROCK" --config "$T/missing.conf" list >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "1:brock: $T/missing.conf: No such file or directory" \
    "--config names a file that must exist"

# ---- brock status ----
fresh
# Started as root, brock serves as nobody, who must reach the state's folder.
[ "$(id -u)" -ne 0 ] || chmod 755 "$T"
"$BROCK" --state "$S" --data "$DATA" --no-seed run --listen 127.0.0.1:0 --no-update \
    2>"$T/run.err" &
runpid=$!
port=""
i=0
while [ -z "$port" ] && [ $i -lt 150 ] && kill -0 "$runpid" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
    port=$(sed -n 's/.*brock: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/run.err")
done
[ -n "$port" ]
ok $? "brock run started for status"
b status --listen "127.0.0.1:$port" >"$T/out" 2>"$T/err"
ok $? "status exits 0 while brock runs"
case $(head -1 "$T/out") in
"brock $("$BROCK" --version | cut -d' ' -f2) is running on 127.0.0.1:$port (dashboard http://127.0.0.1:$port/), since 20"*) ok 0 "status says where and since when" ;;
*) ok 1 "status says where and since when"; sed 's/^/# /' "$T/out" ;;
esac
grep -q "^since then: [0-9]* requests, 0 blocked" "$T/out" && grep -q "^state: $S/brock.db$" "$T/out"
ok $? "status says what it has done and where its state is"
printf 'listen = 127.0.0.1:%s\n' "$port" >"$T/status.conf"
"$BROCK" --config "$T/status.conf" status --json >"$T/out" 2>"$T/err"
[ "$(json listen)" = "127.0.0.1:$port" ]
ok $? "status --json asks the configuration file's listen address"
kill "$runpid"
wait "$runpid"
runpid=""
b status --listen "127.0.0.1:$port" >"$T/out" 2>"$T/err"
st=$?
case $(cat "$T/err") in
"brock status: brock is not running on 127.0.0.1:$port: "*"Connection refused") [ "$st" -eq 1 ] ;;
*) false ;;
esac
ok $? "status says clearly when brock is not running, and exits 1"

done_testing
