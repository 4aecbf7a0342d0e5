#!/usr/bin/env bash
# Does an idle broker give memory back? Starts `./felix server` (a) with the launcher's defaults and (b) with
# the JVM options in $1 (default: only -XX:+UseG1GC, i.e. without the launcher's idle settings), loads each
# with ~300 MB of 48 KiB messages into a durable stream read by one subscriber, lets every client go, and
# prints RSS and Netty direct memory at start, right after the load, and after 45 s and 90 s idle.
# Takes about 4 minutes. Run it alone: it measures memory, and a busy machine slows the idle collections.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
other="${1:--XX:+UseG1GC}"
"$root/felix" --version >/dev/null

run() {
  local label=$1 opts=$2 dir
  dir=$(mktemp -d)
  FELIX_JAVA_OPTS="$opts" "$root/felix" server --data-dir "$dir/data" --quic-bind 127.0.0.1:5199 \
      --http-bind 127.0.0.1:8199 >"$dir/server.out" 2>&1 &
  local spid=$!
  for _ in $(seq 1 200); do grep -q "felix broker ready" "$dir/server.out" 2>/dev/null && break; sleep 0.3; done
  local jpid
  jpid=$(pgrep -f "quic-bind 127.0.0.1:5199" | head -1)
  measure() {
    local rss direct
    rss=$(awk '/VmRSS/{print int($2/1024)}' "/proc/$jpid/status")
    direct=$(curl -s 127.0.0.1:8199/metrics | awk '/^felix_netty_direct_memory_bytes/{printf "%d", $2/1048576}')
    printf '%-28s %-22s RSS %5s MiB   Netty direct %4s MiB\n' "$label" "$1" "$rss" "$direct"
  }
  measure start
  export FELIX_CA="$dir/data/tls/cert.pem" FELIX_BROKER=127.0.0.1:5199
  "$root/felix" stream create t1/default/load --durable --fsync periodic >/dev/null
  "$root/felix" sub t1/default/load --from earliest --count 6000 >/dev/null &
  local sub=$!
  { head -c 300000000 /dev/urandom | base64 -w 49152 | head -6000 > "$dir/input"; } || true  # SIGPIPE upstream
  "$root/felix" pub t1/default/load < "$dir/input"
  wait $sub
  measure "loaded, clients gone"
  sleep 45
  measure "idle 45 s"
  sleep 45
  measure "idle 90 s"
  kill $spid
  wait $spid 2>/dev/null || true
  rm -rf "$dir"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run "launcher defaults" ""
run "FELIX_JAVA_OPTS=$other" "$other"
