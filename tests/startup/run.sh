#!/usr/bin/env bash
# Times how long `endpoints serve` takes to answer its first request, cold
# (an empty compilation cache) and warm (the cache the cold run filled), and
# how long the background compiler takes after the cold start:
#
#   tests/startup/run.sh [APP [PATH]]   (default examples/users, built first,
#                                        and its first plain GET route)
#
# The README's startup numbers come from this script.
set -euo pipefail
cd "$(dirname "$0")/../.."
app=${1:-examples/users}
addr=127.0.0.1:3997
bin=$(mktemp -d)/endpoints
cache=$(mktemp -d)
out=$(mktemp)
trap 'pkill -f "$bin serve" 2>/dev/null || true; rm -rf "$(dirname "$bin")" "$cache" "$out"' EXIT

go build -o "$bin" ./cmd/endpoints
"$bin" build "$app" >/dev/null
path=${2:-$("$bin" routes "$app" | awk '$1 == "GET" && $3 == "plain" && $2 !~ /:/ {print $2; exit}')}

# serve LABEL: start the server, print how long until it answers.
serve() {
  local start end
  start=$(date +%s.%N)
  "$bin" serve "$app" --addr "$addr" --cache-dir "$cache" >"$out" 2>&1 &
  until curl -sf -o /dev/null "http://$addr$path"; do sleep 0.05; done
  end=$(date +%s.%N)
  printf '%-28s %6.2f s\n' "$1" "$(echo "$end - $start" | bc)"
}
stop() {
  pkill -f "$bin serve" || true
  while pgrep -f "$bin serve" >/dev/null; do sleep 0.1; done
}

modules=$(find "$app/server" -name '*.wasm' | wc -l)
echo "$app: $modules modules, GET $path, $(nproc) cores"
serve "cold: first answer"
start=$(date +%s.%N)
until grep -q "every route runs compiled code" "$out"; do sleep 0.1; done
printf '%-28s %6.2f s more\n' "cold: all compiled" "$(echo "$(date +%s.%N) - $start" | bc)"
stop
serve "warm: first answer"
stop
