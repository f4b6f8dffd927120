#!/usr/bin/env bash
# `attune db copy` moves tuning records between an SQLite file and a PostgreSQL database, both
# ways: `attune best` reads the same result from each, exports match, and a second copy writes
# nothing twice. A postgresql:// URL works wherever --db FILE does.
set -euo pipefail
attune=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib/pg_server.sh"
tmp=$(mktemp -d)
trap 'pg_cleanup; rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
pg_start
pg_admin "CREATE DATABASE shared"
pg_admin "CREATE DATABASE back"
url=$(pg_url shared)
spec="gemm:M=16,N=16,K=8"

"$attune" tune "$spec" --trials 6 --db "$tmp/a.db" --threads 1 --seed 3 > /dev/null
"$attune" db copy "$tmp/a.db" "$url" > "$tmp/copy1.out"
grep -q "^copied [0-9]* records of 1 tasks and 0 cost models from $tmp/a.db to $url$" "$tmp/copy1.out" ||
  { cat "$tmp/copy1.out" >&2; exit 1; }
"$attune" db copy "$tmp/a.db" "$url" > "$tmp/copy2.out"
grep -q "^copied 0 records .*(.* records and 0 models were there already)$" "$tmp/copy2.out" ||
  { cat "$tmp/copy2.out" >&2; exit 1; }

# The same best on both; the same records, field for field (ids included: DST was empty).
"$attune" best "$spec" --db "$tmp/a.db" --json | sed 's/"c_path":"[^"]*"//' > "$tmp/best_sqlite.json"
"$attune" best "$spec" --db "$url" --json | sed 's/"c_path":"[^"]*"//' > "$tmp/best_pg.json"
cmp "$tmp/best_sqlite.json" "$tmp/best_pg.json"
"$attune" export --jsonl --db "$tmp/a.db" > "$tmp/a.jsonl"
"$attune" export --jsonl --db "$url" > "$tmp/pg.jsonl"
cmp "$tmp/a.jsonl" "$tmp/pg.jsonl"

# Tuning on PostgreSQL resumes where the copied records end, then back to a new SQLite file.
"$attune" tune "$spec" --trials 10 --db "$url" --threads 1 --seed 3 > /dev/null
"$attune" db copy "$url" "$tmp/b.db" > /dev/null
"$attune" export --jsonl --db "$url" > "$tmp/pg2.jsonl"
"$attune" export --jsonl --db "$tmp/b.db" > "$tmp/b.jsonl"
cmp "$tmp/pg2.jsonl" "$tmp/b.jsonl"
[ "$(grep -vc '"strategy":"confirm"' "$tmp/b.jsonl")" -eq 10 ]

# One-line errors naming the URL; the source is never created.
if "$attune" db copy "$(pg_url missing)" "$tmp/c.db" 2> "$tmp/err"; then exit 1; fi
[ "$(wc -l < "$tmp/err")" -eq 1 ] || { cat "$tmp/err" >&2; exit 1; }
grep -q "postgresql://attune@/missing?host=$PG_DIR&port=5432: cannot connect: .*does not exist" "$tmp/err" ||
  { cat "$tmp/err" >&2; exit 1; }
if "$attune" best "$spec" --db "postgresql://attune:hunter2@/shared?host=$PG_DIR&port=5432" 2> "$tmp/err"; then
  exit 1
fi
if grep -q hunter2 "$tmp/err"; then echo "the password was printed" >&2; exit 1; fi
[ ! -e "$tmp/c.db" ]
echo "db copy test passed"
