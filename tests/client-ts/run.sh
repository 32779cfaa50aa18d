#!/usr/bin/env bash
# Tests the TypeScript client Endpoints generates, on examples/users:
#   1. endpoints client writes the clients of the example app to
#      generated/ (and go test checks the synthetic features client).
#   2. The example app is built and served (endpoints serve, production
#      mode) from a copy whose endpoints.json also serves the document.
#   3. openapi-typescript turns the served document into types for
#      openapi-fetch (interop.test.ts).
#   4. tsc compiles everything with strict and every stricter flag
#      (tsconfig.json): the generated clients, and types.test.ts, whose
#      @ts-expect-error lines must each be an error.
#   5. node --test runs live.test, vue.test and interop.test against the app.
# Needs Go, Node >= 20 and npm (npm ci installs the pinned tools). Run from
# anywhere.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$dir/../.." && pwd)
cd "$dir"
[ -x node_modules/.bin/tsc ] || npm ci --no-audit --no-fund --loglevel=error

tmp=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

cd "$root"
go build -o "$tmp/endpoints" ./cmd/endpoints
"$tmp/endpoints" build examples/users >/dev/null

echo "== endpoints client --lang ts examples/users"
rm -rf "$dir/generated" "$dir/dist"
mkdir "$dir/generated"
"$tmp/endpoints" client --lang ts examples/users -o "$dir/generated/users.client.ts"
"$tmp/endpoints" client --lang ts --vue examples/users -o "$dir/generated/users.client.vue.ts"
# What the example app lacks comes from a synthetic document; go test
# checks that file is the generator's output.
go test -count=1 ./cmd/endpoints/internal/clientgen -run 'TestTypeScript.*Golden'
cp cmd/endpoints/internal/clientgen/testdata/features.client.ts "$dir/generated/"

echo "== serving examples/users"
mkdir "$tmp/app"
cp -R examples/users/server examples/users/auth "$tmp/app/"
# The same options, with the document served under serve too.
node -e '
  const options = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const openApi = typeof options.openApi === "object" && options.openApi !== null ? options.openApi : {};
  options.openApi = { ...openApi, enabled: true };
  console.log(JSON.stringify(options, null, 2));
' examples/users/endpoints.json >"$tmp/app/endpoints.json"
"$tmp/endpoints" serve "$tmp/app" --addr 127.0.0.1:0 --quiet >"$tmp/serve.log" 2>&1 &
server=$!
addr=""
# The first start compiles every module; later ones read the cache.
for _ in $(seq 1 1800); do
  addr=$(sed -n 's#^listening on \(http://[^ ]*\)$#\1#p' "$tmp/serve.log")
  [ -n "$addr" ] && break
  if ! kill -0 "$server" 2>/dev/null; then
    cat "$tmp/serve.log" >&2
    echo "endpoints serve exited before listening" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$addr" ]; then
  cat "$tmp/serve.log" >&2
  echo "endpoints serve did not listen within 180 s" >&2
  exit 1
fi
export BASE_URL=$addr
echo "serving on $BASE_URL"
# Writes need a bearer token: minted with the example's development key.
TOKEN=$("$tmp/endpoints" token examples/users --sub ts-client --scope users:write --scope orders:write)
export TOKEN

cd "$dir"
echo "== openapi-typescript $BASE_URL/_endpoints/schema"
npx --no-install openapi-typescript "$BASE_URL/_endpoints/schema" -o generated/users.openapi.ts >/dev/null

echo "== tsc (strict)"
npx --no-install tsc -p .

echo "== node --test"
node --test dist/live.test.js dist/vue.test.js dist/interop.test.js
