#!/usr/bin/env bash
# User errors end as one line `attune: error: ...` on stderr with exit code 1 (2 for usage
# errors), never a crash, and never touch the files they name.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_error CODE PATTERN -- COMMAND...: runs COMMAND, checks its exit code and that stderr
# is exactly one line matching PATTERN.
expect_error() {
  local want=$1 pattern=$2; shift 3
  local rc=0
  "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [ "$rc" != "$want" ]; then echo "exit $rc (want $want): $*"; cat "$tmp/err"; exit 1; fi
  if [ "$(wc -l <"$tmp/err")" != 1 ]; then echo "stderr is not one line: $*"; cat "$tmp/err"; exit 1; fi
  grep -qE "$pattern" "$tmp/err" || { echo "stderr does not match '$pattern': $*"; cat "$tmp/err"; exit 1; }
}

# Malformed spec text: the parser's line:col.
expect_error 1 '^attune: error: 1:[0-9]+: ' -- "$attune" lower 'tensor A[4,4 f32; C[m,n] += A[m,k] * B[k,n]'
# Unknown template, and a bad parameter of a known one.
expect_error 1 '^attune: error: .*gemmx' -- "$attune" lower 'gemmx:M=4,N=4,K=4'
expect_error 1 '^attune: error: .*M' -- "$attune" lower 'gemm:M=x,N=4,K=4'
# Bad trace JSON, inline and in a file; a trace step that does not apply.
expect_error 1 '^attune: error: --trace: invalid JSON' -- "$attune" lower gemm:M=4,N=4,K=4 --trace '{"steps": ['
printf 'not json' >"$tmp/bad.json"
expect_error 1 '^attune: error: --trace' -- "$attune" lower gemm:M=4,N=4,K=4 --trace "$tmp/bad.json"
expect_error 1 '^attune: error: --trace' -- "$attune" lower gemm:M=4,N=4,K=4 --trace "$tmp/missing.json"
expect_error 1 '^attune: error: .*not applicable' -- "$attune" lower gemm:M=4,N=4,K=4 \
  --trace '[{"kind": "vectorize", "loop": "nope"}]'
# Unknown target and intrinsic.
expect_error 1 '^attune: error: ' -- "$attune" map gemm:M=16,N=16,K=16 --target no-such-target
expect_error 1 '^attune: error: .*wmma' -- "$attune" map gemm:M=16,N=16,K=16 --target cuda --intrinsic nope

# Missing database: a clear error, and no file created.
expect_error 1 "^attune: error: .*no database" -- "$attune" best gemm:M=4,N=4,K=4 --db "$tmp/none.db"
test ! -e "$tmp/none.db"
expect_error 1 "^attune: error: .*no database" -- "$attune" history gemm:M=4,N=4,K=4 --db "$tmp/none.db"
expect_error 1 "^attune: error: .*no database" -- "$attune" export --jsonl --db "$tmp/none.db"
test ! -e "$tmp/none.db"

# A file that is not a database: refused and left byte for byte as it was.
head -c 4096 /dev/urandom >"$tmp/garbage.db"
cp "$tmp/garbage.db" "$tmp/garbage.copy"
expect_error 1 "^attune: error: .*not an attune database" -- "$attune" best gemm:M=4,N=4,K=4 --db "$tmp/garbage.db"
expect_error 1 "^attune: error: .*not an attune database" -- "$attune" export --jsonl --db "$tmp/garbage.db"
cmp "$tmp/garbage.db" "$tmp/garbage.copy"
test ! -e "$tmp/garbage.db-wal"

# Hostile input (issue 28): a number beyond a double, unbounded nesting, and a label that
# would end the generated C's comment are user errors, not crashes or internal errors.
expect_error 1 "^attune: error: --trace: invalid JSON: number overflow parsing '1e400'" -- \
  "$attune" lower gemm:M=4,N=4,K=4 --trace '{"schema_version": 1e400, "steps": []}'
head -c 100000 /dev/zero | tr '\0' '[' >"$tmp/deep.json"
expect_error 1 '^attune: error: --trace: JSON nested deeper than 64 levels' -- \
  "$attune" lower gemm:M=4,N=4,K=4 --trace "$tmp/deep.json"
expect_error 1 "^attune: error: 1:4: label '\*/x/\*' holds '\*'" -- \
  "$attune" lower 'op */x/*; tensor A[4] f32; tensor O[4] f32; O[i] += A[i]'
expect_error 1 "^attune: error: 1:8: tensor name 'int' is a C or C\+\+ keyword" -- \
  "$attune" lower 'tensor int[4] f32; tensor O[4] f32; O[i] += int[i]'
# Too large to measure: refused at once, before any buffer is allocated.
for cmd in verify tune; do
  extra=(--random-traces 1); [ "$cmd" = tune ] && extra=(--trials 1 --db "$tmp/huge.db")
  expect_error 1 "^attune: error: op 'gemm' needs about 16.4 GiB of memory to measure .* more than the limit of 8.0 GiB; raise it with --max-memory" -- \
    timeout 60 "$attune" $cmd gemm:M=20000,N=20000,K=20000 "${extra[@]}" --max-memory 8G
done
test ! -e "$tmp/huge.db"
expect_error 1 "^attune: error: --max-memory: expected a size in bytes" -- \
  "$attune" verify gemm:M=4,N=4,K=4 --random-traces 1 --max-memory lots
# An unreadable targets directory is named, not an internal error (root reads it anyway).
if [ "$(id -u)" != 0 ]; then
  mkdir "$tmp/targets"; chmod 000 "$tmp/targets"
  ATTUNE_TARGETS_DIR="$tmp/targets" expect_error 1 "^attune: error: target 'mine': cannot look in" -- \
    "$attune" map gemm:M=16,N=16,K=16 --target mine
  chmod 700 "$tmp/targets"
fi

# Usage errors from the command line parser: exit code 2.
expect_error 2 '^attune: error: ' -- "$attune" lower
expect_error 2 '^attune: error: ' -- "$attune" frobnicate
expect_error 2 '^attune: error: ' -- "$attune" verify gemm:M=4,N=4,K=4 --random-traces many
expect_error 2 '^attune: error: ' -- "$attune" export
echo "ok"
