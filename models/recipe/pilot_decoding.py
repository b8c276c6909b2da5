#!/usr/bin/python3
"""Dev BLEU (beam 4) of one model under several decoding settings, to
choose the engine's defaults:

  /usr/bin/python3 models/recipe/pilot_decoding.py [--model FILE] \\
      [--group repetition|length]

repetition: rules against repetition, into models/eval/decoding.json;
length: the length penalty α (the others at the engine's defaults), into
models/eval/length_penalty.json.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import ROOT, dev_scores  # noqa: E402

REPETITION = {
    "off": ["--no-repeat-ngram-size", "0", "--repetition-penalty", "1"],
    "no_repeat_ngram_size 2": ["--no-repeat-ngram-size", "2",
                               "--repetition-penalty", "1"],
    "no_repeat_ngram_size 3": ["--no-repeat-ngram-size", "3",
                               "--repetition-penalty", "1"],
    "no_repeat_ngram_size 4": ["--no-repeat-ngram-size", "4",
                               "--repetition-penalty", "1"],
    "repetition_penalty 1.2": ["--no-repeat-ngram-size", "0",
                               "--repetition-penalty", "1.2"],
}
LENGTH = {f"length_penalty {a}": ["--length-penalty", a]
          for a in ("0.6", "2.0", "3.0")}
GROUPS = {"repetition": (REPETITION, "decoding.json"),
          "length": (LENGTH, "length_penalty.json")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "models",
                                                   "heed-en-de.heed"))
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--group", default="repetition", choices=sorted(GROUPS))
    p.add_argument("--only", default=None,
                   help="one setting, merged into an existing report")
    args = p.parse_args()
    settings, name = GROUPS[args.group]
    path = os.path.join(ROOT, "models", "eval", name)
    report = {"model": os.path.basename(args.model), "settings": {}}
    if args.only:
        report = json.load(open(path))
    for setting, flags in settings.items():
        if args.only and setting != args.only:
            continue
        scores, mean = dev_scores(args.heed, args.model, flags)
        report["settings"][setting] = {"dev": scores, "mean": mean}
        print(setting, mean, json.dumps(scores), flush=True)
    order = list(settings)
    report["settings"] = dict(sorted(report["settings"].items(),
                                     key=lambda kv: order.index(kv[0])))
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
