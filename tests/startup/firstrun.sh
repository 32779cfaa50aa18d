#!/usr/bin/env bash
# Times the README's first command as a newcomer meets it: a fresh clone,
# an empty Go build cache, `go run ./cmd/endpoints dev examples/users`, until
# GET /api/users/2 answers. The module cache is kept (downloading modules
# depends on the network, not on us); pass --no-modcache to empty it too.
#
#   tests/startup/firstrun.sh [--no-modcache]
#
# Prints the time to the first answer and when each phase's first line was
# printed by dev. The README's first-run numbers come from this script.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
addr=127.0.0.1:3998
trap 'pkill -f "endpoints dev examples/users --addr $addr" 2>/dev/null || true; chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

git clone -q "$repo" "$work/clone"
export GOCACHE="$work/gocache"
if [ "${1:-}" = --no-modcache ]; then export GOMODCACHE="$work/modcache"; fi
cd "$work/clone"
start=$(date +%s.%N)
go run ./cmd/endpoints dev examples/users --addr "$addr" >"$work/out" 2>&1 &
until curl -sf -o /dev/null "http://$addr/api/users/2"; do
  if ! pgrep -f "endpoints dev examples/users --addr $addr" >/dev/null && [ -s "$work/out" ] && ! pgrep -f "go run ./cmd/endpoints" >/dev/null; then
    cat "$work/out"; echo "dev exited before answering" >&2; exit 1
  fi
  sleep 0.2
done
end=$(date +%s.%N)
echo "$(nproc) cores, empty GOCACHE${1:+, empty GOMODCACHE}"
printf 'first answer: %.1f s after `go run`\n' "$(echo "$end - $start" | bc)"
echo "--- what dev printed:"
cat "$work/out"
