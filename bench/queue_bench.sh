#!/usr/bin/env bash
# Distributed measurement through PostgreSQL's job queue (docs/shared-database.md), timed.
#   1. Throughput of VTA-simulator tuning: in-process, then `--workers remote` with 1 and 2
#      local `attune worker`s; the queue's overhead per job is the difference per trial.
#   2. A fault run: 3 workers on CPU jobs while one of them is killed (SIGKILL, with its
#      measuring child) every 20 s for 2 min and replaced; then jobs enqueued, records written,
#      duplicates and losses are counted.
# Usage: bench/queue_bench.sh BUILD_DIR [FAULT_SECONDS]   (a private server in a temp dir)
set -euo pipefail
build=$1
fault_s=${2:-120}
attune="$build/attune"
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/cli/lib/pg_server.sh"
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 -- "-$p" 2> /dev/null || true; done
  pg_cleanup
  rm -rf "$tmp"
}
trap cleanup EXIT
export ATTUNE_CACHE_DIR="$tmp/cache"
pg_start
spec="gemm:M=64,N=256,K=256,dtype=int8"
trials=300
now() { date +%s.%N; }

echo "# queue bench: $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), VTA $spec, $trials trials"
t0=$(now)
"$attune" tune "$spec" --target vta --trials "$trials" --db "$tmp/local.db" > /dev/null 2>&1
local_s=$(echo "$(now) - $t0" | bc -l)
printf "in-process            %6.2f s  %7.2f ms/trial\n" "$local_s" "$(echo "1000 * $local_s / $trials" | bc -l)"
for n in 1 2; do
  pg_admin "CREATE DATABASE vta$n"
  url=$(pg_url vta$n)
  "$attune" worker --db "$url" --device-key none --max-jobs 1 --exit-when-idle 0.1 > /dev/null  # the schema
  ws=()
  for i in $(seq "$n"); do
    setsid "$attune" worker --db "$url" --device-key vta --exit-when-idle 2 > "$tmp/w$n-$i.log" 2>&1 &
    ws+=($!)
  done
  t0=$(now)
  "$attune" tune "$spec" --target vta --trials "$trials" --db "$url" --workers remote > /dev/null 2>&1
  s=$(echo "$(now) - $t0" | bc -l)
  for w in "${ws[@]}"; do wait "$w"; done
  printf "remote, %d worker%s     %6.2f s  %7.2f ms/trial  (+%.2f ms/trial over in-process)\n" "$n" \
    "$([ "$n" -gt 1 ] && echo s || echo " ")" "$s" "$(echo "1000 * $s / $trials" | bc -l)" \
    "$(echo "1000 * ($s - $local_s) / $trials" | bc -l)"
done

echo "# fault run: 3 CPU workers, one killed every 20 s for ${fault_s} s"
pg_admin "CREATE DATABASE faults"
url=$(pg_url faults)
cpu="gemm:M=96,N=96,K=96"
start() { setsid "$attune" worker --db "$url" --lease 5 --exit-when-idle 8 >> "$tmp/f$1.log" 2>&1 & pids[$1]=$!; }
start 0; start 1; start 2
"$attune" tune "$cpu" --time "$fault_s" --threads 1 --db "$url" --workers remote > /dev/null 2>&1 &
search=$!
kills=0
end=$(( $(date +%s) + fault_s ))
while [ "$(date +%s)" -lt "$end" ]; do
  sleep 20
  victim=$((kills % 3))
  kill -9 -- "-${pids[$victim]}" 2> /dev/null || true
  wait "${pids[$victim]}" 2> /dev/null || true
  kills=$((kills + 1))
  start "$victim"
done
wait "$search" || true
for p in "${pids[@]}"; do wait "$p" || true; done
pids=()
jobs=$(pg_query faults "SELECT count(*) FROM jobs")
records=$(pg_query faults "SELECT count(*) FROM records")
done_jobs=$(pg_query faults "SELECT count(*) FROM jobs WHERE state = 'done'")
dups=$(pg_query faults "SELECT count(*) - count(DISTINCT trace_hash) FROM records")
retried=$(pg_query faults "SELECT count(*) FROM jobs WHERE attempts > 1")
echo "workers killed         $kills"
echo "jobs enqueued          $jobs"
echo "records written        $records"
echo "jobs done              $done_jobs (re-run after a lease expired: $retried)"
echo "duplicates             $dups"
echo "lost                   $((jobs - done_jobs))"
pg_check_exactly_once faults && echo "exactly once           yes"
