#!/usr/bin/env bash
# Counts the system calls one statement makes, per variant: the benchmark
# runs under `strace -c -f` twice, with N1 and N2 statements of one kind on
# one variant (no warm-up, no cleanup), and the difference of each call's
# count, divided by N2-N1, is what one statement costs; the setup (seeding,
# opening) is the same in both runs and cancels out. Calls of Go's runtime
# (futex, nanosleep, madvise...) are counted too: they scale with time as
# well as with statements, and strace slows the process down, so read them
# as an indication; SQLite's own file calls (fcntl, pread64, pwrite64,
# lseek, fdatasync/fsync) are exact.
#
#   ./syscalls.sh                       # every variant, every statement
#   ./syscalls.sh ncruces,modernc-sql get,insert
#
# Needs strace. Extra arguments after the two lists go to the benchmark
# (e.g. -sync FULL).
set -euo pipefail
cd "$(dirname "$0")"
variants=${1:-ncruces,ncruces-sql,modernc-sql,modernc-lib,host}
ops=${2:-get,search,insert,update,tx}
shift 2 2>/dev/null || shift $#
n1=${N1:-500}
n2=${N2:-2500}
command -v strace >/dev/null || { echo "syscalls.sh needs strace (apt-get install strace)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/sqlitedrivers" .
migrations=$(cd ../../examples/users/server/migrations && pwd)

# count VARIANT OP N: strace's summary of a run, as "syscall calls" lines.
count() {
  strace -f -c -o "$tmp/strace.txt" "$tmp/sqlitedrivers" -migrations "$migrations" -dir "$tmp/db-$3" \
    -variants "$1" -ops "$2" -rounds 1 -warmup 0 -cleanup=false -n "$3" "${@:4}" >/dev/null
  rm -rf "$tmp/db-$3"
  # lines: % time, seconds, usecs/call, calls, [errors], syscall
  awk '$1 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" { print $NF, $4 }' "$tmp/strace.txt"
}

printf '| variant | statement | system calls a statement (%s minus %s statements, under strace) |\n|---|---|---|\n' "$n2" "$n1"
for v in ${variants//,/ }; do
  for o in ${ops//,/ }; do
    count "$v" "$o" "$n1" "$@" >"$tmp/a"
    count "$v" "$o" "$n2" "$@" >"$tmp/b"
    calls=$(awk -v d=$((n2 - n1)) '
      NR == FNR { a[$1] = $2; next }
      { b[$1] = $2 }
      END {
        for (k in b) { x = (b[k] - a[k]) / d; if (x >= 0.05) printf "%s %.2f\n", k, x }
      }' "$tmp/a" "$tmp/b" | sort -k2 -n -r | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
    printf '| %s | %s | %s |\n' "$v" "$o" "${calls:-none}"
  done
done
