#!/usr/bin/env bash
# attune report on bad input: an empty database is a page that says "no data"; a database of
# another schema version, a missing or malformed bench file, a --task that matches nothing are one
# line on stderr, exit 1 and no page; names and errors from the database are escaped.
# (The page in a browser: tests/report/report_browser_test.sh.)
set -euo pipefail
attune=$1
if ! command -v sqlite3 > /dev/null; then
  echo "SKIP: needs sqlite3 (scripts/install-deps.sh installs it for the tests)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
db="$tmp/t.db"
"$attune" tune "gemm:M=8,N=16,K=8" --trials 3 --db "$db" --threads 1 > /dev/null 2>&1

# One line on stderr, exit 1, and the page was not written.
fails_with() {
  local want=$1
  shift
  if "$attune" "$@" > "$tmp/out" 2> "$tmp/err"; then echo "expected a failure: $*" >&2; exit 1; fi
  test "$(wc -l < "$tmp/err")" -eq 1
  grep -q "$want" "$tmp/err" || { echo "stderr: $(cat "$tmp/err"), wanted: $want" >&2; exit 1; }
  test ! -e "$tmp/r.html"
}

# A hostile name and error message are text on the page, never markup.
sqlite3 "$db" "UPDATE tasks SET name = '<script>alert(1)</script>';
               UPDATE records SET status = 'compile_error', error = 'cc: <img src=x onerror=alert(2)>'
               WHERE id = (SELECT MIN(id) FROM records);"
"$attune" report --db "$db" --out "$tmp/ok.html" > /dev/null
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$tmp/ok.html"
grep -q 'cc: &lt;img src=x onerror=alert(2)&gt;' "$tmp/ok.html"
# (`! grep` would not stop the script under set -e: hence the explicit exits.)
if grep -q '<script>alert' "$tmp/ok.html" || grep -q '<img' "$tmp/ok.html"; then
  echo "database text reached the page as markup" >&2
  exit 1
fi

fails_with "no such file" report --db "$db" --bench "$tmp/missing.jsonl" --out "$tmp/r.html"
echo '{"kind": "attune-bench.row"' > "$tmp/bad.jsonl"
fails_with "bad.jsonl:1: invalid JSON" report --db "$db" --bench "$tmp/bad.jsonl" --out "$tmp/r.html"
fails_with "no task of the database" report --db "$db" --task nothing_like_it --out "$tmp/r.html"
fails_with "no database at" report --db "$tmp/none.db" --out "$tmp/r.html"

other="$tmp/other.db"
cp "$db" "$other"
sqlite3 "$other" "UPDATE meta SET value = '99' WHERE key = 'schema_version'"
fails_with "unsupported schema_version 99" report --db "$other" --out "$tmp/r.html"

# No tasks: a whole page whose sections say so.
empty="$tmp/empty.db"
cp "$db" "$empty"
sqlite3 "$empty" "DELETE FROM records; DELETE FROM claims; DELETE FROM tasks;"
"$attune" report --db "$empty" --out "$tmp/empty.html" > "$tmp/out" 2> "$tmp/err"
grep -q "0 tasks" "$tmp/out"
grep -q 'no data: the database has no tuning tasks' "$tmp/empty.html"
grep -q 'no data: no bench file given' "$tmp/empty.html"
grep -q '</html>' "$tmp/empty.html"
echo "report test passed"
