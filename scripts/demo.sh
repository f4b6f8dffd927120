#!/usr/bin/env bash
# `make demo`: tunes a 512^3 fp32 GEMM on this CPU for about a minute and shows the result
# next to the untransformed loop nest, OpenBLAS, BLIS and oneDNN, all measured in this run.
set -euo pipefail
attune=${1:-build/attune}
bench=$(dirname "$attune")/bench/attune-demo-baseline
db=${ATTUNE_DEMO_DB:-build/demo.db}
spec="gemm:M=512,N=512,K=512"

echo "== attune demo: tuning $spec on this CPU for ~60 s (database: $db)"
"$attune" tune "$spec" --time 60 --db "$db" --strategy evolutionary --seed 1
echo
echo "== the best kernel found"
"$attune" best "$spec" --db "$db"
echo
echo "== side by side, measured now: attune's best, the untransformed loop nest, OpenBLAS, BLIS, oneDNN"
# Short spin waits for idle library threads (as attune-bench uses): otherwise OpenMP's and
# OpenBLAS's idle threads spin on the other core while the next kernel runs.
OPENBLAS_THREAD_TIMEOUT=${OPENBLAS_THREAD_TIMEOUT:-22} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-30000} "$bench" "$db"
