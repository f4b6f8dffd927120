#!/usr/bin/env bash
# A build without libtorch (ATTUNE_WITH_TORCH=OFF; registered only there): everything that needs
# the RL agent is a one-line user error that says why, and creates nothing.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
why='built without libtorch \(ATTUNE_WITH_TORCH=OFF\)'

expect_refusal() {
  local rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [ "$rc" != 1 ]; then echo "exit $rc (want 1): $*"; cat "$tmp/err"; exit 1; fi
  if [ "$(wc -l <"$tmp/err")" != 1 ]; then echo "stderr is not one line: $*"; cat "$tmp/err"; exit 1; fi
  grep -qE "^attune: error: .*$why" "$tmp/err" || { echo "stderr does not say why: $*"; cat "$tmp/err"; exit 1; }
}

printf 'g1 gemm M=16 N=32 K=16\n' >"$tmp/w.txt"
expect_refusal "$attune" train-policy --workloads "$tmp/w.txt" --episodes 2 --out "$tmp/p.pt"
test ! -e "$tmp/p.pt"
expect_refusal "$attune" tune gemm:M=8,N=8,K=8 --strategy rl --trials 2 --db "$tmp/t.db"
test ! -e "$tmp/t.db"
# The other strategies are untouched.
"$attune" tune gemm:M=8,N=8,K=8 --strategy random --trials 2 --db "$tmp/t.db" --threads 1 >/dev/null 2>&1
echo "rl refused test passed"
