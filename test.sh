#!/usr/bin/env bash
# Runs every test of Endpoints: gofmt, go vet, then go test ./...
#
# The tests build real guest modules: Go ones with the Go toolchain, C ones
# with clang and wasi-libc, WAT ones with wabt; the docs page is tested in
# headless Chromium with a Scalar build from npm; the Redis store and two
# hosts sharing it are tested against a real redis-server the tests start. On Debian and Ubuntu this
# script installs the missing packages with apt-get (as root, or with sudo),
# and the npm tools with npm ci.
set -euo pipefail
cd "$(dirname "$0")"

packages=(clang lld wasi-libc libclang-rt-14-dev-wasm32 wabt chromium redis-server)
if command -v dpkg >/dev/null 2>&1; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing the guest toolchains: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
elif ! command -v clang >/dev/null || ! command -v wat2wasm >/dev/null || ! command -v redis-server >/dev/null; then
  echo "the tests need clang with wasi-libc, wabt (wat2wasm) and redis-server; install them, then run again" >&2
  exit 1
fi

if [ ! -d tests/openapi/lint/node_modules ]; then
  echo "installing the pinned npm tools of tests/openapi/lint"
  (cd tests/openapi/lint && npm ci --no-audit --no-fund --loglevel=error)
fi

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change these files; run gofmt -w on them:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 "$@" ./...
# The document-versus-runtime test has a module of its own, so that the
# independent OpenAPI validator it uses stays out of the main go.mod.
(cd tests/openapi && go vet ./... && go test -count=1 "$@" ./...)
