#!/usr/bin/env bash
# Distributed measurement when things die: a worker killed with SIGKILL mid-measurement (its
# job is taken again once the lease expires, and recorded once), the search side killed and
# resumed, the server restarted under load (workers reconnect with backoff), a worker stopped
# with SIGTERM (it finishes its job and exits 0). In every case: jobs enqueued = records
# written, none twice, none lost.
set -euo pipefail
attune=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib/pg_server.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 -- "-$p" 2> /dev/null || kill -9 "$p" 2> /dev/null || true; done
  pg_cleanup
  rm -rf "$tmp"
}
trap cleanup EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
pg_start
# Runner directories a SIGKILLed process leaves (attune-run-*) land in $tmp, removed at exit.
export TMPDIR="$tmp/tmp"
mkdir -p "$TMPDIR"
vta="gemm:M=16,N=64,K=64,dtype=int8"

# Starts a worker in a process group of its own (so that it dies with its compilers and
# measuring child); its pid in $W.
start_worker() {  # DB LOG ARGS...
  local db=$1 log=$2
  shift 2
  setsid "$attune" worker --db "$(pg_url "$db")" "$@" > "$log" 2>&1 &
  W=$!
}

# ---- a worker killed mid-measurement ----------------------------------------------------------
pg_admin "CREATE DATABASE kill"
cpu="gemm:M=128,N=128,K=128"
start_worker kill "$tmp/a.log" --lease 2
a=$W
pids+=("$a")
"$attune" tune "$cpu" --trials 4 --threads 1 --db "$(pg_url kill)" --workers remote > "$tmp/kill.out" 2> "$tmp/kill.err" &
search=$!
pids+=("$search")
pg_wait_for kill "SELECT count(*) FROM jobs WHERE state = 'claimed'"
kill -9 -- "-$a"
held=$(pg_query kill "SELECT count(*) FROM jobs WHERE state = 'claimed'")
start_worker kill "$tmp/b.log" --lease 2 --exit-when-idle 8
b=$W
pids+=("$b")
wait "$search" || {
  rc=$?
  echo "queue_faults: the search whose worker was killed exited $rc; its stdout, stderr, then workers a and b:" >&2
  cat "$tmp/kill.out" "$tmp/kill.err" "$tmp/a.log" "$tmp/b.log" >&2
  exit 1
}
wait "$b"
pids=()
pg_check_exactly_once kill
[ "$(pg_query kill "SELECT count(*) FROM records")" -eq 4 ]
if [ "$held" -gt 0 ]; then
  # The job the killed worker held was taken again after its lease expired.
  [ "$(pg_query kill "SELECT count(*) FROM jobs WHERE attempts >= 2")" -ge 1 ] ||
    { pg_query kill "SELECT id, attempts FROM jobs" >&2; exit 1; }
fi

# ---- the search side killed and resumed -------------------------------------------------------
pg_admin "CREATE DATABASE search"
surl=$(pg_url search)
"$attune" tune "$vta" --target vta --trials 16 --db "$surl" --workers remote > /dev/null 2>&1 &
search=$!
pids+=("$search")
pg_wait_for search "SELECT count(*) FROM jobs"
kill -9 "$search"
wait "$search" 2> /dev/null || true
for i in 1 2; do
  start_worker search "$tmp/s$i.log" --device-key vta --lease 2 --exit-when-idle 8
  w=$W
  pids+=("$w")
done
"$attune" tune "$vta" --target vta --trials 16 --db "$surl" --workers remote > /dev/null 2> "$tmp/resume.err" ||
  { cat "$tmp/resume.err" >&2; exit 1; }
for p in "${pids[@]:1}"; do wait "$p"; done
pids=()
pg_check_exactly_once search
[ "$(pg_query search "SELECT count(*) FROM records")" -eq 16 ]

# ---- the server restarted under load ----------------------------------------------------------
pg_admin "CREATE DATABASE restart"
rurl=$(pg_url restart)
"$attune" tune "$vta" --target vta --trials 60 --db "$rurl" --workers remote > /dev/null 2>&1 &
search=$!
# Workers start once there are jobs: an idle worker stops after --exit-when-idle.
pg_wait_for restart "SELECT count(*) FROM jobs"
for i in 1 2; do
  start_worker restart "$tmp/r$i.log" --device-key vta --lease 3 --exit-when-idle 6
  w=$W
  pids+=("$w")
done
# Both workers connected before the restart: a worker whose first connection meets a server that
# is shutting down stops with a one-line error by design (a wrong URL must not spin), and on a
# loaded machine one worker alone could finish the five jobs before the other had started.
for i in 1 2; do
  for _ in $(seq 600); do grep -q "^worker: serving" "$tmp/r$i.log" && break; sleep 0.1; done
done
pg_wait_for restart "SELECT count(*) FROM jobs WHERE state = 'done' HAVING count(*) >= 5"
pg_restart
# The search side lost its connection too (it stops with a one-line error): running the
# command again resumes it, with a worker for what it then enqueues.
if ! wait "$search"; then
  start_worker restart "$tmp/r3.log" --device-key vta --lease 3 --exit-when-idle 15
  pids+=("$W")
  "$attune" tune "$vta" --target vta --trials 60 --db "$rurl" --workers remote > /dev/null 2> "$tmp/r.err" ||
    { cat "$tmp/r.err" >&2; exit 1; }
fi
for p in "${pids[@]}"; do wait "$p" || { cat "$tmp"/r*.log >&2; exit 1; }; done
pids=()
pg_check_exactly_once restart
[ "$(pg_query restart "SELECT count(*) FROM records")" -eq 60 ]
grep -q "reconnected" "$tmp/r1.log" "$tmp/r2.log" || { cat "$tmp"/r*.log >&2; exit 1; }

# ---- SIGTERM: the job in hand is finished, then a clean exit ----------------------------------
# A kernel cache of its own: with the first phase's cache, its kernels are already compiled, a
# job takes milliseconds and both can be done between two polls for a 'claimed' one.
export ATTUNE_CACHE_DIR="$tmp/cache-term"
pg_admin "CREATE DATABASE term"
start_worker term "$tmp/t.log" --lease 5
t=$W
pids+=("$t")
"$attune" tune "$cpu" --trials 2 --threads 1 --db "$(pg_url term)" --workers remote > /dev/null 2> "$tmp/term.err" &
search=$!
pg_wait_for term "SELECT count(*) FROM jobs WHERE state = 'claimed'"
kill -TERM "$t"
rc=0
wait "$t" || rc=$?
[ "$rc" -eq 0 ] || { echo "worker exited $rc after SIGTERM" >&2; cat "$tmp/t.log" >&2; exit 1; }
grep -q "^worker: 1 jobs recorded" "$tmp/t.log" || { cat "$tmp/t.log" >&2; exit 1; }
[ "$(pg_query term "SELECT count(*) FROM jobs WHERE state = 'claimed'")" -eq 0 ]
start_worker term "$tmp/t2.log" --lease 5 --exit-when-idle 3
t=$W
pids=("$t" "$search")
wait "$search"
wait "$t"
pids=()
pg_check_exactly_once term
echo "queue faults test passed"
