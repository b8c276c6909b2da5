#!/usr/bin/python3
"""Head roles of the page's model over the test sets (docs/heads.md):
Multi30k test_2016_flickr and the first 1,000 sentences of
tatoeba-test-v2021-08-07, each direction, through `heed heads` with the
engine's defaults.

  /usr/bin/python3 models/recipe/heads.py [--model M] [--out F] [--check]

Writes models/eval/heads.json (the page's Head roles view reads it) and prints
the table of docs/heads.md. --check recomputes and fails unless the file
matches (within 0.01: another SIMD target may move a near-tie).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import importance  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TATOEBA = 1000
FIELDS = ("confidence", "previous", "same", "next", "rare", "boundary",
          "distance")


def sentences():
    """{direction: source lines} over both test sets."""
    m_en, m_de = data.multi30k("test_2016_flickr")
    t_en, t_de = data.testset("deu-eng/tatoeba-test-v2021-08-07")
    return {"en-de": m_en + t_en[:TATOEBA], "de-en": m_de + t_de[:TATOEBA]}


def roles(heed, model, lines, to):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "heads.json")
        subprocess.run([heed, "heads", "--model", model, "--to", to,
                        "--out", out], input="\n".join(lines) + "\n",
                       text=True, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def compute(heed, model):
    return {"model": os.path.basename(model),
            "model_sha256": importance.sha256(model),
            "sets": ["multi30k test_2016_flickr",
                     f"tatoeba-test-v2021-08-07 (first {TATOEBA})"],
            "directions": {d: roles(heed, model, lines, d.split("-")[1])
                           for d, lines in sentences().items()}}


def table(result):
    """Markdown: per direction and head, its statistics and role."""
    rows = ["| direction | kind | layer | head | confidence | previous | same "
            "| next | rare | boundary | distance | role |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for d, r in result["directions"].items():
        for kind, layers in r["roles"].items():
            for l, heads in enumerate(layers):
                for h, s in enumerate(heads):
                    values = " | ".join(f"{s[k]:.2f}" for k in FIELDS)
                    rows.append(f"| {d} | {kind} | {l} | {h} | {values} | "
                                f"{s['role']} |")
    return "\n".join(rows)


def differences(a, b):
    """Fields of a and b that differ by more than 0.01."""
    out = []
    for d, r in a["directions"].items():
        for kind, layers in r["roles"].items():
            for l, heads in enumerate(layers):
                for h, s in enumerate(heads):
                    t = b["directions"][d]["roles"][kind][l][h]
                    out += [f"{d} {kind} {l}.{h} {k}: {s[k]} vs {t[k]}"
                            for k in FIELDS if abs(s[k] - t[k]) > 0.01]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model",
                   default=os.path.join(ROOT, "models", "heed-en-de-int8.heed"))
    p.add_argument("--out",
                   default=os.path.join(ROOT, "models", "eval", "heads.json"))
    p.add_argument("--heed",
                   default=os.path.join(ROOT, "build", "release", "heed"))
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    result = compute(args.heed, args.model)
    if args.check:
        with open(args.out) as f:
            shipped = json.load(f)
        diff = differences(result, shipped)
        if diff:
            sys.exit(f"{args.out} is not the model's: run "
                     "models/recipe/heads.py\n" + "\n".join(diff[:20]))
        print(f"{args.out} matches the model")
        return
    with open(args.out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")
    print(table(result))


if __name__ == "__main__":
    main()
