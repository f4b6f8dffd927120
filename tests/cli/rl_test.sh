#!/usr/bin/env bash
# attune train-policy and attune tune --strategy rl end to end on tiny ops: a policy is trained
# (cost-model reward, nothing timed), saved, loaded by tune, and every attempt is recorded,
# verified, and resumed without re-measuring.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
cat > "$tmp/w.txt" <<'W'
# name   family  params
g1   gemm    M=16 N=32 K=16
c1   conv2d  N=1 H=6 W=6 C=4 K=8 R=3 S=3 stride=1 pad=1 layout=NHWC
d1   depthwise_conv2d N=1 H=6 W=6 C=8 R=3 S=3 stride=1 pad=1 layout=NHWC
W

out=$("$attune" train-policy --workloads "$tmp/w.txt" --families gemm,conv2d --episodes 20 --max-steps 6 \
        --out "$tmp/p.pt" 2>&1)
echo "$out" | grep -q "train-policy: 2 ops: g1 c1"
echo "$out" | grep -q "episodes  20"
test -s "$tmp/p.pt"

db="$tmp/t.db"
spec="gemm:M=16,N=24,K=8"
out=$("$attune" tune "$spec" --strategy rl --policy "$tmp/p.pt" --trials 5 --db "$db" --threads 1 2>&1)
echo "$out" | grep -q "5 this run, 0 resumed"
"$attune" best "$spec" --db "$db" --json | grep -q '"status":"ok"'
"$attune" export --jsonl --db "$db" > "$tmp/all.jsonl"
test "$(grep -c '"strategy":"rl"' "$tmp/all.jsonl")" -eq 5
grep -q '"space":"rl-v2"' "$tmp/all.jsonl"
# Resume: 3 more, none measured twice.
out=$("$attune" tune "$spec" --strategy rl --policy "$tmp/p.pt" --trials 8 --db "$db" --threads 1 2>&1)
echo "$out" | grep -q "3 this run, 5 resumed"
# Untrained (no --policy) works too; a file that is not a policy is a one-line error.
"$attune" tune "gemm:M=8,N=8,K=8" --strategy rl --trials 2 --db "$db" --threads 1 > /dev/null 2>&1
echo hello > "$tmp/bad.pt"
if "$attune" tune "$spec" --strategy rl --policy "$tmp/bad.pt" --trials 9 --db "$db" 2> "$tmp/err.txt"; then
  echo "expected failure"; exit 1
fi
grep -q "bad.pt" "$tmp/err.txt"
echo "rl test passed"
