#!/usr/bin/env bash
# Writes an app of N Go route modules (default 50) into DIR, for
# tests/startup/run.sh:
#
#   tests/startup/many.sh /tmp/app50 && tests/startup/run.sh /tmp/app50 /api/r00/2
#
# Each route is the users example's GET /api/users/{id} module, built by
# endpoints build (so it carries its contract sections), made distinct by a
# custom section holding its index: every copy compiles on its own, as N
# real routes would.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:?usage: tests/startup/many.sh DIR [N]}
n=${2:-50}
go run ./cmd/endpoints build --go-bundle=false examples/users >/dev/null
base="examples/users/server/api/users/[id].get.wasm"
for ((i = 0; i < n; i++)); do
  mkdir -p "$dir/server/api/r$(printf %02d "$i")"
  out="$dir/server/api/r$(printf %02d "$i")/[id].get.wasm"
  # A custom section (id 0) of 4 bytes: a name of 1 byte, "n", then 2 digits.
  { cat "$base"; printf '\x00\x04\x01n%02d' "$i"; } >"$out"
done
echo "$dir: $n route modules"
