#!/usr/bin/env bash
# attune tune / best / history / export end to end on tiny tasks, CPU and the VTA simulator.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
db="$tmp/t.db"
spec="gemm:M=16,N=24,K=8"

out=$("$attune" tune "$spec" --trials 6 --db "$db" --threads 1 --seed 3 2>&1)
echo "$out" | grep -q "candidates/min"
"$attune" best "$spec" --db "$db" --json > "$tmp/best.json"
grep -q '"status":"ok"' "$tmp/best.json"
grep -q '"gflops":' "$tmp/best.json"
grep -q '"trials":6' "$tmp/best.json"
c_path=$(grep -o '"c_path":"[^"]*"' "$tmp/best.json" | cut -d'"' -f4)
test -f "$c_path"
grep -q "attune_kernel" "$c_path"
# The same op as a raw spec without the template's label (or under another one) is the same task,
# and its best kernel still rebuilds to the one measured (the source names the recorded op).
printf 'tensor A[16, 8] f32\ntensor B[8, 24] f32\ntensor C[16, 24] f32\nC[m, n] += A[m, k] * B[k, n]\n' > "$tmp/gemm.spec"
(printf 'op renamed\n'; cat "$tmp/gemm.spec") > "$tmp/renamed.spec"
for s in "$tmp/gemm.spec" "$tmp/renamed.spec"; do
  "$attune" best "$s" --db "$db" > "$tmp/best.txt"
  grep -q "^C source  /" "$tmp/best.txt"
done

# Resume: 4 more trials, none re-measured but for the confirmations of the fastest traces
# (4 traces x 2 runs in the first run; in the second, only a new trace among the top 4).
out=$("$attune" tune "$spec" --trials 10 --db "$db" --threads 1 --seed 4 2>&1)
echo "$out" | grep -q "4 this run, 6 resumed"
"$attune" export --jsonl --db "$db" > "$tmp/all.jsonl"
test "$(grep -vc '"strategy":"confirm"' "$tmp/all.jsonl")" -eq 10
confirms=$(grep -c '"strategy":"confirm"' "$tmp/all.jsonl")
[ "$confirms" -ge 8 ] && [ "$confirms" -le 16 ]
test "$("$attune" history "$spec" --db "$db" | grep -vc '^#')" -eq $((10 + confirms))

# The VTA target: simulated cycles, verified best, the invalid share of its space.
"$attune" tune "gemm:M=16,N=64,K=64,dtype=int8" --target vta --trials 12 --db "$db" > "$tmp/vta.txt" 2>&1
grep -q "valid" "$tmp/vta.txt"
"$attune" best "gemm:M=16,N=64,K=64,dtype=int8" --target vta --db "$db" --json | grep -q '"status":"ok"'
"$attune" space-stats "gemm:M=16,N=64,K=64,dtype=int8" --target vta | grep -q "invalid"
echo "tune test passed"
