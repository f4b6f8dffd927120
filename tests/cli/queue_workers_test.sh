#!/usr/bin/env bash
# Distributed measurement on PostgreSQL: `attune tune --workers remote` enqueues, three
# `attune worker`s measure one task at once, and every job ends as exactly one record; a worker
# under the documented database grants; `tune-model --workers remote`. A worker
# with a device key nobody asked for idles; bad connection strings and a refused password are
# one-line errors that never show the password.
set -euo pipefail
attune=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib/pg_server.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  pg_cleanup
  rm -rf "$tmp"
}
trap cleanup EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
pg_start
# Runner directories a SIGKILLed process leaves (attune-run-*) land in $tmp, removed at exit.
export TMPDIR="$tmp/tmp"
mkdir -p "$TMPDIR"
pg_admin "CREATE DATABASE q"
url=$(pg_url q)
spec="gemm:M=16,N=64,K=64,dtype=int8"

"$attune" tune "$spec" --target vta --trials 30 --db "$url" --workers remote --json > "$tmp/tune.json" 2> "$tmp/tune.err" &
search=$!
pids+=($search)
# Workers start once there are jobs: an idle worker stops after --exit-when-idle.
pg_wait_for q "SELECT count(*) FROM jobs"
for i in 1 2 3; do
  "$attune" worker --db "$url" --device-key vta --lease 5 --exit-when-idle 3 > "$tmp/w$i.log" 2>&1 &
  pids+=($!)
done
"$attune" worker --db "$url" --device-key riscv-nobody --exit-when-idle 3 > "$tmp/idle.log" 2>&1 &
pids+=($!)
wait "$search" || { cat "$tmp/tune.err" "$tmp"/w*.log >&2; exit 1; }
for p in "${pids[@]:1}"; do wait "$p" || { cat "$tmp"/w*.log "$tmp/idle.log" >&2; exit 1; }; done
pids=()
grep -q '"trials":30' "$tmp/tune.json" || { cat "$tmp/tune.json" >&2; exit 1; }
pg_check_exactly_once q
[ "$(pg_query q "SELECT count(*) FROM jobs")" -eq 30 ]
# The three workers shared the jobs (records name no worker; their logs do).
recorded=0
for i in 1 2 3; do
  n=$(grep -c "): [a-z_]*, record [0-9]*$" "$tmp/w$i.log" || true)
  recorded=$((recorded + n))
done
[ "$recorded" -eq 30 ] || { cat "$tmp"/w*.log >&2; exit 1; }
grep -q "^worker: 0 jobs recorded, 0 released" "$tmp/idle.log" || { cat "$tmp/idle.log" >&2; exit 1; }
# `best` reads the shared database as it reads a file.
"$attune" best "$spec" --target vta --db "$url" --json | grep -q '"status":"ok"'

# A worker under the grants docs/shared-database.md gives workers: it records its jobs, and
# its role can neither delete records nor change the schema.
pg_query q "CREATE ROLE attune_worker LOGIN;
  GRANT SELECT ON meta, tasks, records, jobs, claims TO attune_worker;
  GRANT INSERT ON records TO attune_worker;
  GRANT UPDATE (state, lease_owner, lease_until, attempts, record_id) ON jobs TO attune_worker;
  GRANT DELETE ON claims TO attune_worker;
  ALTER TABLE jobs ENABLE ROW LEVEL SECURITY;
  CREATE POLICY jobs_read ON jobs FOR SELECT TO attune_worker USING (true);
  CREATE POLICY jobs_own ON jobs FOR UPDATE TO attune_worker
    USING (state = 'queued'
           OR starts_with(lease_owner, 'worker/' || current_user || '/')
           OR (state = 'claimed' AND lease_until < CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)))
    WITH CHECK (starts_with(lease_owner, 'worker/' || current_user || '/')
                OR (state = 'queued' AND lease_owner = '' AND lease_until = 0))" > /dev/null
worker_url="postgresql://attune_worker@/q?host=$PG_DIR&port=5432"
"$attune" tune "$spec" --target vta --trials 40 --db "$url" --workers remote > /dev/null 2> "$tmp/tune2.err" &
search=$!
pids+=($search)
pg_wait_for q "SELECT count(*) FROM jobs HAVING count(*) > 30"
"$attune" worker --db "$worker_url" --device-key vta --exit-when-idle 3 > "$tmp/role.log" 2>&1 &
pids+=($!)
wait "$search" || { cat "$tmp/tune2.err" "$tmp/role.log" >&2; exit 1; }
wait "${pids[1]}" || { cat "$tmp/role.log" >&2; exit 1; }
pids=()
grep -q "^worker: 10 jobs recorded" "$tmp/role.log" || { cat "$tmp/role.log" >&2; exit 1; }
pg_check_exactly_once q
if pg_query_as attune_worker q "DELETE FROM records" 2> /dev/null; then echo "a worker deleted records" >&2; exit 1; fi
if pg_query_as attune_worker q "DROP TABLE jobs" 2> /dev/null; then echo "a worker dropped a table" >&2; exit 1; fi
if pg_query_as attune_worker q "UPDATE records SET median_s = 0" 2> /dev/null; then
  echo "a worker changed a record" >&2
  exit 1
fi
# Its own jobs only (the row-level policy): the role's jobs name it; it cannot put back in the
# queue a job another role ended, nor take one whose lease another role holds.
[ "$(pg_query q "SELECT count(*) FROM jobs WHERE lease_owner LIKE 'worker/attune_worker/%'")" -eq 10 ]
updated() {  # SQL as the worker role: how many rows its UPDATE changed
  pg_query_as attune_worker q "WITH u AS ($1 RETURNING 1) SELECT count(*) FROM u"
}
[ "$(updated "UPDATE jobs SET state = 'queued', lease_owner = '', lease_until = 0 WHERE lease_owner LIKE 'worker/attune/%'")" -eq 0 ] ||
  { echo "a worker requeued another role's job" >&2; exit 1; }
held=$(pg_query q "UPDATE jobs SET state = 'claimed', lease_owner = 'worker/attune/elsewhere/1', lease_until = 9e15
  WHERE id = (SELECT min(id) FROM jobs) RETURNING id")
[ "$(updated "UPDATE jobs SET lease_owner = 'worker/attune_worker/me/1' WHERE id = $held")" -eq 0 ] ||
  { echo "a worker took a job another role holds" >&2; exit 1; }
pg_query q "UPDATE jobs SET state = 'done', lease_owner = 'worker/attune/elsewhere/1' WHERE id = $held" > /dev/null
[ "$(updated "UPDATE jobs SET lease_until = 0 WHERE lease_owner LIKE 'worker/attune_worker/%'")" -eq 10 ] ||
  { echo "a worker could not update its own jobs" >&2; exit 1; }

# tune-model --workers remote: the model's tasks measured by a worker (CPU jobs).
pg_admin "CREATE DATABASE model"
"$attune" tune-model "$here/../../fuzz/corpus/onnx_import/matmul_vector_rhs.onnx" --db "$(pg_url model)" \
  --time 5s --threads 1 --round-trials 4 --workers remote > "$tmp/tm.out" 2>&1 &
search=$!
pids+=($search)
pg_wait_for model "SELECT count(*) FROM jobs" 2> /dev/null
"$attune" worker --db "$(pg_url model)" --exit-when-idle 4 > "$tmp/model.log" 2>&1 &
pids+=($!)
wait "$search" || { cat "$tmp/tm.out" >&2; exit 1; }
wait "${pids[1]}" || { cat "$tmp/model.log" >&2; exit 1; }
pids=()
grep -q "1/1 tasks tuned" "$tmp/tm.out" || { cat "$tmp/tm.out" >&2; exit 1; }
pg_check_exactly_once model
[ "$(pg_query model "SELECT count(*) FROM records WHERE status = 'ok'")" -ge 1 ]

# One-line errors; the password is never printed.
expect_one_line_error() {  # PATTERN CMD...
  local pattern=$1
  shift
  if "$@" > "$tmp/out" 2> "$tmp/err"; then echo "succeeded: $*" >&2; exit 1; fi
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || { cat "$tmp/err" >&2; exit 1; }
  grep -q -- "$pattern" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
  if grep -q hunter2 "$tmp/err" "$tmp/out"; then echo "printed the password: $*" >&2; exit 1; fi
}
expect_one_line_error "invalid connection string" "$attune" worker --db "postgresql://u@/q?bogus_option=1"
expect_one_line_error "a password in the URL" "$attune" worker --db "postgresql://u:hunter2@/q?host=$PG_DIR"
expect_one_line_error "cannot connect: .*No such file" "$attune" worker --db "postgresql://u@/q?host=$tmp/nowhere"
pg_admin "CREATE ROLE pwuser LOGIN PASSWORD 'right'"
sed -i '1i local all pwuser scram-sha-256' "$PG_DIR/data/pg_hba.conf"
pg_restart
PGPASSWORD=hunter2 expect_one_line_error "cannot connect: .*password authentication failed" \
  "$attune" worker --db "postgresql://pwuser@/q?host=$PG_DIR&port=5432"

# A worker launched while its server shuts down waits for it, through the restart, and serves
# (a server that is not there at all is an error at once, above). A smart shutdown waits for the
# session that pg_sleep holds, rejecting new connections meanwhile.
pg_query q "SELECT pg_sleep(5)" > /dev/null &
hold=$!
pids+=("$hold")
pg_wait_for q "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'"
pg_as_owner "$(pg_bin pg_ctl)" -D "$PG_DIR/data" -m smart -w stop > /dev/null &
stopper=$!
pids+=("$stopper")
for _ in $(seq 100); do
  pg_query q "SELECT 1" > /dev/null 2>&1 || break
  sleep 0.05
done
"$attune" worker --db "$url" --device-key vta --exit-when-idle 2 > "$tmp/late.log" 2>&1 &
late=$!
pids+=("$late")
wait "$hold" || true
wait "$stopper"
pg_restart_only
wait "$late" || { echo "a worker that met a shutting-down server failed" >&2; cat "$tmp/late.log" >&2; exit 1; }
pids=()
grep -q "cannot connect yet: .*shutting down.*; retrying" "$tmp/late.log" || { cat "$tmp/late.log" >&2; exit 1; }
grep -q "^worker: serving" "$tmp/late.log" || { cat "$tmp/late.log" >&2; exit 1; }
echo "queue workers test passed"
