#!/usr/bin/python3
"""How well each attention-based picture agrees with erasure, the ground
truth of what the model does when a source piece is taken away
(docs/faithfulness.md): for every target piece of the page's model's
translation, the Spearman rank correlation between its erasure effects
over the source pieces (tag and EOS left out) and each picture's weights
on the same pieces, averaged over pieces and sentences.

  /usr/bin/python3 models/recipe/faithfulness.py [--sentences 500]

Pictures: cross-attention of every layer and head and its mean over heads,
the norm-based contributions (Kobayashi et al. 2020) of every head, their
mean over heads and the whole layer's ‖Σ_h α f(x)‖, and ALTI+ (Ferrando
et al. 2022) rolled up to each decoder layer, its source columns. Multi30k
test_2016_flickr and tatoeba-test-v2021-08-07, the first N sentences of
each, both directions; the engine's defaults, erasure by removal. Writes
models/eval/faithfulness.json and prints the table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import importance  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CHUNK = 50  # lines per CLI call (the JSON of one call is held in memory)


def ranks(x):
    """Ranks of x, ties averaged (as scipy.stats.rankdata)."""
    order = np.argsort(x, kind="mergesort")
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    values = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and values[j + 1] == values[i]:
            j += 1
        r[order[i:j + 1]] = (i + j) / 2
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rho, or None where either side is constant (that token
    is left out)."""
    ra, rb = ranks(np.asarray(a, float)), ranks(np.asarray(b, float))
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


def pictures(att):
    """name -> (T, S) map of every picture of one sentence."""
    out = {}
    cross = np.asarray(att["cross"])  # (L, H, T, S)
    contrib = np.asarray(att["contributions"]["cross"])
    layer = np.asarray(att["contributions"]["layer"]["cross"])  # (L, T, S)
    alti = np.asarray(att["alti"]["decoder"])  # (L, T, S + T)
    sources = cross.shape[3]
    for l in range(cross.shape[0]):
        out[f"attention {l} mean"] = cross[l].mean(0)
        out[f"contributions {l} mean"] = contrib[l].mean(0)
        out[f"contributions {l} layer"] = layer[l]
        out[f"alti {l}"] = alti[l, :, :sources]
        for h in range(cross.shape[1]):
            out[f"attention {l}.{h}"] = cross[l, h]
            out[f"contributions {l}.{h}"] = contrib[l, h]
    return out


def sentence_scores(s, sums):
    """Adds one sentence's per-token correlations, and whether the picture's
    and erasure's largest source piece agree, to sums."""
    pieces = s["sourcePieces"]
    keep = [j for j, p in enumerate(pieces)
            if p != "</s>" and not (p.startswith("<2") and p.endswith(">"))]
    if len(keep) < 2:
        return
    effect = np.asarray(s["erasure"]["effect"])[:, keep]
    for name, m in pictures(s["attention"]).items():
        s_rho = sums.setdefault(name, [0.0, 0.0, 0])  # Σρ, Σ top-1, tokens
        for t in range(effect.shape[0]):
            rho = spearman(m[t, keep], effect[t])
            if rho is not None:
                s_rho[0] += rho
                s_rho[1] += float(np.argmax(m[t, keep]) ==
                                  np.argmax(effect[t]))
                s_rho[2] += 1


def measure(heed, model, lines, to):
    sums = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.json")
        for k in range(0, len(lines), CHUNK):
            subprocess.run(
                [heed, "translate", "--model", model, "--to", to,
                 "--contributions", "1", "--alti", "1",
                 "--erasure", "remove",
                 "--attention-json", path],
                input="\n".join(lines[k:k + CHUNK]) + "\n", text=True,
                check=True, stdout=subprocess.DEVNULL)
            with open(path) as f:
                for r in json.load(f):
                    for s in (r or {}).get("sentences", []):
                        sentence_scores(s, sums)
            print(f"{to}: {min(k + CHUNK, len(lines))}/{len(lines)}",
                  file=sys.stderr, flush=True)
    return {n: {"rho": round(rho / k, 4), "top1": round(top / k, 4),
                "tokens": k} for n, (rho, top, k) in sums.items() if k}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model",
                   default=os.path.join(ROOT, "models", "heed-en-de-int8.heed"))
    p.add_argument("--heed",
                   default=os.path.join(ROOT, "build", "release", "heed"))
    p.add_argument("--sentences", type=int, default=500,
                   help="from each set, per direction")
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval",
                                                 "faithfulness.json"))
    args = p.parse_args()
    n = args.sentences
    m_en, m_de = data.multi30k("test_2016_flickr")
    t_en, t_de = data.testset("deu-eng/tatoeba-test-v2021-08-07")
    sets = {"en-de": (m_en[:n] + t_en[:n], "de"),
            "de-en": (m_de[:n] + t_de[:n], "en")}
    result = {"model": os.path.basename(args.model),
              "model_sha256": importance.sha256(args.model),
              "sets": ["multi30k test_2016_flickr",
                       "tatoeba-test-v2021-08-07"],
              "sentences_per_set": n, "erasure": "remove",
              "directions": {d: measure(args.heed, args.model, lines, to)
                             for d, (lines, to) in sets.items()}}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    names = sorted(result["directions"]["en-de"],
                   key=lambda k: -result["directions"]["en-de"][k]["rho"])
    print("| picture (layer.head, from 0) | ρ en-de | ρ de-en | top-1 en-de "
          "| top-1 de-en |")
    print("|---|---|---|---|---|")
    for name in names:
        a, b = (result["directions"][d][name] for d in ("en-de", "de-en"))
        print(f"| {name} | {a['rho']:.3f} | {b['rho']:.3f} | "
              f"{a['top1']:.2f} | {b['top1']:.2f} |")


if __name__ == "__main__":
    main()
