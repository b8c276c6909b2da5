#!/usr/bin/python3
"""Averages the weights of a run's last checkpoints into one model.

  /usr/bin/python3 models/recipe/average.py --work models/work/run-X \\
      [--last 4] [--out models/work/run-X/candidate-avg.heed]
  /usr/bin/python3 models/recipe/average.py --models A.heed B.heed --out M.heed
The second form averages finished models of one vocabulary and shape (two
runs' results), tensor by tensor, written as F16.

train.py keeps the model weights of its last few checkpoints in
WORK/snapshots/ (a few minutes apart, near the end of a run whose learning
rate has decayed); their mean usually scores higher on the dev sets than
the last of them alone. dev.py decides which is kept.
"""
import argparse
import glob
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from transformer import Transformer  # noqa: E402


def snapshots(work, last=None):
    """The last `last` (default: all) snapshot files of a run, oldest first
    (names sort in training order: step-0001200.pt)."""
    files = sorted(glob.glob(os.path.join(work, "snapshots", "*.pt")))
    if last is None:
        return files
    return files[-last:] if last > 0 else []


def average(files):
    """(config, state dict) with every float tensor the mean over files."""
    total, config = None, None
    for path in files:
        ckpt = torch.load(path, map_location="cpu")
        weights = ckpt["model"]
        if config is not None and ckpt["config"] != config:
            sys.exit(f"average: {path} has another configuration")
        config = ckpt["config"]
        if total is None:
            total = {k: v.double() if v.is_floating_point() else v.clone()
                     for k, v in weights.items()}
        else:
            for k, v in weights.items():
                if v.is_floating_point():
                    total[k] += v.double()
    mean = {k: (v / len(files)).float() if v.is_floating_point() else v
            for k, v in total.items()}
    return config, mean


def averaged_model(work, last):
    """The mean of the run's last snapshots as a model in eval mode, or
    None when it has fewer than two."""
    files = snapshots(work, last)
    if len(files) < 2:
        return None
    config, weights = average(files)
    model = Transformer(config)
    model.load_state_dict(weights)
    model.eval()
    print(f"average of {len(files)} snapshots: "
          f"{', '.join(os.path.basename(f) for f in files)}", flush=True)
    return model


def average_models(paths, out):
    """Writes the tensor-wise mean of .heed models of one configuration."""
    import heedfile
    import numpy as np
    first_config, tensors = None, []
    for path in paths:
        _, config, t = heedfile.read(path)
        if first_config is not None and config != first_config:
            sys.exit(f"average: {path} has another configuration")
        first_config = config
        tensors.append(t)
    mean = {}
    for name, v in tensors[0].items():
        if any(t[name].shape != v.shape for t in tensors):
            sys.exit(f"average: {name} differs in shape")
        if np.issubdtype(v.dtype, np.floating):
            mean[name] = sum(t[name].astype(np.float64)
                             for t in tensors) / len(tensors)
        elif all(np.array_equal(t[name], v) for t in tensors):
            mean[name] = v  # the tokenizers: the same in every model
        else:
            sys.exit(f"average: {name} is not a weight and differs")
    heedfile.write(out, first_config, mean, float_dtype=np.float16)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", nargs="+",
                   help="finished models to average instead of a run")
    p.add_argument("--work")
    p.add_argument("--last", type=int, default=4)
    p.add_argument("--out")
    args = p.parse_args()
    if args.models:
        if len(args.models) < 2 or not args.out:
            sys.exit("average: --models needs two models or more and --out")
        average_models(args.models, args.out)
        return
    if not args.work:
        sys.exit("average: give --work or --models")
    from train import export
    model = averaged_model(args.work, args.last)
    if model is None:
        sys.exit(f"average: fewer than two snapshots in {args.work}")
    export(model, os.path.join(args.work, "spm.model"),
           args.out or os.path.join(args.work, "candidate-avg.heed"))


if __name__ == "__main__":
    main()
