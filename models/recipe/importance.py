#!/usr/bin/python3
"""Component importance (Wang & Tu, COLING 2020; Voita et al., ACL 2019;
Michel et al., NeurIPS 2019): BLEU and chrF on Multi30k val, both
directions, with each head, each sublayer and the positional encoding
switched off in turn, then heads pruned cumulatively, least important
first (by the mean BLEU drop of the two directions).

  /usr/bin/python3 models/recipe/importance.py [--beam 1] [--jobs 2]

Every run is the heed CLI on the whole set (batched), with --mask-heads,
--switch-off or --positions. Writes models/eval/importance.json (the
page's importance grid and pruning curve) and prints progress and a
summary. docs/heads.md reads the result.
"""
import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import score  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SUBLAYERS = ["encoder-self", "encoder-ffn", "decoder-self", "cross",
             "decoder-ffn"]
PRUNE_STEP = 4  # heads removed between two points of the pruning curve


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def config(heed, model):
    out = subprocess.run([heed, "info", "--model", model], check=True,
                         capture_output=True, text=True).stdout
    text = out.split("config: ", 1)[1].split("\ntensors:", 1)[0]
    return json.loads(text)


def runs(c):
    """[(name, flags)]: every head, sublayer and positions mode alone."""
    out = [("baseline", [])]
    for kind, layers in (("encoder", c["encoder_layers"]),
                         ("decoder", c["decoder_layers"]),
                         ("cross", c["decoder_layers"])):
        for layer in range(layers):
            for head in range(c["heads"]):
                name = f"{kind}:{layer}:{head}"
                out.append((f"head {name}", ["--mask-heads", name]))
    for sub in SUBLAYERS:
        layers = c["encoder_layers" if sub.startswith("encoder")
                   else "decoder_layers"]
        for layer in range(layers):
            out.append((f"sublayer {sub}:{layer}",
                        ["--switch-off", f"{sub}:{layer}"]))
    for mode in ("off", "shuffled"):
        out.append((f"positions {mode}", ["--positions", mode]))
    return out


class Runner:
    """Translates the dev set with extra flags and scores it."""

    def __init__(self, args):
        self.args = args
        en, de = data.multi30k("val")
        en, de = en[:args.sentences], de[:args.sentences]
        self.sets = {"en-de": (en, de, "de"), "de-en": (de, en, "en")}
        self.done = 0
        self.total = 0
        self.start = time.time()

    def __call__(self, job):
        direction, name, flags = job
        src, ref, to = self.sets[direction]
        out = subprocess.run(
            [self.args.heed, "translate", "--model", self.args.model, "--to",
             to, "--beam", str(self.args.beam), *flags],
            input="\n".join(src) + "\n", capture_output=True, text=True,
            check=True).stdout.split("\n")[:len(src)]
        result = {"bleu": round(score.bleu(out, ref)["score"], 2),
                  "chrf": round(score.chrf(out, ref), 2)}
        self.done += 1
        elapsed = time.time() - self.start
        print(f"[{self.done}/{self.total}] {direction} {name}: "
              f"BLEU {result['bleu']} ({elapsed:.0f} s)", file=sys.stderr,
              flush=True)
        return (direction, name), result

    def all(self, jobs):
        self.total += len(jobs)
        with ThreadPoolExecutor(max_workers=self.args.jobs) as pool:
            return dict(pool.map(self, jobs))


def pruning(runner, single, heads):
    """Heads removed cumulatively, least important first."""
    base = {d: single[(d, "baseline")]["bleu"] for d in runner.sets}
    drop = {h: sum(base[d] - single[(d, f"head {h}")]["bleu"]
                   for d in runner.sets) / len(runner.sets) for h in heads}
    order = sorted(heads, key=lambda h: drop[h])
    points = list(range(PRUNE_STEP, len(order) + 1, PRUNE_STEP))
    jobs = [(d, f"pruned {k}", ["--mask-heads", ",".join(order[:k])])
            for d in runner.sets for k in points]
    scores = runner.all(jobs)
    curve = {d: [{"removed": 0, **single[(d, "baseline")]}] +
             [{"removed": k, **scores[(d, f"pruned {k}")]} for k in points]
             for d in runner.sets}
    return order, curve


def nest(single, c, direction):
    """The single runs of one direction as heads[kind][layer][head],
    sublayers[name][layer] and positions[mode]."""
    def get(name):
        return single[(direction, name)]
    layers = {"encoder": c["encoder_layers"], "decoder": c["decoder_layers"],
              "cross": c["decoder_layers"]}
    return {
        "baseline": get("baseline"),
        "heads": {k: [[get(f"head {k}:{l}:{h}") for h in range(c["heads"])]
                      for l in range(n)] for k, n in layers.items()},
        "sublayers": {s: [get(f"sublayer {s}:{l}") for l in range(
            c["encoder_layers" if s.startswith("encoder")
              else "decoder_layers"])] for s in SUBLAYERS},
        "positions": {m: get(f"positions {m}") for m in ("off", "shuffled")},
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model",
                   default=os.path.join(ROOT, "models", "heed-en-de-int8.heed"))
    p.add_argument("--heed",
                   default=os.path.join(ROOT, "build", "release", "heed"))
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval",
                                                 "importance.json"))
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    p.add_argument("--sentences", type=int, default=None,
                   help="the first N sentences only (a quick look)")
    args = p.parse_args()
    c = config(args.heed, args.model)
    runner = Runner(args)
    plan = runs(c)
    single = runner.all([(d, name, flags) for d in runner.sets
                         for name, flags in plan])
    heads = [name.split(" ", 1)[1] for name, _ in plan
             if name.startswith("head ")]
    order, curve = pruning(runner, single, heads)
    seconds = round(time.time() - runner.start)
    result = {
        "model": os.path.basename(args.model),
        "model_sha256": sha256(args.model), "set": "multi30k val",
        "sentences": len(runner.sets["en-de"][0]), "beam": args.beam,
        "runs": runner.total, "seconds": seconds, "jobs": args.jobs,
        "cpu": cpu_name(),
        "directions": {d: dict(nest(single, c, d), pruning=curve[d])
                       for d in runner.sets},
        "pruning_order": order,
    }
    with open(args.out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")
    print(f"{runner.total} runs of {result['sentences']} sentences in "
          f"{seconds} s on {args.jobs} jobs ({result['cpu']})")
    for d, r in result["directions"].items():
        base = r["baseline"]["bleu"]
        subs = ", ".join(f"{s}:{l} {base - v['bleu']:+.1f}"
                         for s, layers in r["sublayers"].items()
                         for l, v in enumerate(layers))
        print(f"{d}: baseline BLEU {base}; drop without {subs}; positions "
              f"off {base - r['positions']['off']['bleu']:+.1f}, shuffled "
              f"{base - r['positions']['shuffled']['bleu']:+.1f}")


if __name__ == "__main__":
    main()
