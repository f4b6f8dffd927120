#!/usr/bin/python3
"""attune-model-bench: whole networks, attune against ONNX Runtime and PyTorch, same run.

   /usr/bin/python3 bench/models/attune_model_bench.py [--attune build/attune] [--db DB]
        [--models resnet50,mobilenet_v2,bert_base] [--tune-time 0|15m|45m] [--threads 1,2]
        [--rounds 5] [--runs 10] [--work DIR] [--json-out FILE]

Per model: exports it (scripts/export_models.py, random weights, nothing downloaded) unless
DIR has it; tunes it with `attune tune-model --time T` when --tune-time is given (else uses what
DB holds); checks attune's output against ONNX Runtime's; then, for each thread count, runs
`rounds` interleaved rounds of attune (run-model --rounds), ONNX Runtime (ort_run.js) and
PyTorch eager and TorchScript (torch_run.py), each timing `runs` runs after a warm-up in its own
process, and reports the median of the rounds' medians. Speedups are ratios of medians of the
same run; the PyTorch baseline is the faster of eager and TorchScript. The last line is
  geomean_speedup_vs_onnxruntime=X.XX geomean_speedup_vs_pytorch=Y.YY
over models x thread counts, after one such line per thread count (threads=T ...). --json-out
FILE also writes the results as JSON Lines (a model-bench.header line, then one model-bench.row
per model and thread count) for `attune report --bench FILE`. Python and node are bench tools
only; attune never needs them.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
PY = "/usr/bin/python3"


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def median_json(out):
    return json.loads(out.strip().splitlines()[-1])["median_s"]


def time_attune(a, model, inp, threads, runs, out_dir):
    out = sh([a.attune, "run-model", model, "--input", "input=" + inp, "--output", out_dir, "--db", a.db,
              "--threads", str(threads), "--rounds", str(runs)])
    return float(re.search(r"latency: median ([0-9.e+-]+) ms", out).group(1)) / 1e3


def time_ort(model, inp, threads, runs, out_dir=None):
    cmd = ["node", os.path.join(HERE, "ort_run.js"), model, "--input", "input=" + inp, "--threads", str(threads),
           "--rounds", str(runs)]
    return median_json(sh(cmd + (["--output", out_dir] if out_dir else [])))


def time_torch(name, mode, threads, runs):
    return median_json(sh([PY, os.path.join(HERE, "torch_run.py"), name, "--mode", mode, "--threads", str(threads),
                           "--rounds", str(runs)]))


def accuracy(a, name, model, inp, work):
    """Largest absolute and relative difference of attune's output from ONNX Runtime's."""
    import numpy as np
    time_ort(model, inp, 1, 0, os.path.join(work, "ort_" + name))
    sh([a.attune, "run-model", model, "--input", "input=" + inp, "--output", os.path.join(work, "att_" + name),
        "--db", a.db, "--threads", "1"])
    x = np.load(os.path.join(work, "att_" + name, "output.npy")).astype(np.float64)
    r = np.load(os.path.join(work, "ort_" + name, "output.npy")).astype(np.float64)
    diff = float(np.abs(x - r).max())
    return diff, diff / max(float(np.abs(r).max()), 1e-30)


def top_tasks(a, model, inp, threads, work):
    out = sh([a.attune, "run-model", model, "--input", "input=" + inp, "--output", os.path.join(work, "prof"), "--db",
              a.db, "--threads", str(threads), "--rounds", "3", "--profile"])
    return [l.strip() for l in out.splitlines() if l.strip().startswith("task")][:5]


def tune(a, model):
    out = sh([a.attune, "tune-model", model, "--db", a.db, "--time", a.tune_time, "--threads", str(max(a.threads))])
    m = re.search(r"(\d+) rounds, (\d+) trials in (\d+) s", out)
    est = [float(x) for x in re.findall(r"model estimate ([0-9.]+) ms", out)]
    return (int(m.group(3)) if m else 0), out, est


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--attune", default=os.path.join(SRC, "build", "attune"))
    ap.add_argument("--db", default=os.path.join(SRC, "build", "model-bench.db"))
    ap.add_argument("--models", default="resnet50,mobilenet_v2,bert_base")
    ap.add_argument("--tune-time", default="0")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--work", default=os.path.join(SRC, "build", "model-bench"))
    ap.add_argument("--json-out", help="also write the results as JSON Lines (attune report --bench)")
    a = ap.parse_args()
    a.threads = [int(t) for t in a.threads.split(",")]
    os.makedirs(a.work, exist_ok=True)
    sh(["bash", os.path.join(SRC, "scripts", "install-ort.sh")])
    print(f"attune-model-bench: CPU {cpu_model()}, {os.cpu_count()} cores; database {a.db}")
    json_out = open(a.json_out, "w") if a.json_out else None

    def emit(line):  # one JSON object a line, flushed: a run cut short keeps what it measured
        if json_out:
            json_out.write(json.dumps(line) + "\n")
            json_out.flush()

    emit({"kind": "model-bench.header", "cpu": cpu_model(), "command": " ".join([PY] + sys.argv), "db": a.db})
    ratios_ort, ratios_pt = [], []
    by_threads = {t: ([], []) for t in a.threads}  # the goal holds per thread count, not only overall
    for name in a.models.split(","):
        model = os.path.join(a.work, name + ".onnx")
        inp = os.path.join(a.work, name + ".input.npy")
        if not os.path.exists(model):
            sh([PY, os.path.join(SRC, "scripts", "export_models.py"), "--out", a.work, "--models", name])
        tuned_s = 0
        if a.tune_time != "0":
            tuned_s, _, est = tune(a, model)
        print(f"\n== {name}: tuning {tuned_s} s this run (database {os.path.basename(a.db)})")
        diff, rel = accuracy(a, name, model, inp, a.work)
        print(f"   output vs ONNX Runtime: max abs diff {diff:.3g}, max rel diff {rel:.3g}")
        for t in a.threads:
            rounds = {"attune": [], "onnxruntime": [], "torch_eager": [], "torchscript": []}
            for _ in range(a.rounds):  # interleaved: every contender once per round
                rounds["attune"].append(time_attune(a, model, inp, t, a.runs, os.path.join(a.work, "out")))
                rounds["onnxruntime"].append(time_ort(model, inp, t, a.runs))
                rounds["torch_eager"].append(time_torch(name, "eager", t, a.runs))
                rounds["torchscript"].append(time_torch(name, "torchscript", t, a.runs))
            med = {k: statistics.median(v) for k, v in rounds.items()}
            pytorch = min(med["torch_eager"], med["torchscript"])
            r_ort, r_pt = med["onnxruntime"] / med["attune"], pytorch / med["attune"]
            emit({"kind": "model-bench.row", "model": name, "threads": t, "seconds": med})
            ratios_ort.append(r_ort)
            ratios_pt.append(r_pt)
            by_threads[t][0].append(r_ort)
            by_threads[t][1].append(r_pt)
            print(f"   {t} thread(s): attune {med['attune']*1e3:.2f} ms | onnxruntime {med['onnxruntime']*1e3:.2f} ms "
                  f"| pytorch eager {med['torch_eager']*1e3:.2f} ms, torchscript {med['torchscript']*1e3:.2f} ms "
                  f"| speedup vs onnxruntime {r_ort:.2f}, vs pytorch {r_pt:.2f}")
        print("   top tasks by time share (" + str(a.threads[-1]) + " threads):")
        for line in top_tasks(a, model, inp, a.threads[-1], a.work):
            print("     " + line)
    g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))
    print()
    for t, (o, p) in by_threads.items():
        print(f"threads={t} geomean_speedup_vs_onnxruntime={g(o):.2f} geomean_speedup_vs_pytorch={g(p):.2f}")
    print(f"geomean_speedup_vs_onnxruntime={g(ratios_ort):.2f} geomean_speedup_vs_pytorch={g(ratios_pt):.2f}")


if __name__ == "__main__":
    main()
