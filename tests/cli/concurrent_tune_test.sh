#!/usr/bin/env bash
# Two attune tune runs of one op on one database at the same time share its budget through
# the database's claims: together they record the budget's trials once, never measure a trace
# twice and never give two records one trial number.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
db="$tmp/t.db"
spec="gemm:M=24,N=16,K=8"

# Different seeds, so that the two runs' proposals differ and overlap.
"$attune" tune "$spec" --trials 16 --db "$db" --threads 1 --seed 1 > "$tmp/a.out" 2> "$tmp/a.err" &
a=$!
"$attune" tune "$spec" --trials 16 --db "$db" --threads 1 --seed 2 > "$tmp/b.out" 2> "$tmp/b.err" &
b=$!
rc_a=0 rc_b=0
wait "$a" || rc_a=$?
wait "$b" || rc_b=$?
[ "$rc_a" -eq 0 ] && [ "$rc_b" -eq 0 ] || { cat "$tmp"/*.out "$tmp"/*.err >&2; exit 1; }

"$attune" export --jsonl --db "$db" > "$tmp/all.jsonl"
trials=$(grep -vc '"strategy":"confirm"' "$tmp/all.jsonl")
[ "$trials" -eq 16 ] || { echo "expected 16 trials in all, got $trials" >&2; exit 1; }
# No trace measured twice (confirmations re-measure on purpose).
traces=$(grep -v '"strategy":"confirm"' "$tmp/all.jsonl" | grep -o '"trace_hash":"[^"]*"' | sort -u | wc -l)
[ "$traces" -eq 16 ] || { echo "expected 16 distinct traces, got $traces" >&2; exit 1; }
# No trial number twice, confirmations included.
records=$(grep -c . "$tmp/all.jsonl")
numbers=$(grep -o '"trial":[0-9]*' "$tmp/all.jsonl" | sort -u | wc -l)
[ "$numbers" -eq "$records" ] || { echo "$records records but $numbers trial numbers" >&2; exit 1; }
# The summary counts the task's trials, its own and the other run's: the run that ends last
# sees all 16 (the first may end while the other still has trials in flight).
grep -q "^trials    16 " "$tmp/a.out" "$tmp/b.out"
echo "concurrent tune test passed"
