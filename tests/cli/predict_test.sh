#!/usr/bin/env bash
# Zero-shot from the command line: `attune predict` and `attune tune --trials 0` refuse to
# guess without records of the target (one line saying what to do), refuse a --strategy, and
# once other ops of the target are tuned, print the one kernel they measured, the phase
# breakdown of what it cost and the rule that picked it (judged once there are two op families).
set -euo pipefail
attune=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
db="$dir/t.db"

if err=$("$attune" predict gemm:M=24,N=32,K=20 --db "$db" --threads 1 2>&1); then
  echo "predict without records succeeded:"; echo "$err"; exit 1
fi
grep -q "tune a few ops of this target first" <<<"$err" || { echo "unclear error: $err"; exit 1; }
[ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "not one line: $err"; exit 1; }

if err=$("$attune" tune gemm:M=24,N=32,K=20 --trials 0 --strategy ml2 --db "$db" 2>&1); then
  echo "--trials 0 with a strategy succeeded"; exit 1
fi
grep -q "zero-shot takes no --strategy" <<<"$err" || { echo "unclear error: $err"; exit 1; }

for spec in gemm:M=24,N=32,K=20 gemm:M=32,N=48,K=16; do
  "$attune" tune "$spec" --strategy ml2 --trials 16 --db "$db" --threads 1 --confirm-top 0 >/dev/null 2>&1
done
out=$("$attune" tune gemm:M=40,N=32,K=24 --trials 0 --db "$db" --threads 1 2>/dev/null)
grep -qE "^pick +record [0-9]+, ok, .*one kernel timed, checked against the reference" <<<"$out" ||
  { echo "no pick in:"; echo "$out"; exit 1; }
grep -qE "^per trial [0-9]+ ms: .*compile [0-9]+" <<<"$out" || { echo "no phase breakdown in:"; echo "$out"; exit 1; }
# One op family: nothing to judge the pick rule on, so the default, and said so.
grep -qE "^rule +A among P's first 24 \(the default: .*too few op families" <<<"$out" ||
  { echo "no default rule in:"; echo "$out"; exit 1; }
# A second family: the rule is judged on both, each left out in turn.
"$attune" tune batch_matmul:B=2,M=16,N=32,K=16 --strategy ml2 --trials 16 --db "$db" --threads 1 --confirm-top 0 \
  >/dev/null 2>&1
out=$("$attune" predict gemm:M=56,N=32,K=24 --db "$db" --threads 1 2>/dev/null)
grep -qE "^rule +(P alone|A among P's first [0-9]+) \(judged on this database's 2 op families" <<<"$out" ||
  { echo "no judged rule in:"; echo "$out"; exit 1; }
json=$("$attune" predict gemm:M=48,N=32,K=24 --db "$db" --threads 1 --json 2>/dev/null)
/usr/bin/python3 -c 'import json,sys; j=json.loads(sys.argv[1]); assert j["status"]=="ok" and j["trials_run"]>=1 and "compile" in j["phases_s"], j' "$json"
echo "ok"
