#!/usr/bin/env bash
# SIGINT and SIGTERM during attune tune: the run stops after the batch in flight, keeps every
# measured trial in the database, prints its summary, leaves no temporary directory and exits
# 130 / 143. A temporary a killed builder left in the kernel cache is removed on the next start.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
export TMPDIR="$tmp/tmp"  # where the runner makes its attune-run-* directory
mkdir -p "$TMPDIR" "$ATTUNE_CACHE_DIR"
db="$tmp/t.db"
spec="gemm:M=48,N=48,K=48"

# What a builder killed mid-compile leaves: a temporary named after its (now dead) pid.
dead_pid=$(sh -c 'echo $$')
stale="$ATTUNE_CACHE_DIR/0123456789abcdef.so.tmp.$dead_pid.0"
echo partial > "$stale"

records() { "$attune" export --jsonl --db "$db" 2>/dev/null | grep -c . || true; }

# Starts a long tune, waits until the database holds more than $1 records, sends signal $2,
# and leaves the exit status in $rc and the output in $tmp/out.
interrupt_tune() {
  "$attune" tune "$spec" --trials 100000 --db "$db" --threads 1 --seed "$3" > "$tmp/out" 2> "$tmp/err" &
  local pid=$! waited=0
  until [ "$(records)" -gt "$1" ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$tmp/err" >&2; echo "tune ended before the signal" >&2; exit 1; }
    sleep 0.2
    waited=$((waited + 1))
    [ $waited -lt 3000 ] || { kill -KILL "$pid"; echo "no records appeared" >&2; exit 1; }
  done
  kill "-$2" "$pid"
  rc=0
  wait "$pid" || rc=$?
}

interrupt_tune 1 INT 1
[ "$rc" -eq 130 ] || { cat "$tmp/out" "$tmp/err" >&2; echo "SIGINT: exit $rc, expected 130" >&2; exit 1; }
grep -q "stopped   by SIGINT" "$tmp/out"
# The summary counts what the database holds: every measured trial was committed.
first=$(records)
[ "$first" -ge 2 ]
grep -q "^trials    $first ($first this run, 0 resumed)" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
grep -q "^best " "$tmp/out"
test -z "$(ls -A "$TMPDIR")"  # no attune-run-* left behind
test ! -e "$stale"
"$attune" best "$spec" --db "$db" --json | grep -q '"status":"ok"'

# SIGTERM on a resumed run: 143, the earlier trials resumed, the new ones kept.
interrupt_tune "$first" TERM 2
[ "$rc" -eq 143 ] || { cat "$tmp/out" "$tmp/err" >&2; echo "SIGTERM: exit $rc, expected 143" >&2; exit 1; }
grep -q "stopped   by SIGTERM" "$tmp/out"
second=$(records)
[ "$second" -gt "$first" ]
grep -q "^trials    $second ($((second - first)) this run, $first resumed)" "$tmp/out" || { cat "$tmp/out" >&2; exit 1; }
test -z "$(ls -A "$TMPDIR")"
echo "signal test passed"
