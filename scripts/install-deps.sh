#!/usr/bin/env bash
# Installs the Debian packages attune needs to build, test and benchmark.
# Idempotent and fast when everything is present: it asks dpkg first and only
# calls apt-get for what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev
  libsqlite3-dev libpq-dev libgtest-dev libgmock-dev libbenchmark-dev
  libxgboost-dev libomp-dev binutils
  libtorch-dev
  libopenblas-dev libblis-dev libdnnl-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  # tests only: the private PostgreSQL servers of the shared-database tests (initdb, postgres)
  postgresql
  # tests and benches only (model export): attune itself never runs Python
  python3-torch python3-torchvision python3-onnx python3-numpy
  # tests only: the HTML report opened in a headless browser, and databases edited by hand
  chromium sqlite3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
