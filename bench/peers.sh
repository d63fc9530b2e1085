# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the benchmarks: a scratch folder removed at exit with every process started
# (their pids in pids), free and ready ports, and how to start brock and each peer proxy on a
# free loopback port. start_NAME sets port and writes the pid to $tmp/pid.NAME.

tmp=$(mktemp -d /tmp/brock-bench.XXXXXX)
chmod 777 "$tmp"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

wait_port() {
    for _ in $(seq 100); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    return 1
}

# ---- the origin: nginx on a free loopback port (origin_port), serving 1k, 100k and 1m ----
start_origin() {
    mkdir -p "$tmp/www" "$tmp/nginx"
    head -c 1024 /dev/urandom >"$tmp/www/1k"
    head -c 102400 /dev/urandom >"$tmp/www/100k"
    head -c 1048576 /dev/urandom >"$tmp/www/1m"
    origin_port=$(free_port)
    cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
error_log $tmp/nginx/error.log;
pid $tmp/nginx/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx; proxy_temp_path $tmp/nginx;
    fastcgi_temp_path $tmp/nginx; uwsgi_temp_path $tmp/nginx; scgi_temp_path $tmp/nginx;
    keepalive_requests 10000000;
    server { listen 127.0.0.1:$origin_port; root $tmp/www; }
}
EOF
    nginx -c "$tmp/nginx.conf" -p "$tmp/nginx" &
    pids+=($!)
    origin_pid=$!
    wait_port "$origin_port"
}

# proc_sum PID FILE PROG: the sum over a process and its children of the number awk PROG
# prints from /proc/PID/FILE (0 for a process gone meanwhile).
proc_sum() {
    local total=0 p
    for p in $1 $(pgrep -P "$1" || true); do
        total=$((total + $(awk "$3" "/proc/$p/$2" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

# CPU time a process and its children used so far, in clock ticks (user and system).
cpu_ticks() {
    proc_sum "$1" stat '{ print $14 + $15 }'
}

# Microseconds of CPU a request from ticks spent over n requests.
cpu_us_per() {
    awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }'
}

# ---- the proxies; each start_NAME sets port (they run in this shell, to keep their pids) ----
start_brock() {
    # Thousands of connections from one address, as the peers are measured: no cap per address.
    # One process (one event loop) unless BROCK_WORKERS says otherwise (bench/workers).
    "$BROCK" --state "$tmp/brock-state" --no-seed run -q --listen 127.0.0.1:0 \
        --max-client-connections 0 --workers "${BROCK_WORKERS:-1}" 2>"$tmp/brock.log" &
    pids+=($!)
    echo $! >"$tmp/pid.brock"
    for _ in $(seq 100); do
        port=$(sed -n 's/^.*brock: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$tmp/brock.log")
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    return 1
}

start_tinyproxy() {
    port=$(free_port)
    printf 'Port %s\nListen 127.0.0.1\nTimeout 600\nMaxClients 4096\nLogLevel Error\n' \
        "$port" >"$tmp/tinyproxy.conf"
    tinyproxy -d -c "$tmp/tinyproxy.conf" >/dev/null 2>&1 &
    pids+=($!); echo $! >"$tmp/pid.tinyproxy"
}

start_privoxy() {
    port=$(free_port)
    cat >"$tmp/privoxy.conf" <<EOF
confdir /etc/privoxy
logdir $tmp
actionsfile match-all.action
actionsfile default.action
filterfile default.filter
listen-address 127.0.0.1:$port
toggle 1
keep-alive-timeout 300
connection-sharing 1
max-client-connections 4096
EOF
    privoxy --no-daemon "$tmp/privoxy.conf" >/dev/null 2>&1 &
    pids+=($!); echo $! >"$tmp/pid.privoxy"
}

start_squid() {
    port=$(free_port)
    cat >"$tmp/squid.conf" <<EOF
http_port 127.0.0.1:$port
http_access allow all
cache deny all
access_log none
cache_log $tmp/squid-cache.log
pid_filename $tmp/squid.pid
coredump_dir $tmp
shutdown_lifetime 0 seconds
EOF
    squid -N -f "$tmp/squid.conf" >/dev/null 2>&1 &
    pids+=($!); echo $! >"$tmp/pid.squid"
}

start_mitmproxy() {
    port=$(free_port)
    mitmdump --listen-host 127.0.0.1 -p "$port" -q >/dev/null 2>&1 &
    pids+=($!); echo $! >"$tmp/pid.mitmproxy"
}

# Peak memory of a process and its children, in KiB.
peak_rss() {
    proc_sum "$1" status '/^VmHWM/ { v = $2 } END { print v + 0 }'
}


# ---- a TLS origin: a second nginx serving the same files over HTTPS on tls_port, its leaf for
# 127.0.0.1 signed by a CA of its own ($tmp/tls/ca.pem, for brock's --upstream-ca) ----
start_tls_origin() {
    local d=$tmp/tls
    mkdir -p "$d"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj '/CN=brock bench CA' -keyout "$d/ca.key" -out "$d/ca.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
        2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
        -keyout "$d/leaf.key" -out "$d/leaf.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$d/leaf.ext"
    openssl x509 -req -in "$d/leaf.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -set_serial 1 \
        -days 2 -extfile "$d/leaf.ext" -out "$d/leaf.pem" 2>/dev/null
    tls_port=$(free_port)
    cat >"$d/nginx.conf" <<EOC
worker_processes 1;
daemon off;
error_log $d/error.log;
pid $d/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $d; proxy_temp_path $d;
    fastcgi_temp_path $d; uwsgi_temp_path $d; scgi_temp_path $d;
    keepalive_requests 10000000;
    server {
        listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $d/leaf.pem; ssl_certificate_key $d/leaf.key;
        root $tmp/www;
    }
}
EOC
    nginx -c "$d/nginx.conf" -p "$d" &
    pids+=($!)
    echo $! >"$tmp/pid.tls-origin"
    wait_port "$tls_port"
}

# brock intercepting HTTPS, trusting the TLS origin's CA; as start_brock.
start_brock_intercept() {
    "$BROCK" --state "$tmp/brock-mitm" --no-seed ca init >/dev/null 2>&1
    "$BROCK" --state "$tmp/brock-mitm" --no-seed run -q --listen 127.0.0.1:0 --intercept \
        --upstream-ca "$tmp/tls/ca.pem" --max-client-connections 0 2>"$tmp/brock-mitm.log" &
    pids+=($!)
    echo $! >"$tmp/pid.brock-mitm"
    for _ in $(seq 100); do
        port=$(sed -n 's/^.*brock: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
               "$tmp/brock-mitm.log")
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    return 1
}
