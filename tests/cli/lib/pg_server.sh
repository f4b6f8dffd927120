# pg_server.sh — a private PostgreSQL server for the shell tests of the shared database.
# Sourced, not run (tests/cli/lib/ is not a test). After `pg_start` (which makes PG_DIR, a new
# directory under TMPDIR of its own: the server's user must be able to reach it):
#   pg_url DB     prints postgresql://attune@/DB?host=DIR&port=5432 (the superuser, no password)
#   pg_admin SQL  runs SQL as the superuser on database postgres
#   pg_stop / pg_restart
# The server listens on a unix socket in DIR only (no TCP port, nothing shared with other
# tests), as 'nobody' when we are root (PostgreSQL refuses root). The caller's EXIT trap must
# call pg_cleanup, so the server stops even when the test fails.

pg_bin() {
  if [ -n "${ATTUNE_PG_BIN:-}" ]; then echo "$ATTUNE_PG_BIN/$1"; return; fi
  ls -d /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1
}

pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

pg_start() {
  PG_DIR=$(mktemp -d)
  if [ "$(id -u)" -eq 0 ]; then chown nobody: "$PG_DIR"; fi
  [ -x "$(pg_bin initdb)" ] || { echo "no PostgreSQL initdb (install postgresql)" >&2; return 1; }
  pg_as_owner "$(pg_bin initdb)" -D "$PG_DIR/data" -U attune -A trust -E UTF8 --locale=C --no-sync \
    --no-instructions > "$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; return 1; }
  pg_restart_only
}

pg_restart_only() {
  pg_as_owner "$(pg_bin pg_ctl)" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 30 \
    -o "-k $PG_DIR -p 5432 -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c max_connections=60" \
    start > /dev/null || { cat "$PG_DIR/server.log" >&2; return 1; }
}

pg_stop() {
  [ -n "${PG_DIR:-}" ] && [ -f "$PG_DIR/data/postmaster.pid" ] || return 0
  pg_as_owner "$(pg_bin pg_ctl)" -D "$PG_DIR/data" -m fast -w stop > /dev/null 2>&1 || true
}

pg_cleanup() {
  pg_stop
  [ -n "${PG_DIR:-}" ] && rm -rf "$PG_DIR"
}

pg_restart() {
  pg_stop
  pg_restart_only
}

pg_url() { echo "postgresql://attune@/$1?host=$PG_DIR&port=5432"; }

pg_admin() {
  pg_as_owner "$(pg_bin psql)" -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p 5432 -U attune -d postgres -c "$1" > /dev/null
}

# Prints the result of SQL on database DB, unaligned, one row a line (pg_query_as: as ROLE).
pg_query() {
  pg_query_as attune "$@"
}
pg_query_as() {
  pg_as_owner "$(pg_bin psql)" -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" -p 5432 -U "$1" -d "$2" -c "$3"
}

# Waits up to $3 seconds (default 60) until pg_query DB SQL prints something other than 0
# (a count; write conditions as counts too: "SELECT count(*) ... HAVING count(*) >= 5").
pg_wait_for() {
  local deadline=$(( $(date +%s) + ${3:-60} ))
  local v
  until v=$(pg_query "$1" "$2" 2> /dev/null) && [ -n "$v" ] && [ "$v" != "0" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { echo "timed out waiting for: $2" >&2; return 1; }
    sleep 0.1
  done
}

# The exactly-once check of a queue: every job is done, each with its own record, every record
# of the database ended a job, and no trace or trial number is recorded twice.
pg_check_exactly_once() {
  local db=$1 jobs records
  jobs=$(pg_query "$db" "SELECT count(*) FROM jobs")
  records=$(pg_query "$db" "SELECT count(*) FROM records")
  [ "$(pg_query "$db" "SELECT count(*) FROM jobs WHERE state <> 'done'")" -eq 0 ] ||
    { echo "jobs not done: $(pg_query "$db" "SELECT id, state, attempts FROM jobs WHERE state <> 'done'")" >&2; return 1; }
  [ "$jobs" -eq "$records" ] || { echo "$jobs jobs enqueued but $records records written" >&2; return 1; }
  [ "$(pg_query "$db" "SELECT count(DISTINCT record_id) FROM jobs")" -eq "$jobs" ] ||
    { echo "a record ends two jobs" >&2; return 1; }
  [ "$(pg_query "$db" "SELECT count(DISTINCT (task_id, trace_hash)) FROM records")" -eq "$records" ] ||
    { echo "a trace was recorded twice" >&2; return 1; }
  [ "$(pg_query "$db" "SELECT count(DISTINCT (task_id, trial)) FROM records")" -eq "$records" ] ||
    { echo "a trial number was given twice" >&2; return 1; }
  [ "$(pg_query "$db" "SELECT count(*) FROM claims")" -eq 0 ] || { echo "claims outlived their jobs" >&2; return 1; }
}
