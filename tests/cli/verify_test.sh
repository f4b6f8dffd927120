#!/usr/bin/env bash
# `attune verify`: random legal traces of small ops from several families all match the
# reference evaluator.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"  # a private build cache: no state shared with other runs

for spec in \
    gemm:M=12,N=16,K=9 \
    gemm:M=6,N=10,K=12,dtype=int8 \
    conv2d:N=1,H=6,W=6,C=3,K=8,R=3,S=3,stride=1,pad=1,layout=NCHW \
    depthwise_conv2d:N=1,H=7,W=7,C=8,R=3,S=3,stride=2,pad=1,layout=NHWC; do
  out=$("$attune" verify "$spec" --random-traces 5 --seed 7 --threads 1 2>"$tmp/progress") || {
    echo "verify failed for $spec:"; echo "$out"; exit 1; }
  [ "$(tail -n 1 <<<"$out")" = "5 passed, 0 failed" ] || { echo "$spec: $out"; exit 1; }
  grep -q 'verify: 5/5' "$tmp/progress"  # progress goes to stderr
done
echo "ok"
