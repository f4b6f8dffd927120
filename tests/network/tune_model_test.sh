#!/usr/bin/env bash
# `attune tune-model` on the small ResNet: the warm-up round tunes every task into the database,
# `run-model --db` then runs the tuned kernels and still equals PyTorch; a second run resumes
# (no warm-up again) and ends with the network pick, whose kernels run-model then runs; SIGINT
# stops a run with exit 130 and its summary, keeping what it measured.
#   tune_model_test.sh ATTUNE SOURCE_DIR
set -euo pipefail
attune=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$src/scripts/export_models.py" --out "$work" --models resnet_tiny 2>/dev/null
m="$work/resnet_tiny.onnx"
tasks=$("$attune" import "$m" | sed -n 's/^tasks: \([0-9]*\) distinct.*/\1/p')

"$attune" tune-model "$m" --db "$work/t.db" --time 10m --round-trials 2 --threads 1 > "$work/tune1.txt" &
pid=$!
# Stop it once the warm-up has reached every task (or it finished by itself).
for _ in $(seq 600); do
  [ "$(grep -c '^\[' "$work/tune1.txt" || true)" -ge "$tasks" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 1
done
kill -INT $pid 2>/dev/null || true
status=0
wait $pid || status=$?
cat "$work/tune1.txt"
[ "$status" -eq 130 ]
grep -q "stopped by SIGINT" "$work/tune1.txt"
grep -q "tasks tuned" "$work/tune1.txt"

"$attune" run-model "$m" --input "input=$work/resnet_tiny.input.npy" --output "$work/out" --db "$work/t.db" --threads 1 > "$work/run.txt" 2>&1
cat "$work/run.txt"
grep -q "($tasks tuned, 0 default, " "$work/run.txt"
/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out/output.npy" "$work/resnet_tiny.torch.npy" 1e-4

# Resumed: every task already has its warm-up trials, so the first round goes to one task by gain.
"$attune" tune-model "$m" --db "$work/t.db" --time 3s --round-trials 2 --threads 1 > "$work/tune2.txt"
cat "$work/tune2.txt"
[ "$(grep -c '^\[' "$work/tune2.txt")" -ge 1 ]
! grep -q "0/$tasks tasks tuned" "$work/tune2.txt"
# A run that ends by its budget ends with the network pick; run-model then runs what it picked
# (the same count) and the output is still right. (The SIGINTed run above made no pick.)
grep -q "network pick: none (interrupted)" "$work/tune1.txt"
picked=$(sed -n 's/^network pick: \([0-9]*\) of '"$tasks"' tasks run another.*/\1/p' "$work/tune2.txt")
[ -n "$picked" ]
"$attune" run-model "$m" --input "input=$work/resnet_tiny.input.npy" --output "$work/out1" --db "$work/t.db" --threads 1 > "$work/run1.txt" 2>&1
cat "$work/run1.txt"
grep -q "($tasks tuned, 0 default, $picked picked in the network)" "$work/run1.txt"
/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out1/output.npy" "$work/resnet_tiny.torch.npy" 1e-4

# A record whose rebuilt kernel is not the one measured (here: its recorded source hash altered,
# as after an attune upgrade changed the code generator) does not stop the model: that task runs
# its default kernel, run-model says which and why, and the output is still right.
sqlite3 "$work/t.db" "UPDATE records SET features = json_set(features, '$.source_sha256', 'f00d') WHERE status = 'ok'"
"$attune" run-model "$m" --input "input=$work/resnet_tiny.input.npy" --output "$work/out2" --db "$work/t.db" --threads 1 > "$work/run2.txt" 2>&1
cat "$work/run2.txt"
grep -q "(0 tuned, $tasks default, 0 picked" "$work/run2.txt"
grep -q "is untuned: default schedule (record [0-9]*: the kernel rebuilt from its trace is not the one measured" "$work/run2.txt"
/usr/bin/python3 "$src/tests/network/compare_npy.py" "$work/out2/output.npy" "$work/resnet_tiny.torch.npy" 1e-4
