"""Repetition in translations of generaltest2023, heed's beside every WMT 2023
system's: how many outputs repeat a 2-gram three times where the human
reference A does not (the measure evaluate.py reports as
new_bigram_repeats), and how many loop (an n-gram of up to 4 words three
times in a row, evaluate.loops) where it does not. The systems' outputs come
from ../shared/data/wmt-systems; only systems that translated at least 95%
of the set are counted, over the sources they translated.

    /usr/bin/python3 models/recipe/repeats.py --hypotheses DIR

DIR holds heed's outputs as evaluate.py --hypotheses writes them
(generaltest2023.de-en.beam4.txt, ...). Writes models/eval/repeats.json and
prints a Markdown table.
"""
import argparse
import json
import os
from collections import defaultdict

import wmt
from evaluate import loops, repeats_bigram

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def counts(pairs):
    """(new 2-gram repeats, new loops) over (output, reference) pairs."""
    pairs = list(pairs)
    return {
        "outputs": len(pairs),
        "bigram_repeats": sum(1 for o, r in pairs
                              if repeats_bigram(o) and not repeats_bigram(r)),
        "loops": sum(1 for o, r in pairs if loops(o) and not loops(r)),
    }


def direction(name, hypotheses, beam):
    sources, references = wmt.test_reference(name)
    reference = dict(zip(sources, references))
    path = os.path.join(hypotheses, f"generaltest2023.{name}.beam{beam}.txt")
    with open(path, encoding="utf-8") as f:
        ours = f.read().split("\n")[:len(sources)]
    rows = {"heed": counts(zip(ours, references))}
    systems = defaultdict(dict)
    for source, target, origin in wmt.rows(f"generaltest2023.{name}"):
        if ".hyp." in origin:
            systems[origin.split(".hyp.")[1].rsplit(".", 1)[0]][source] = target
    for system, outputs in sorted(systems.items()):
        if len(outputs) >= 0.95 * len(sources):
            rows[system] = counts((outputs[s], reference[s])
                                  for s in sources if s in outputs)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hypotheses", required=True)
    p.add_argument("--beam", type=int, default=4)
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval",
                                                 "repeats.json"))
    args = p.parse_args()
    report = {name: direction(name, args.hypotheses, args.beam)
              for name in ("de-en", "en-de")}
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    systems = ["heed"] + sorted((set(report["de-en"]) |
                                 set(report["en-de"])) - {"heed"})
    print("| system | de-en 2-gram ×3 | de-en loops | en-de 2-gram ×3 | "
          "en-de loops |\n| --- | ---: | ---: | ---: | ---: |")
    for s in systems:
        cells = []
        for name in ("de-en", "en-de"):
            c = report[name].get(s)
            cells += ["", ""] if c is None else \
                [str(c["bigram_repeats"]), str(c["loops"])]
        print(f"| {s} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
