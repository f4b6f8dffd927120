#!/usr/bin/env bash
# `attune ops` lists every op template with its parameters; --help and --version work.
set -euo pipefail
attune=$1

out=$("$attune" ops)
for t in gemm batch_matmul gemv conv1d conv2d depthwise_conv2d conv3d conv2d_transpose conv2d_capsule; do
  grep -qE "^$t " <<<"$out" || { echo "template $t missing from 'attune ops':"; echo "$out"; exit 1; }
done
# Parameters with defaults and required ones are both shown.
grep -qE '^ +M +required' <<<"$out"
grep -qE '^ +layout ' <<<"$out"

help=$("$attune" --help)
for c in ops lower verify map tune best history export; do
  grep -qE "^ +$c " <<<"$help" || { echo "command $c missing from --help"; echo "$help"; exit 1; }
done
"$attune" --version | grep -qE '^attune [0-9]+\.[0-9]+\.[0-9]+$'
echo "ok"
