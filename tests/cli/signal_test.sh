#!/usr/bin/env bash
# SIGINT and SIGTERM during attune tune: the run stops after the batch in flight, keeps every
# measured trial in the database, prints its summary, leaves no temporary directory and exits
# 130 / 143. A temporary a killed builder left in the kernel cache is removed on the next start.
# Every check says what it saw when it fails: CI shows only this script's output.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
export TMPDIR="$tmp/tmp"  # where the runner makes its attune-run-* directory
mkdir -p "$TMPDIR" "$ATTUNE_CACHE_DIR"
db="$tmp/t.db"
spec="gemm:M=48,N=48,K=48"

fail() {
  echo "signal test: $*" >&2
  echo "--- tune's stdout:" >&2; cat "$tmp/out" >&2 2>/dev/null || true
  echo "--- tune's stderr:" >&2; cat "$tmp/err" >&2 2>/dev/null || true
  echo "--- $TMPDIR holds:" >&2; ls -la "$TMPDIR" >&2 || true
  exit 1
}

# What a builder killed mid-compile leaves: a temporary named after its (now dead) pid.
dead_pid=$(sh -c 'echo $$')
stale="$ATTUNE_CACHE_DIR/0123456789abcdef.so.tmp.$dead_pid.0"
echo partial > "$stale"

# The records in the database (all, or those whose status is $1).
records() {
  local lines
  lines=$("$attune" export --jsonl --db "$db" 2>/dev/null) || true
  if [ $# -gt 0 ]; then printf '%s\n' "$lines" | grep -c "\"status\":\"$1\"" || true
  else printf '%s\n' "$lines" | grep -c . || true; fi
}

# Starts a long tune, waits until the database holds more than $1 records of which at least one
# is valid (the summary's `best` line needs one), sends signal $2, and leaves the exit status in
# $rc and the output in $tmp/out.
interrupt_tune() {
  "$attune" tune "$spec" --trials 100000 --db "$db" --threads 1 --seed "$3" > "$tmp/out" 2> "$tmp/err" &
  local pid=$! waited=0
  until [ "$(records)" -gt "$1" ] && [ "$(records ok)" -gt 0 ]; do
    kill -0 "$pid" 2>/dev/null || fail "tune ended before the signal"
    sleep 0.2
    waited=$((waited + 1))
    [ $waited -lt 3000 ] || { kill -KILL "$pid"; fail "no records appeared in 10 minutes"; }
  done
  kill "-$2" "$pid"
  rc=0
  wait "$pid" || rc=$?
}

# After an interrupted run: the summary names the signal and counts what the database holds.
check_stopped() {  # $1 signal name, $2 records before this run
  local total this_run
  grep -q "stopped   by $1" "$tmp/out" || fail "$1: no 'stopped by $1' line"
  total=$(records)
  [ "$total" -gt "$2" ] || fail "$1: the database holds $total records, $2 before this run"
  this_run=$((total - $2))
  grep -q "^trials    $total ($this_run this run, $2 resumed)" "$tmp/out" ||
    fail "$1: the summary does not count the $total records ($this_run this run, $2 resumed)"
  grep -q "^best " "$tmp/out" || fail "$1: no 'best' line"
  [ -z "$(ls -A "$TMPDIR")" ] || fail "$1: a temporary was left behind"
  stopped_total=$total
}

interrupt_tune 1 INT 1
[ "$rc" -eq 130 ] || fail "SIGINT: exit $rc, expected 130"
check_stopped SIGINT 0
first=$stopped_total
[ ! -e "$stale" ] || fail "the dead builder's temporary $stale is still there"
best=$("$attune" best "$spec" --db "$db" --json) || fail "attune best failed after SIGINT"
grep -q '"status":"ok"' <<< "$best" || fail "attune best: $best"

# SIGTERM on a resumed run: 143, the earlier trials resumed, the new ones kept.
interrupt_tune "$first" TERM 2
[ "$rc" -eq 143 ] || fail "SIGTERM: exit $rc, expected 143"
check_stopped SIGTERM "$first"
echo "signal test passed"
