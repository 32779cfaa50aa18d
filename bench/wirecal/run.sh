#!/usr/bin/env bash
# Calibrates the wire benchmark: serves the native variant with 0, 2, 5, 10,
# 20, 40 µs of busy CPU work a request, and the apps given, on one core
# (GOMAXPROCS=1, taskset -c 0) with wrk -t1 -c16 on the other, in rounds,
# and prints each variant's median req/s, its ratio to the native variant
# without work, and the server time a request (1/rate) beyond that variant's.
#
#   bench/wirecal/run.sh                                   # the native variant alone
#   APPS="examples/users-c examples/users" ROUNDS=5 bench/wirecal/run.sh
#   DB=examples/users-c/.endpoints/data/main.db APPS=examples/users-c bench/wirecal/run.sh
#
# DB adds the native variant reading the user from that SQLite database
# (wirecal -db), the read the examples' handlers make.
#
# Needs wrk and taskset; run from the repository root on a quiet machine.
# The apps must be built (endpoints build) and their compilation cache warm.
set -euo pipefail
ROUNDS=${ROUNDS:-3}; DURATION=${DURATION:-5s}; PORT=${PORT:-18090}
WORK=${WORK:-"0 2us 5us 10us 20us 40us"}; APPS=${APPS:-}; DB=${DB:-}
URL="http://127.0.0.1:$PORT/api/users/2"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
go build -o "$out/wirecal" ./bench/wirecal
[ -z "$APPS" ] || go build -o "$out/endpoints" ./cmd/endpoints
pid=
start() { # variant
  case $1 in
    work=*) GOMAXPROCS=1 taskset -c 0 "$out/wirecal" -addr "127.0.0.1:$PORT" -work "${1#work=}" & ;;
    db=*) GOMAXPROCS=1 taskset -c 0 "$out/wirecal" -addr "127.0.0.1:$PORT" -db "${1#db=}" & ;;
    *) GOMAXPROCS=1 taskset -c 0 "$out/endpoints" serve --quiet --addr "127.0.0.1:$PORT" "$1" >/dev/null 2>&1 & ;;
  esac
  pid=$!
  for _ in $(seq 600); do curl -sf -o /dev/null "$URL" && return 0; sleep 0.1; done
  echo "$1 did not serve $URL" >&2; exit 1
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
variants=(); for w in $WORK; do variants+=("work=$w"); done; [ -z "$DB" ] || variants+=("db=$DB"); for a in $APPS; do variants+=("$a"); done
for r in $(seq "$ROUNDS"); do
  for v in "${variants[@]}"; do
    start "$v"
    taskset -c 1 wrk -t1 -c16 -d1s "$URL" >/dev/null
    rps=$(taskset -c 1 wrk -t1 -c16 -d"$DURATION" "$URL" | awk '/Requests\/sec/{print $2}')
    stop
    echo "$r $v $rps" | tee -a "$out/rps.txt" >&2
  done
done
awk '
{ v[$2] = v[$2] " " $3; if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
function median(s,   a, k, i, j, t) { k = split(s, a, " "); for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
END {
  base = median(v["work=0"])
  printf "%-24s %12s %9s %16s\n", "variant", "median req/s", "vs work=0", "µs/req beyond it"
  for (i = 0; i < n; i++) { m = median(v[order[i]]); printf "%-24s %12.0f %9.2f %16.1f\n", order[i], m, m / base, 1e6 / m - 1e6 / base }
}' "$out/rps.txt"
