#!/usr/bin/env bash
# `attune lower` prints the loop nest and the generated C, with and without a trace.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$attune" lower gemm:M=64,N=64,K=32)
grep -q 'attune_kernel' <<<"$out"
grep -q 'loop nest' <<<"$out"
grep -qE 'for m < 64' <<<"$out" || grep -qE '\bm\b.*64' <<<"$out"

# A trace from a file: the split loops show in the nest and the trace in the C header.
cat >"$tmp/trace.json" <<'JSON'
{"schema_version": 1, "steps": [{"kind": "split", "loop": "n", "factors": [4, 16]},
                                {"kind": "reorder", "loops": ["m", "n.0", "k", "n.1"]},
                                {"kind": "vectorize", "loop": "n.1"}]}
JSON
out=$("$attune" lower gemm:M=64,N=64,K=32 --trace "$tmp/trace.json" --target cpu)
grep -q 'n\.0' <<<"$out"
grep -q 'n\.1' <<<"$out"
grep -q 'attune_kernel' <<<"$out"

# The same trace inline, as a bare list of steps.
out=$("$attune" lower gemm:M=64,N=64,K=32 --nest-only \
      --trace '[{"kind": "split", "loop": "m", "factors": [8, 8]}]')
grep -q 'm\.0' <<<"$out"
grep -q 'm\.1' <<<"$out"
if grep -q 'attune_kernel' <<<"$out"; then echo "--nest-only printed C"; exit 1; fi

# --c-only prints a C file and nothing else.
"$attune" lower gemm:M=8,N=8,K=8 --c-only >"$tmp/k.c"
grep -q 'void attune_kernel' "$tmp/k.c"
if grep -q -- '---- loop nest' "$tmp/k.c"; then echo "--c-only printed the nest header"; exit 1; fi
echo "ok"
