#!/usr/bin/python3
"""heed's model in Bergamot's WebAssembly engine, against heed itself.

  /usr/bin/python3 models/recipe/bergamot.py [--model models/heed-en-de.heed]

Exports the model (marian.py export), translates Multi30k test_2016 both
ways with Bergamot's engine (npm @browsermt/bergamot-translator, in Node,
int8shiftAll, greedy) and with heed's int8 model (greedy, no repetition
rules, which Marian lacks), and writes models/eval/bergamot.json: the share
of identical outputs, BLEU of each, and every disagreement with the first
word where the two part; then the same without int8 (heed's float model,
Bergamot's float32 arithmetic), which tells the two quantisation schemes'
share of the disagreements from any difference in the model.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import score  # noqa: E402
from evaluate import translate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def bergamot(folder, lines, to, beam=1, precision=None):
    extra = ["--precision", precision] if precision else []
    out = subprocess.run(
        ["node", os.path.join(ROOT, "bench", "peers", "bergamot_cli.mjs"),
         folder, to, "--beam", str(beam), *extra],
        input="\n".join(lines) + "\n", capture_output=True, text=True,
        check=True).stdout.split("\n")[:len(lines)]
    return out


def first_difference(a, b):
    wa, wb = a.split(), b.split()
    for i, (x, y) in enumerate(zip(wa, wb)):
        if x != y:
            return i
    return min(len(wa), len(wb))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "models",
                                                   "heed-en-de.heed"))
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--work", default=os.path.join(ROOT, "models", "work",
                                                  "marian"))
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval",
                                                 "bergamot.json"))
    args = p.parse_args()
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "models", "recipe",
                                                     "marian.py"),
                    "export", "--model", args.model, "--out", args.work],
                   check=True)
    int8 = args.model.replace(".heed", "-int8.heed")
    en, de = data.multi30k("test_2016_flickr")
    report = {"set": "multi30k test_2016_flickr", "heed": os.path.basename(int8),
              "bergamot": "@browsermt/bergamot-translator 0.4.9, "
              "gemm-precision int8shiftAll, beam 1",
              "heed_flags": "--beam 1 --no-repeat-ngram-size 0",
              "directions": {}}
    for src, ref, to in ((en, de, "de"), (de, en, "en")):
        ours, _ = translate(args.heed, int8, src, to, 1,
                            ["--no-repeat-ngram-size", "0"])
        theirs = bergamot(args.work, src, to)
        same = sum(a == b for a, b in zip(ours, theirs))
        diffs = [{"source": s, "heed": a, "bergamot": b,
                  "first_different_word": first_difference(a, b)}
                 for s, a, b in zip(src, ours, theirs) if a != b]
        report["directions"][to] = {
            "sentences": len(src), "identical": same,
            "identical_share": round(same / len(src), 4),
            "bleu_heed": round(score.bleu(ours, ref)["score"], 2),
            "bleu_bergamot": round(score.bleu(theirs, ref)["score"], 2),
            "differences": diffs}
        # The same function without either engine's int8: heed's float
        # model against Bergamot's float32 arithmetic.
        ours_f, _ = translate(args.heed, args.model, src, to, 1,
                              ["--no-repeat-ngram-size", "0"])
        theirs_f = bergamot(args.work, src, to, precision="float32")
        same_f = sum(a == b for a, b in zip(ours_f, theirs_f))
        report["directions"][to]["float32_identical"] = same_f
        d = report["directions"][to]
        print(f"to {to}, float32 (heed {os.path.basename(args.model)}): "
              f"identical {same_f}/{len(src)}", flush=True)
        print(f"to {to}: identical {same}/{len(src)} "
              f"({100 * same / len(src):.1f}%), BLEU heed "
              f"{d['bleu_heed']} bergamot {d['bleu_bergamot']}", flush=True)
    with open(args.out, "w") as f:
        json.dump(report, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
