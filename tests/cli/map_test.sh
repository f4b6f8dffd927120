#!/usr/bin/env bash
# `attune map`: AMOS mapping counts on the H200's 16x16x16 wmma (the published example).
set -euo pipefail
attune=$1

conv='conv2d:N=1,H=56,W=56,C=64,K=64,R=3,S=3,stride=1,pad=1,layout=NCHW,dtype=f16'
out=$("$attune" map "$conv" --target cuda/nvidia-h200 --intrinsic wmma_16x16x16_f16f32 --json)
[ "$(grep -c '' <<<"$out")" = 1 ] || { echo "--json is not one line"; exit 1; }
# Items carry "one_to_one":true; only the report's own counts are numbers.
[ "$(grep -o '"one_to_one":[0-9][0-9]*' <<<"$out")" = '"one_to_one":7' ] || {
  echo "one_to_one: $(grep -o '"one_to_one":[0-9][0-9]*' <<<"$out")"; exit 1; }
[ "$(grep -o '"mappings":[0-9][0-9]*' <<<"$out")" = '"mappings":35' ] || {
  echo "mappings: $(grep -o '"mappings":[0-9][0-9]*' <<<"$out")"; exit 1; }

gemm='gemm:M=256,N=256,K=256,dtype=f16'
out=$("$attune" map "$gemm" --target cuda/nvidia-h200 --intrinsic wmma_16x16x16_f16f32 --json)
[ "$(grep -o '"one_to_one":[0-9][0-9]*' <<<"$out")" = '"one_to_one":1' ]
[ "$(grep -o '"mappings":[0-9][0-9]*' <<<"$out")" = '"mappings":1' ]

# Every intrinsic of the target: one object listing them all.
out=$("$attune" map "$gemm" --target cuda --json)
grep -qo '"target":"nvidia-h200"' <<<"$out"
grep -qo '"intrinsics":\[' <<<"$out"
[ "$(grep -o '"mappings":[0-9][0-9]*' <<<"$out" | wc -l)" -ge 2 ]

# The table for people names the intrinsic and its counts.
out=$("$attune" map "$conv" --target cuda --intrinsic wmma_16x16x16_f16f32)
grep -q 'wmma_16x16x16_f16f32: 7 one-to-one matches, 35 mappings' <<<"$out"
echo "ok"
