#!/usr/bin/env bash
# Installs ONNX Runtime's native CPU library as npm ships it (onnxruntime-node) into .ort/ of
# the source tree: the model tests' oracle and the model bench's baseline, never a dependency of
# attune itself. --ignore-scripts: the package's install script downloads GPU binaries, which
# fails offline and is not needed for the CPU library. Idempotent; needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.ort
version=1.30.0
if [ -f "$dir/node_modules/onnxruntime-node/package.json" ]; then exit 0; fi
if ! command -v npm >/dev/null; then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm
fi
mkdir -p "$dir"
echo "install-ort: npm install --ignore-scripts onnxruntime-node@$version into $dir"
(cd "$dir" && npm install --silent --no-audit --no-fund --ignore-scripts "onnxruntime-node@$version" >/dev/null)
