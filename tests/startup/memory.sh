#!/usr/bin/env bash
# Measures the resident memory (VmRSS) of `endpoints serve APP` at rest and
# after a short load, from a cold start (an empty compilation cache) and
# from a warm one (the cache `endpoints build --cache-dir` fills):
#
#   tests/startup/memory.sh [APP [PATH]]   (default examples/users and
#                                           GET /api/users/2)
#
# At rest: after one request per route (each route's method, ":param"
# replaced by 1, no body: an answer of any status) and, for the cold start,
# after the background compiler reported every route compiled, then 5 s of
# quiet. After load: `wrk -t2 -c16 -d10s` on GET PATH, then 5 s of quiet.
# Set PEER=/path/to/server (listening on 127.0.0.1:3931, serving PATH) to
# measure another server the same way, such as the Huma program the
# README's numbers compare with.
# ENDPOINTS=/path/to/endpoints uses that binary instead of building this
# checkout's.
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-examples/users}
path=${2:-/api/users/2}
addr=127.0.0.1:3996
tmp=$(mktemp -d)
bin=$tmp/endpoints
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

rss() { awk '/^VmRSS/ {printf "%.0f MiB", $2 / 1024}' "/proc/$1/status"; }

# load LABEL: the RSS after a short load on PATH.
load() {
  wrk -t2 -c16 -d10s "http://$1$path" | awk '/Requests\/sec/ {printf "%s req/s; ", $2}'
  sleep 5
  printf '%-34s %s\n' "$2: after load" "$(rss "$pid")"
}

if [ -n "${PEER:-}" ]; then
  "$PEER" 127.0.0.1:3931 &
  pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:3931$path"; do sleep 0.05; done
  sleep 5
  printf '%-34s %s\n' "$(basename "$PEER"): at rest" "$(rss "$pid")"
  load 127.0.0.1:3931 "$(basename "$PEER")"
  exit
fi

if [ -n "${ENDPOINTS:-}" ]; then
  bin=$ENDPOINTS # a binary built before, such as another version's
else
  go build -o "$bin" ./cmd/endpoints
fi
"$bin" build --cache-dir "$tmp/warm" "$app" >/dev/null
routes=$("$bin" routes "$app" 2>/dev/null | awk 'NR > 1 {print $1, $2}')

# serve LABEL CACHE: start the server, one request per route, wait for the
# compiler, print the RSS at rest, then after a load.
serve() {
  "$bin" serve "$app" --addr "$addr" --cache-dir "$2" >"$tmp/out" 2>&1 &
  pid=$!
  until curl -s -o /dev/null "http://$addr$path"; do sleep 0.05; done
  while read -r method route; do
    curl -s -o /dev/null -X "$method" "http://$addr$(sed 's/:[A-Za-z]*/1/g' <<<"$route")" || true
  done <<<"$routes"
  if [ "$1" = cold ]; then
    until grep -q "every route runs compiled code" "$tmp/out"; do sleep 0.2; done
  fi
  sleep 5
  printf '%-34s %s\n' "$1: at rest" "$(rss "$pid")"
  load "$addr" "$1"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

echo "$app: GET $path, $(nproc) cores, $(date -u +%F)"
serve cold "$tmp/cold"
serve warm "$tmp/warm"
