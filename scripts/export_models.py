#!/usr/bin/python3
"""Exports the networks attune's model tests and bench run, with random weights, to ONNX.

   /usr/bin/python3 scripts/export_models.py --out DIR [--models a,b,...] [--seed S]

For each model it writes DIR/NAME.onnx, one random input DIR/NAME.input.npy and what PyTorch
(eager, fp32) computes for it, DIR/NAME.torch.npy: an oracle independent of attune and of ONNX
Runtime. Nothing is downloaded: torchvision's architectures are built with random weights, and
BERT's encoder is written here with torch.nn. Python is a test and bench tool only; attune never
needs it. Debian packages: python3-torch, python3-torchvision (python3-onnx to inspect).

Models (name: what, input):
  resnet50      torchvision ResNet-50, 1x3x224x224
  mobilenet_v2  torchvision MobileNet-V2, 1x3x224x224
  bert_base     BERT-base encoder: 12 layers, hidden 768, 12 heads, FFN 3072, 1x128x768
  resnet_tiny   a stem and two BasicBlocks (one downsampling), GAP, FC: 1x3x32x32
  mobilenet_tiny MobileNet-V2 at width 0.25 with two inverted-residual stages: 1x3x32x32
  bert_tiny     the BERT encoder with 2 layers, hidden 64, 4 heads, FFN 128, 1x16x64
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
from torch import nn
import torchvision


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.dim = heads, hidden // heads
        self.q, self.k, self.v = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def split(self, x):  # [B, T, H*D] -> [B, H, T, D]
        b, t, _ = x.shape
        return x.reshape(b, t, self.heads, self.dim).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dim)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v)
        b, h, t, d = ctx.shape
        return self.out(ctx.transpose(1, 2).reshape(b, t, h * d))


class EncoderLayer(nn.Module):
    """Post-LayerNorm BERT layer: attention, residual, LN; FFN with erf GELU, residual, LN."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attn = SelfAttention(hidden, heads)
        self.ln1, self.ln2 = nn.LayerNorm(hidden, eps=1e-12), nn.LayerNorm(hidden, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))


class BertEncoder(nn.Module):
    def __init__(self, layers, hidden, heads, ffn):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def resnet_tiny():
    from torchvision.models.resnet import BasicBlock
    down = nn.Sequential(nn.Conv2d(16, 32, 1, stride=2, bias=False), nn.BatchNorm2d(32))
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.MaxPool2d(3, stride=2, padding=1),
        BasicBlock(16, 16), BasicBlock(16, 32, stride=2, downsample=down),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def mobilenet_tiny():
    setting = [[1, 16, 1, 1], [6, 24, 2, 2]]  # t, c, n, s as torchvision spells them
    return torchvision.models.mobilenet_v2(width_mult=0.25, inverted_residual_setting=setting,
                                           num_classes=10)


MODELS = {
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "bert_base": (lambda: BertEncoder(12, 768, 12, 3072), (1, 128, 768)),
    "resnet_tiny": (resnet_tiny, (1, 3, 32, 32)),
    "mobilenet_tiny": (mobilenet_tiny, (1, 3, 32, 32)),
    "bert_tiny": (lambda: BertEncoder(2, 64, 4, 128), (1, 16, 64)),
}


def randomise_batchnorm(model, gen):
    """Fresh BatchNorm layers are the identity; give them statistics so folding is tested."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


def export(name, out, seed):
    build, shape = MODELS[name]
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = build().eval()
    with torch.no_grad():
        randomise_batchnorm(model, gen)
        x = torch.randn(*shape, generator=gen)
        y = model(x)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"],
                          opset_version=17, do_constant_folding=True)
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".torch.npy"), y.numpy())
    print(f"export_models: {path} input {list(shape)} output {list(y.shape)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="resnet_tiny,mobilenet_tiny,bert_tiny")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for name in args.models.split(","):
        if name not in MODELS:
            sys.exit(f"export_models: unknown model '{name}' (known: {', '.join(MODELS)})")
        export(name, args.out, args.seed)


if __name__ == "__main__":
    main()
