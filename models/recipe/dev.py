#!/usr/bin/python3
"""Scores a candidate model against the shipped one on the dev sets and
keeps it only when its dev BLEU improved.

  /usr/bin/python3 models/recipe/dev.py --candidate models/work/run/candidate.heed \\
      [models/work/run/candidate-avg.heed] --minutes 105 \\
      [--baseline models/heed-en-de.heed] [--dry-run] [--start-hours H]

Dev sets, never trained on and never reported as test scores: Multi30k
val, the Ding dictionary's held-out sentence slice (ding.is_dev) and the
first 1,000 lines of newstest2018; both directions, beam 4, with the heed
CLI. The mean of the six BLEU scores decides (between several candidates
of one run, such as its last weights and the average of its last
checkpoints, the best one is the run's). Every run's point goes into
models/eval/curve.json (dev BLEU against cumulative training hours), kept
or not; a kept candidate replaces the baseline file and its int8 copy.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import score  # noqa: E402
from evaluate import translate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CURVE = os.path.join(ROOT, "models", "eval", "curve.json")


def dev_sets():
    """name -> (en lines, de lines)."""
    en, de = data.testset("deu-eng/newstest2018")
    return {"multi30k val": data.multi30k("val"),
            "ding dev": data.ding_dev(),
            "newstest2018[:1000]": (en[:1000], de[:1000])}


# The curve's decoding since its first point: beam 4 and the defaults of
# that day (length penalty 0.6), whatever the engine's defaults are now, so
# that its points differ by training alone.
CURVE_FLAGS = ("--length-penalty", "0.6")


def dev_scores(heed, model, extra_flags=CURVE_FLAGS):
    """{'set direction': BLEU} and their mean."""
    jobs = []
    for name, (en, de) in dev_sets().items():
        jobs.append((f"{name} de-en", de, en, "en"))
        jobs.append((f"{name} en-de", en, de, "de"))

    def run(job):
        key, src, ref, to = job
        hyp, _ = translate(heed, model, src, to, 4, extra_flags)
        return key, round(score.bleu(hyp, ref)["score"], 2)

    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        scores = dict(pool.map(run, jobs))
    return scores, round(sum(scores.values()) / len(scores), 2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--candidate", required=True, nargs="+",
                   help="model files of one run; the best on dev is its")
    p.add_argument("--baseline", default=os.path.join(ROOT, "models",
                                                      "heed-en-de.heed"))
    p.add_argument("--minutes", type=float, required=True,
                   help="training minutes the candidate added")
    p.add_argument("--note", default="", help="what the run changed")
    p.add_argument("--start-hours", type=float,
                   help="training hours of the weights this run started "
                        "from (default: the last kept point's; a run that "
                        "resumed a run not kept starts from that run's)")
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--dry-run", action="store_true",
                   help="score and print, change nothing")
    args = p.parse_args()
    curve = json.load(open(CURVE)) if os.path.exists(CURVE) else []
    kept = [point for point in curve if point["kept"]]
    hours = kept[-1]["hours"] if kept else 0.0
    if args.start_hours is not None:
        hours = args.start_hours
    base, base_mean = dev_scores(args.heed, args.baseline)
    scored = []
    for path in args.candidate:
        cand, cand_mean = dev_scores(args.heed, path)
        print(json.dumps({"candidate": path, "dev": cand, "mean": cand_mean},
                         indent=1), flush=True)
        scored.append((cand_mean, path, cand))
    cand_mean, candidate, cand = max(scored)
    print(json.dumps({"baseline": base, "baseline_mean": base_mean,
                      "best": candidate, "best_mean": cand_mean},
                     indent=1), flush=True)
    better = cand_mean > base_mean
    note = args.note
    if len(scored) > 1:
        note += f" (best of {len(scored)}: {os.path.basename(candidate)})"
    if args.dry_run:
        return
    if not kept:  # the shipped model's own point starts the curve
        curve.append({"run": 1, "hours": round(95 / 60, 2), "dev": base,
                      "mean": base_mean, "kept": True,
                      "note": "from scratch, bf16, 100k pairs"})
        hours = curve[-1]["hours"]
    curve.append({"run": curve[-1]["run"] + 1,
                  "hours": round(hours + args.minutes / 60, 2), "dev": cand,
                  "mean": cand_mean, "kept": better, "note": note})
    with open(CURVE, "w") as f:
        json.dump(curve, f, indent=1)
    if better:
        shutil.copyfile(candidate, args.baseline)
        int8 = args.baseline.replace(".heed", "-int8.heed")
        subprocess.run([args.heed, "quantize", "--model", args.baseline,
                        "--out", int8], check=True)
        print(f"kept: dev BLEU {base_mean} -> {cand_mean}", flush=True)
    else:
        print(f"not kept: dev BLEU {base_mean} -> {cand_mean}", flush=True)


if __name__ == "__main__":
    main()
