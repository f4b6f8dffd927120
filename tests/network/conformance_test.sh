#!/usr/bin/env bash
# Every single-operator model of op_cases.py (the attribute forms of Conv, ConvTranspose, Gemm,
# MatMul, pooling, normalisations, reductions and elementwise ops) run by `attune run-model`
# equals what ONNX Runtime computes for the same random input (relative 1e-4 of the output's
# scale). Needs python3-onnx and ONNX Runtime (scripts/install-ort.sh, run here if missing).
#   conformance_test.sh ATTUNE SOURCE_DIR
set -euo pipefail
attune=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$src/scripts/install-ort.sh"
/usr/bin/python3 "$src/tests/network/op_cases.py" "$work/cases" > "$work/cases.txt"
failed=0
while read -r c; do
  m="$work/cases/$c.onnx"
  x="x=$work/cases/$c.input.npy"
  node "$src/bench/models/ort_run.js" "$m" --input "$x" --output "$work/ort/$c" > /dev/null
  if ! "$attune" run-model "$m" --input "$x" --output "$work/attune/$c" --threads 1 > /dev/null 2> "$work/err"; then
    echo "FAIL $c: $(cat "$work/err" | grep -v untuned | head -c 400)"
    failed=$((failed + 1))
    continue
  fi
  if r=$(/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/attune/$c/y.npy" "$work/ort/$c/y.npy" 1e-4); then
    echo "ok   $c $r"
  else
    echo "FAIL $c $r"
    failed=$((failed + 1))
  fi
done < "$work/cases.txt"
echo "conformance: $(wc -l < "$work/cases.txt") cases, $failed failed"
[ "$failed" -eq 0 ]
