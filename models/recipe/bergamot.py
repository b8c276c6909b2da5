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
share of the disagreements from any difference in the model. With
--marian-int8 (a file from marian_int8.py) it also compares one int8 scheme
in both engines: heed running that file, Bergamot its intgemm8 export with
int8shiftAlphaAll.
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


def compare(heed_out, bergamot_out, src, ref):
    same = sum(a == b for a, b in zip(heed_out, bergamot_out))
    return {"sentences": len(src), "identical": same,
            "identical_share": round(same / len(src), 4),
            "bleu_heed": round(score.bleu(heed_out, ref)["score"], 2),
            "bleu_bergamot": round(score.bleu(bergamot_out, ref)["score"], 2),
            "differences": [
                {"source": s, "heed": a, "bergamot": b,
                 "first_different_word": first_difference(a, b)}
                for s, a, b in zip(src, heed_out, bergamot_out) if a != b]}


def export(model, folder):
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "models", "recipe",
                                                     "marian.py"),
                    "export", "--model", model, "--out", folder], check=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "models",
                                                   "heed-en-de.heed"))
    p.add_argument("--marian-int8",
                   help="the model quantised in Marian's scheme "
                   "(marian_int8.py): also compared, heed against "
                   "Bergamot's int8shiftAlphaAll on its export")
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--simd", default="SSE4",
                   help="heed's --simd TARGET: SSE4 (or AVX3 with VNNI, or "
                   "WebAssembly) rounds to 127 levels as intgemm does; AVX2 "
                   "rounds again to 63/64 so that no int16 sum saturates")
    p.add_argument("--work", default=os.path.join(ROOT, "models", "work",
                                                  "marian"))
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval",
                                                 "bergamot.json"))
    args = p.parse_args()
    export(args.model, args.work)
    if args.marian_int8:
        export(args.marian_int8, args.work + "-int8")
    int8 = args.model.replace(".heed", "-int8.heed")
    en, de = data.multi30k("test_2016_flickr")
    report = {"set": "multi30k test_2016_flickr", "heed": os.path.basename(int8),
              "bergamot": "@browsermt/bergamot-translator 0.4.9, "
              "gemm-precision int8shiftAll, beam 1",
              "heed_flags": f"--beam 1 --no-repeat-ngram-size 0 "
              f"--copy-unknown 0 --simd {args.simd}",
              "directions": {}}
    # Bergamot has neither rule: it repeats, and writes " ⁇ " for <unk>.
    flags = ["--no-repeat-ngram-size", "0", "--copy-unknown", "0",
             "--simd", args.simd]
    for src, ref, to in ((en, de, "de"), (de, en, "en")):
        ours, _ = translate(args.heed, int8, src, to, 1, flags)
        d = report["directions"][to] = compare(
            ours, bergamot(args.work, src, to), src, ref)
        # The same function without either engine's int8: heed's float
        # model against Bergamot's float32 arithmetic.
        ours_f, _ = translate(args.heed, args.model, src, to, 1, flags)
        theirs_f = bergamot(args.work, src, to, precision="float32")
        d["float32_identical"] = sum(a == b for a, b in zip(ours_f, theirs_f))
        print(f"to {to}, float32 (heed {os.path.basename(args.model)}): "
              f"identical {d['float32_identical']}/{len(src)}", flush=True)
        print(f"to {to}: identical {d['identical']}/{len(src)} "
              f"({100 * d['identical_share']:.1f}%), BLEU heed "
              f"{d['bleu_heed']} bergamot {d['bleu_bergamot']}", flush=True)
        if args.marian_int8:
            # One int8 scheme in both engines: the same integers.
            ours_m, _ = translate(args.heed, args.marian_int8, src, to, 1,
                                  flags)
            m = d["marian_scheme"] = compare(
                ours_m, bergamot(args.work + "-int8", src, to), src, ref)
            m["heed"] = os.path.basename(args.marian_int8)
            m["bergamot"] = "int8shiftAlphaAll, intgemm8 export"
            print(f"to {to}, Marian's int8 scheme in both: identical "
                  f"{m['identical']}/{len(src)} "
                  f"({100 * m['identical_share']:.1f}%), BLEU heed "
                  f"{m['bleu_heed']} bergamot {m['bleu_bergamot']}",
                  flush=True)
    with open(args.out, "w") as f:
        json.dump(report, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
