#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan, ATTUNE_FUZZ) in build-fuzz/
# and runs each one for SECONDS (default $FUZZ_SECONDS, else 60), one after the other.
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (make fuzz FUZZ_SECONDS=600)
# Each target starts from its seeds (fuzz/corpus/<target>/) and the inputs earlier runs found
# (build-fuzz/corpus/<target>/, kept between runs). A crashing input is written to
# build-fuzz/findings/<target>/; add it to fuzz/corpus/<target>/ with the fix, so that ctest
# fuzz.<target> keeps replaying it. Exits 1 when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-60}}
[ $# -gt 0 ] && shift
build=${FUZZ_BUILD:-build-fuzz}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(spec_parser trace_replay target_loader record_decode vta_decode)

command -v clang++ >/dev/null || { echo "fuzz: needs clang (apt-get install clang)" >&2; exit 2; }
CC=clang CXX=clang++ cmake -S . -B "$build" -DATTUNE_FUZZ=ON -DATTUNE_WITH_TORCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target fuzz-targets -j "${JOBS:-$(nproc)}" -- --no-print-directory

found=()
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/findings/$t"
  echo "fuzz: $t for ${seconds}s"
  if ! "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/findings/$t/" "$build/corpus/$t" "fuzz/corpus/$t" 2>"$build/findings/$t.log"; then
    found+=("$t")
    tail -n 40 "$build/findings/$t.log" >&2
  fi
  grep -E '^stat::number_of_executed_units' "$build/findings/$t.log" | sed "s/^/fuzz: $t /" || true
done
if [ ${#found[@]} -gt 0 ]; then
  echo "fuzz: findings in ${found[*]} (inputs in $build/findings/)" >&2
  exit 1
fi
echo "fuzz: no findings"
