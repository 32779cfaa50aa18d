#!/usr/bin/env bash
# Times `endpoints dev` from a saved Go route source to its new code
# answering (go build of the bundle, then the host's reload), N times:
#
#   tests/startup/reload.sh [APP SRC URL OLD [N]]
#
# Default: examples/users, its handlers/health/main.go, /health, "ok", 3.
# OLD is a Go string literal of SRC, quotes included, that URL answers:
# each round replaces it with a string of its own, then polls URL until
# the answer carries it. "pause" rounds first wait until the
# previous version runs compiled code; "busy" rounds save at once, while
# the compiler may still work on the previous version. It prints the wall
# time and the CPU time the dev process and its children (go build) spent
# meanwhile: on a shared machine the CPU time is the steadier number. SRC
# is restored at the end. For 50 Go routes:
#
#   tests/startup/manygo.sh /tmp/go50
#   endpoints build /tmp/go50
#   tests/startup/reload.sh /tmp/go50 /tmp/go50/handlers/r00/main.go \
#     /_endpoints/schema '"Get a user (00)"'
#
# (the route's summary, which the OpenAPI document shows: that app has no
# database for the route to answer from).
# ENDPOINTS=/path/to/endpoints uses that binary instead of building this
# checkout's. A round whose version is not served within LIMIT seconds
# (default 300) fails the run with the end of the dev output: a lost save
# would otherwise be polled for ever.
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-examples/users}
src=${2:-$app/handlers/health/main.go}
url=${3:-/health}
old=${4:-'"ok"'}
n=${5:-3}
limit=${LIMIT:-300}
addr=127.0.0.1:3995
tmp=$(mktemp -d)
bin=$tmp/endpoints
cp "$src" "$tmp/src"
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  cp "$tmp/src" "$src"
  rm -rf "$tmp"
}
trap cleanup EXIT

# cpu: the CPU seconds of the dev process and its waited-for children.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15 + $16 + $17) / hz}' "/proc/$pid/stat"; }
compiled() { grep -c "every route runs compiled code" "$tmp/out" || true; }

if [ -n "${ENDPOINTS:-}" ]; then
  bin=$ENDPOINTS # a binary built before, such as another version's
else
  go build -o "$bin" ./cmd/endpoints
fi
"$bin" dev "$app" --addr "$addr" --cache-dir "$tmp/cache" >"$tmp/out" 2>&1 &
pid=$!
until curl -s -o /dev/null "http://$addr$url"; do sleep 0.05; done
until [ "$(compiled)" -ge 1 ]; do sleep 0.2; done
echo "$app: $src, GET $url, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
for kind in pause busy; do
  for i in $(seq 1 "$n"); do
    before=$(compiled)
    tag="reload-$kind-$i-$RANDOM"
    sed "s|$old|\"$tag\"|" "$tmp/src" >"$tmp/new"
    c0=$(cpu)
    s=$(date +%s.%N)
    since=$SECONDS
    cp "$tmp/new" "$src"
    until curl -s "http://$addr$url" | grep -q "$tag"; do
      if ((SECONDS - since > limit)); then
        echo "$kind $i: not served within $limit s; the dev output ends:" >&2
        grep -v '"GET ' "$tmp/out" | tail -5 >&2
        exit 1
      fi
      sleep 0.01
    done
    e=$(date +%s.%N)
    printf '%-6s %d: save -> served %6.2f s, CPU %5.2f s\n' "$kind" "$i" "$(echo "$e - $s" | bc)" "$(echo "$(cpu) - $c0" | bc)"
    if [ "$kind" = pause ]; then
      # The next round saves once this version runs compiled code.
      until [ "$(compiled)" -gt "$before" ]; do sleep 0.2; done
    fi
  done
done
