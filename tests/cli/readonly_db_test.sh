#!/usr/bin/env bash
# A database on a read-only file: best, export and libgen read it (they open it read-only);
# tune refuses it with a clear error. Run as 'nobody' when root, since root writes any file.
set -euo pipefail
attune=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
export ATTUNE_CACHE_DIR="$tmp/cache"
db="$tmp/t.db"
spec="gemm:M=8,N=8,K=8"
"$attune" tune "$spec" --trials 3 --db "$db" --threads 1 > /dev/null 2>&1
as_reader() {
  if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$tmp" "$@"; else "$@"; fi
}
mkdir -p "$tmp/out" "$tmp/cache" && chmod 777 "$tmp/out" "$tmp/cache"
chmod 444 "$db"
as_reader "$attune" best "$spec" --db "$db" --json | grep -q '"status":"ok"'
test "$(as_reader "$attune" export --jsonl --db "$db" | grep -vc '"strategy":"confirm"')" -eq 3
as_reader "$attune" libgen --db "$db" --out "$tmp/out/lib" --name ro > /dev/null
test -f "$tmp/out/lib/CMakeLists.txt"
rc=0
err=$(as_reader "$attune" tune "$spec" --trials 4 --db "$db" --threads 1 2>&1) || rc=$?
[ "$rc" -eq 1 ] && echo "$err" | grep -q "$db: cannot open for writing: permission denied" || { echo "$err" >&2; exit 1; }
echo "read-only database test passed"
