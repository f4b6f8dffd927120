#!/usr/bin/python3
"""Times one model of scripts/export_models.py in PyTorch (the model bench's baseline).

   /usr/bin/python3 bench/models/torch_run.py NAME --mode eager|torchscript --threads T --rounds R

Builds the model as export_models.py does (same seed, same random weights), runs it once to
warm up, then R times, and prints one JSON line {"median_s": ..., "times_s": [...]}."""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import export_models  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--mode", choices=["eager", "torchscript"], default="eager")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    build, shape = export_models.MODELS[a.name]
    torch.manual_seed(a.seed)
    gen = torch.Generator().manual_seed(a.seed)
    model = build().eval()
    times = []
    with torch.no_grad():
        export_models.randomise_batchnorm(model, gen)
        x = torch.randn(*shape, generator=gen)
        if a.mode == "torchscript":
            model = torch.jit.optimize_for_inference(torch.jit.trace(model, (x,)))
        model(x)
        model(x)
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t0)
    times.sort()
    print(json.dumps({"median_s": times[len(times) // 2], "times_s": times}))


if __name__ == "__main__":
    main()
