#!/usr/bin/python3
"""Dev BLEU (beam 4) of one model under several rules against repetition,
to choose the engine's defaults:

  /usr/bin/python3 models/recipe/pilot_decoding.py [--model FILE]

Writes models/eval/decoding.json.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dev import ROOT, dev_scores  # noqa: E402

SETTINGS = {
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "models",
                                                   "heed-en-de.heed"))
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--only", default=None,
                   help="one setting, merged into an existing report")
    args = p.parse_args()
    path = os.path.join(ROOT, "models", "eval", "decoding.json")
    report = {"model": os.path.basename(args.model), "settings": {}}
    if args.only:
        report = json.load(open(path))
    for name, flags in SETTINGS.items():
        if args.only and name != args.only:
            continue
        scores, mean = dev_scores(args.heed, args.model, flags)
        report["settings"][name] = {"dev": scores, "mean": mean}
        print(name, mean, json.dumps(scores), flush=True)
    order = list(SETTINGS)
    report["settings"] = dict(sorted(report["settings"].items(),
                                     key=lambda kv: order.index(kv[0])))
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
