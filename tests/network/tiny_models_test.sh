#!/usr/bin/env bash
# The small test networks (scripts/export_models.py: resnet_tiny, mobilenet_tiny, bert_tiny,
# exported from PyTorch with random weights) imported and run by `attune run-model` with
# default kernels give what PyTorch computed (the independent oracle) and what ONNX Runtime
# computes, within 1e-4 relative; `attune import` lists their tasks; --max-memory refuses.
#   tiny_models_test.sh ATTUNE SOURCE_DIR
set -euo pipefail
attune=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$src/scripts/install-ort.sh"
/usr/bin/python3 "$src/scripts/export_models.py" --out "$work" --models resnet_tiny,mobilenet_tiny,bert_tiny 2>/dev/null
for m in resnet_tiny mobilenet_tiny bert_tiny; do
  "$attune" import "$work/$m.onnx" > "$work/$m.import.txt"
  grep -q "^tasks: " "$work/$m.import.txt"
  "$attune" run-model "$work/$m.onnx" --input "input=$work/$m.input.npy" --output "$work/out_$m" --threads 2 2> "$work/$m.err"
  grep -q "is untuned: default schedule" "$work/$m.err"  # says so for every untuned task
  node "$src/bench/models/ort_run.js" "$work/$m.onnx" --input "input=$work/$m.input.npy" --output "$work/ort_$m" > /dev/null
  echo "$m vs PyTorch:      $(/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out_$m/output.npy" "$work/$m.torch.npy" 1e-4)"
  echo "$m vs ONNX Runtime: $(/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out_$m/output.npy" "$work/ort_$m/output.npy" 1e-4)"
done
# A limit below what the weights and buffers take is refused up front, with both numbers.
if "$attune" run-model "$work/resnet_tiny.onnx" --input "input=$work/resnet_tiny.input.npy" --output "$work/o" \
    --max-memory 64k 2> "$work/mem.err"; then echo "accepted a model over --max-memory"; exit 1; fi
grep -q "more than the limit of 64.0 KiB" "$work/mem.err"
