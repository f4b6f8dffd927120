#!/usr/bin/env bash
# The installed package end to end: `cmake --install` this build into a temporary prefix, check
# what it holds, build examples/consumer against it with find_package(attune) and run it: tune a
# small GEMM, load the kernel, check one output. Where strace can run, also check that the
# program took the worker and the target files from the prefix, not from the build tree.
# Usage: consumer_test.sh CMAKE BUILD_DIR CONSUMER_SOURCE_DIR
set -euo pipefail
cmake=$1 build=$2 consumer=$3
tmp=$(mktemp -d)
# `cmake --install` writes its manifest into the build tree: put back what was there before.
manifest="$build/install_manifest.txt"
if [ -e "$manifest" ]; then cp "$manifest" "$tmp/manifest.saved"; fi
trap 'if [ -e "$tmp/manifest.saved" ]; then cp "$tmp/manifest.saved" "$manifest"; else rm -f "$manifest"; fi
      rm -rf "$tmp"' EXIT
unset ATTUNE_WORKER ATTUNE_TARGETS_DIR
export ATTUNE_CACHE_DIR="$tmp/cache"
prefix="$tmp/prefix"

"$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log"
lib=$(find "$prefix" -name 'libattune.so' | head -n 1)
test -n "$lib" || { echo "libattune.so not installed"; cat "$tmp/install.log"; exit 1; }
for f in include/attune/attune.hpp include/attune/attune_error.hpp bin/attune libexec/attune/attune-worker \
         share/attune/targets/x86-avx2.json share/attune/targets/vta/default.json; do
  test -e "$prefix/$f" || { echo "not installed: $f"; exit 1; }
done
find "$prefix" -name attuneConfig.cmake | grep -q . || { echo "attuneConfig.cmake not installed"; exit 1; }
find "$prefix" -name attuneConfigVersion.cmake | grep -q . || { echo "attuneConfigVersion.cmake not installed"; exit 1; }
# The public headers need nothing but the standard library and each other.
if grep -h '#include' "$prefix"/include/attune/*.hpp | grep -v -e '<[a-z_]*>' -e '"attune/attune_error.hpp"'; then
  echo "a public header includes something outside the standard library"; exit 1
fi
# The library exports the API and nothing else.
if nm -DC --defined-only "$lib" | grep -v -e 'attune::Session' -e 'attune::Kernel' -e 'attune::Model' -e 'attune::Error'; then
  echo "libattune.so exports more than the API"; exit 1
fi

"$cmake" -S "$consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }

run=("$tmp/build/consumer" "$tmp/consumer.db")
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
  strace -f -qq -e trace=execve,openat -o "$tmp/strace.log" "${run[@]}"
  grep -q "execve(\"$prefix/libexec/attune/attune-worker\"" "$tmp/strace.log" ||
    { echo "the installed worker was not used:"; grep execve "$tmp/strace.log" | head; exit 1; }
  grep -q "\"$prefix/share/attune/targets/x86-avx" "$tmp/strace.log" ||
    { echo "the installed target files were not used"; exit 1; }
  if grep -v "$prefix" "$tmp/strace.log" | grep -q -e 'attune-worker"' -e '/targets/x86-avx'; then
    echo "files outside the prefix were used:"; grep -v "$prefix" "$tmp/strace.log" | grep -e attune-worker -e /targets/; exit 1
  fi
else
  echo "(strace unavailable: not checking which worker and target files the program used)"
  "${run[@]}"
fi
echo "install consumer test passed"
