#!/usr/bin/env bash
# Profiles the apps given as the wire benchmark serves them: each on one
# core (GOMAXPROCS=1, taskset -c 1) with wrk -t1 -c16 on the other, GET
# /api/users/2, perf record -g at 2000 Hz for the DURATION of a wrk run,
# and prints wireprof's breakdown of the server's CPU time a request.
#
#   APPS="examples/users-c examples/users" bench/wireprof/run.sh
#
# The endpoints it serves is built with -tags perfmap and each app served
# with an empty compilation cache, so that wazero compiles the modules in
# that process and writes /tmp/perf-PID.map (it writes none for code read
# from a cache): the guest's compiled code then has names in the profile.
# Profiling starts once every route runs compiled code, after a warm-up.
# The perf data, wrk output and map of each app are kept in OUT.
#
# Needs perf, wrk and taskset; the apps built (endpoints build). Run from
# the repository root; say the load average with the numbers.
set -euo pipefail
APPS=${APPS:?APPS: the apps to profile, e.g. \"examples/users-c examples/users\"}
DURATION=${DURATION:-10}; PORT=${PORT:-18090}; HZ=${HZ:-2000}
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT"
URL="http://127.0.0.1:$PORT/api/users/2"
go build -tags perfmap -o "$OUT/endpoints" ./cmd/endpoints
go build -o "$OUT/wireprof" ./bench/wireprof
# cputicks is the CPU time (user and system, in clock ticks) process $1 used.
cputicks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for app in $APPS; do
  name=$(basename "$app"); cache="$OUT/$name.cache"
  rm -rf "$cache"; mkdir -m 700 "$cache"
  # --json keeps the compile events under --quiet, which logs no request.
  GOMAXPROCS=1 taskset -c 1 "$OUT/endpoints" serve --quiet --json --cache-dir "$cache" --addr "127.0.0.1:$PORT" "$app" >"$OUT/$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do curl -sf -o /dev/null "$URL" && break; sleep 0.1; done
  for _ in $(seq 600); do grep -q '"event":"compile"' "$OUT/$name.log" && break; sleep 0.5; done
  grep -q '"event":"compile"' "$OUT/$name.log" || { echo "$app: no module compiled within 5 minutes" >&2; kill "$pid"; exit 1; }
  taskset -c 0 wrk -t1 -c16 -d3s "$URL" >/dev/null
  # The server's core, not its pid: perf record -p missed a thread the
  # Go runtime started later once (a third of the samples); perf script
  # keeps the server's own.
  ticks0=$(cputicks "$pid")
  perf record -F "$HZ" -g -C 1 -o "$OUT/$name.data" -- sleep "$DURATION" >/dev/null 2>&1 &
  perfpid=$!
  taskset -c 0 wrk -t1 -c16 -d"${DURATION}s" "$URL" >"$OUT/$name.wrk"
  wait "$perfpid"
  ticks=$(( $(cputicks "$pid") - ticks0 ))
  cp "/tmp/perf-$pid.map" "$OUT/$name.map" 2>/dev/null || true
  requests=$(awk '/requests in/{print $1}' "$OUT/$name.wrk")
  echo "== $app: $(awk '/Requests\/sec/{print $2}' "$OUT/$name.wrk") req/s, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "$(( ticks * 1000000 / $(getconf CLK_TCK) / requests )) µs of CPU a request by /proc/$pid/stat"
  perf script -i "$OUT/$name.data" --pid "$pid" -F ip,sym,dso 2>/dev/null | "$OUT/wireprof" -requests "$requests" -hz "$HZ"
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
echo "profiles in $OUT (perf report -i $OUT/NAME.data needs /tmp/perf-PID.map: kept as NAME.map)"
