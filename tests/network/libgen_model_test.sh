#!/usr/bin/env bash
# `attune libgen --model` on the small ResNet: the emitted library (header, kernels, model steps,
# weights file, CMake package) builds with CMake, a C program calling tinynet_open/tinynet_infer
# gets PyTorch's output for the same input (1e-4), a damaged weights file is refused, and
# libgen refuses to write over the output again without --force.
#   libgen_model_test.sh ATTUNE SOURCE_DIR
set -euo pipefail
attune=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$src/scripts/export_models.py" --out "$work" --models resnet_tiny 2>/dev/null
"$attune" libgen --model "$work/resnet_tiny.onnx" --out "$work/lib" --name tinynet
cmake -S "$work/lib" -B "$work/lib/build" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$work/lib/build" -j 2 > /dev/null
cat > "$work/driver.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "tinynet.h"
int main(int argc, char** argv) {
  static float in[1 * 3 * 32 * 32], out[10];
  FILE* f = fopen(argv[2], "rb");
  if (!f || fread(in, sizeof in, 1, f) != 1) return 2;
  fclose(f);
  tinynet_model* m = tinynet_open(argv[1]);
  if (!m) { perror("tinynet_open"); return 3; }
  const float* inputs[] = {in};
  float* outputs[] = {out};
  if (tinynet_infer(m, inputs, outputs) != 0) return 4;
  tinynet_close(m);
  f = fopen(argv[3], "wb");
  fwrite(out, sizeof out, 1, f);
  fclose(f);
  return 0;
}
C
cc -O2 -I "$work/lib/include" "$work/driver.c" "$work/lib/build/libtinynet.a" -fopenmp -lm -o "$work/driver"
/usr/bin/python3 -c "import numpy as np, sys; np.load(sys.argv[1]).astype('<f4').tofile(sys.argv[2])" \
  "$work/resnet_tiny.input.npy" "$work/in.raw"
"$work/driver" "$work/lib/tinynet.weights" "$work/in.raw" "$work/out.raw"
/usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[2], np.fromfile(sys.argv[1], '<f4').reshape(1, 10))" \
  "$work/out.raw" "$work/out.npy"
/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out.npy" "$work/resnet_tiny.torch.npy" 1e-4
# A weights file that is not this model's is refused.
head -c 100 "$work/lib/tinynet.weights" > "$work/bad.weights"
if "$work/driver" "$work/bad.weights" "$work/in.raw" "$work/out.raw" 2>/dev/null; then echo "bad weights accepted"; exit 1; fi
# The output directory is libgen's own now: again only with --force.
if "$attune" libgen --model "$work/resnet_tiny.onnx" --out "$work/lib" --name tinynet 2>/dev/null; then
  echo "overwrote without --force"; exit 1
fi
"$attune" libgen --model "$work/resnet_tiny.onnx" --out "$work/lib" --name tinynet --force > /dev/null
