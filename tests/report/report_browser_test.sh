#!/usr/bin/env bash
# The report as a person sees it: a small tuning run (two strategies on one task, ml2 on
# another) and the bench results of tests/report/fixtures/ (written by attune-bench and
# attune-tuning-efficiency --json-out, and by run-model --profile-json before and after a
# 40-second tune-model of scripts/export_models.py's resnet_tiny), rendered by `attune report` and opened in headless
# Chromium (Debian's chromium, which scripts/install-deps.sh installs for this test). It takes a
# screenshot, kept as an artefact in ARTEFACTS (the build tree), and reads back what the page's
# own script found once the page was laid out (<pre id="selfcheck">): every chart has a size and
# something drawn in it, every task has a curve, no script error. Then it renders a database of
# 10,000 more records and prints how long the browser took to open it (not asserted: tests do not
# time things; this figure is the one the issue asked to see).
# Usage: report_browser_test.sh ATTUNE ARTEFACTS
set -euo pipefail
attune=$1
art=$2
here=$(cd "$(dirname "$0")" && pwd)
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ] || ! command -v sqlite3 >/dev/null; then
  echo "SKIP: needs chromium and sqlite3 (scripts/install-deps.sh installs both for the tests)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
mkdir -p "$art"
db="$tmp/small.db"

"$attune" tune "gemm:M=16,N=24,K=8" --trials 8 --db "$db" --threads 1 --seed 1 > /dev/null 2>&1
"$attune" tune "gemm:M=16,N=24,K=8" --trials 14 --db "$db" --threads 1 --seed 2 --strategy random > /dev/null 2>&1
"$attune" tune "gemm:M=24,N=32,K=16" --trials 14 --db "$db" --threads 1 --seed 3 --strategy ml2 > /dev/null 2>&1
"$attune" report --db "$db" --bench "$here/fixtures/attune-bench.jsonl" \
    --bench "$here/fixtures/tuning-efficiency.jsonl" --bench "$here/fixtures/model-profile-before.jsonl" \
    --bench "$here/fixtures/model-profile-after.jsonl" --out "$art/report.html"

# One browser profile per run, so parallel tests and the user's own profile stay apart.
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
      --user-data-dir="$tmp/profile" "$@" 2>> "$tmp/chromium.log"
}
selfcheck() {  # the JSON the page's script wrote, from the DOM as the browser has it
  chrome --dump-dom "file://$1" | grep -o 'SELFCHECK {.*}' || { cat "$tmp/chromium.log" >&2; return 1; }
}
field() { echo "$1" | grep -o "\"$2\":[0-9]*" | cut -d: -f2; }

chrome --screenshot="$art/report.png" --window-size=1240,2000 "file://$art/report.html" > /dev/null
test "$(head -c 8 "$art/report.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a"  # a PNG
check=$(selfcheck "$art/report.html")
echo "$check"
charts=$(field "$check" charts)
[ "$charts" -ge 12 ]                                      # 2 tasks x (3 curves + statuses), ml2, roofline, bench
[ "$(field "$check" charts_drawn)" -eq "$charts" ]        # each has a size and something drawn
[ "$(field "$check" tasks)" -eq 2 ]
[ "$(field "$check" tasks_with_curve)" -eq 2 ]
echo "$check" | grep -q '"errors":\[\]'
grep -q 'data-chart="roofline"' "$art/report.html"
grep -q 'data-chart="bench"' "$art/report.html"
grep -q 'data-chart="arms"' "$art/report.html"       # evolutionary and random search mappings too
grep -q 'data-chart="ml2-a"' "$art/report.html"
grep -q 'data-chart="model-profile"' "$art/report.html"
grep -q 'class="confusion"' "$art/report.html"

# 10,000 records more: copies of a measured record with other hashes, statuses, times and strategies.
big="$tmp/big.db"
cp "$db" "$big"
sqlite3 "$big" "
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO records(task_id, trace, trace_hash, status, error, times_s, median_s, max_rel_error, compile_s,
                    features, hidden_features, compiler, flags, strategy, seed, trial, created_at)
SELECT r.task_id, r.trace, 'generated-' || n.i,
       CASE WHEN n.i % 10 = 3 THEN 'compile_error' WHEN n.i % 17 = 5 THEN 'timeout' ELSE 'ok' END,
       CASE WHEN n.i % 10 = 3 THEN 'cc: error <' || n.i || '>' ELSE '' END,
       r.times_s, r.median_s * (1 + (n.i * 7919 % 1000) / 300.0), r.max_rel_error, r.compile_s, r.features,
       r.hidden_features, r.compiler, r.flags, 'generated-' || (n.i % 3), 0, 1000 + n.i,
       strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || n.i || ' seconds')
FROM n, (SELECT * FROM records WHERE status = 'ok' AND strategy != 'confirm' ORDER BY id LIMIT 1) r;"
"$attune" report --db "$big" --out "$art/report-10k.html"
check=$(selfcheck "$art/report-10k.html")
[ "$(field "$check" tasks_with_curve)" -eq 2 ]
echo "$check" | grep -q '"errors":\[\]'
echo "10,000-record report ($(($(stat -c %s "$art/report-10k.html") / 1024)) KiB): opened in $(field "$check" load_ms) ms in headless Chromium"
echo "report browser test passed; screenshot: $art/report.png"
