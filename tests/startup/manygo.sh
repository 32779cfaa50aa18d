#!/usr/bin/env bash
# Writes an app of N Go route sources (default 50) into DIR: each the users
# example's GET /api/users/{id} handler, made distinct by its route
# (GET /api/rNN/:id), in a Go module of its own that uses this checkout's
# SDK. For build times and memory with and without the Go bundle:
#
#   tests/startup/manygo.sh /tmp/go50
#   endpoints build /tmp/go50                    # one module: server/bundles/go.wasm
#   endpoints build --go-bundle=false /tmp/go50  # 50 modules under server/api
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dir=${1:?usage: tests/startup/manygo.sh DIR [N]}
n=${2:-50}
mkdir -p "$dir/server"
goline=$(grep -m1 '^go ' go.mod)
cat >"$dir/go.mod" <<MOD
module example.com/many

$goline

require github.com/wasmendpoints/endpoints v0.0.0

replace github.com/wasmendpoints/endpoints => $root
MOD
mkdir -p "$dir/model"
cp examples/users/model/users.go examples/users/model/store.go examples/users/model/orders.go "$dir/model/"
sed -i 's#github.com/wasmendpoints/endpoints/examples/users/model#example.com/many/model#' "$dir"/model/*.go
for ((i = 0; i < n; i++)); do
  r=$(printf %02d "$i")
  mkdir -p "$dir/handlers/r$r"
  sed -e "s#^//endpoints:route GET /api/users/:id#//endpoints:route GET /api/r$r/:id#" \
    -e 's#github.com/wasmendpoints/endpoints/examples/users/model#example.com/many/model#' \
    -e "s#Summary:     \"Get a user\"#Summary:     \"Get a user ($r)\"#" \
    examples/users/handlers/get-user/main.go >"$dir/handlers/r$r/main.go"
done
echo "$dir: $n Go route sources"
