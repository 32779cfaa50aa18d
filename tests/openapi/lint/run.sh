#!/usr/bin/env bash
# Lints the OpenAPI documents Endpoints generates with two independent tools,
# @stoplight/spectral-cli (ruleset spectral:oas) and @redocly/cli
# (recommended): the example app must raise no warning at all, every other
# app and golden document no error. Run from anywhere; needs Go and npm.
set -euo pipefail
lint_dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$lint_dir/../../.." && pwd)
cd "$lint_dir"
[ -x node_modules/.bin/spectral ] || npm ci --no-audit --no-fund --loglevel=error
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cd "$root"
go build -o "$out/endpoints" ./cmd/endpoints
docs=()
for app in examples/users examples/users-c host/testdata/hello; do
  name=$(echo "$app" | tr / -)
  if [ "$app" != host/testdata/hello ]; then
    "$out/endpoints" build "$app" >/dev/null
  fi
  "$out/endpoints" openapi "$app" -o "$out/$name.json" >/dev/null
  docs+=("$out/$name.json")
done
docs+=("$root"/openapi/testdata/*.golden.json)

cd "$lint_dir"
status=0
for doc in "${docs[@]}"; do
  severity=error config=redocly-generated.yaml
  case "$doc" in *examples-users.json) severity=warn config=redocly.yaml ;; esac
  echo "== $(basename "$doc") (spectral, failing on $severity)"
  npx --no-install spectral lint --quiet --ruleset .spectral.yaml --fail-severity="$severity" "$doc" || status=1
  echo "== $(basename "$doc") (redocly)"
  if ! npx --no-install redocly lint --config "$config" --format=stylish "$doc" >"$out/redocly.log" 2>&1; then
    grep -vE "^$|║|╔|╚" "$out/redocly.log" | tail -n 30
    echo "redocly found errors in $doc"
    status=1
  fi
done
exit $status
