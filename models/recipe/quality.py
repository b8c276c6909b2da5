#!/usr/bin/python3
"""Which per-sentence signal warns of a bad translation (docs/faithfulness.md):
Spearman's ρ between each signal and the sentence's chrF against its
reference, over Multi30k test_2016_flickr, 500 Tatoeba test sentences and
500 newstest2014 sentences per direction (the page's int8 model, the
engine's defaults).

  /usr/bin/python3 models/recipe/quality.py

Signals, each from the result's own fields: the mean log-probability of
the target pieces (confidence), the lowest piece probability, the mean
entropy of the steps, and the source share, ‖cross‖ / (‖cross‖ + ‖self‖)
of the sublayer norms averaged over decoder layers and steps (low: the
decoder wrote from its own words, not the source; after Ferrando et al.
2022 and Dale et al. 2023), and ALTI+'s source contribution (Ferrando et
al. 2022; the last decoder layer's source columns, summed per step and
averaged over steps), the signal Dale et al. used. Writes models/eval/quality.json, with the
threshold of the page's warning mark (the best signal's top 10%) and what
that mark is worth.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import faithfulness  # noqa: E402
import importance  # noqa: E402
import score  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HEED = os.path.join(ROOT, "build", "release", "heed")
MODEL = os.path.join(ROOT, "models", "heed-en-de-int8.heed")
CHUNK = 100


def signals(s):
    """The sentence's signals (higher: more trust)."""
    p = np.asarray(s["tokenProbabilities"], float)
    norms = np.asarray(s["attention"]["contributions"]["sublayerNorms"],
                       float)  # (layers, T, 4)
    share = norms[:, :, 3] / np.maximum(norms[:, :, 3] + norms[:, :, 1],
                                        1e-9)
    alti = np.asarray(s["attention"]["alti"]["decoder"][-1], float)
    sources = len(s["sourcePieces"])  # (T, S + T): source columns first
    return {"mean log-probability": float(np.mean(np.log(p))),
            "lowest piece probability": float(np.min(p)),
            "mean entropy (negated)": -float(np.mean(s["entropies"])),
            "source share": float(np.mean(share)),
            "ALTI+ source contribution":
                float(np.mean(alti[:, :sources].sum(1)))}


def measure(sources, references, to):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.json")
        for k in range(0, len(sources), CHUNK):
            out = subprocess.run(
                [HEED, "translate", "--model", MODEL, "--to", to,
                 "--contributions", "1", "--alti", "1",
                 "--attention-json", path],
                input="\n".join(sources[k:k + CHUNK]) + "\n", text=True,
                capture_output=True, check=True).stdout.split("\n")
            with open(path) as f:
                for i, r in enumerate(json.load(f)):
                    if not r or len(r["sentences"]) != 1:
                        continue  # one sentence per line: one signal each
                    ref = references[k + i]
                    rows.append({"chrf": score.chrf([out[i]], [ref]),
                                 **signals(r["sentences"][0])})
    names = [n for n in rows[0] if n != "chrf"]
    chrf = [r["chrf"] for r in rows]
    return {"sentences": len(rows),
            "rho": {n: round(faithfulness.spearman([r[n] for r in rows],
                                                   chrf), 4)
                    for n in names},
            "warning": warning(rows)}


def warning(rows, share=0.1):
    """The page's mark: sentences whose steps' mean entropy is in the top
    `share` of the test sentences, with what that flag is worth: their mean
    chrF against the rest's, and how many of the worst `share` by chrF it
    catches."""
    entropy = np.array([-r["mean entropy (negated)"] for r in rows])
    chrf = np.array([r["chrf"] for r in rows])
    above = float(np.quantile(entropy, 1 - share))
    flagged = entropy > above
    worst = chrf <= np.quantile(chrf, share)
    return {"signal": "mean entropy of the steps (nats)",
            "above": round(above, 4), "flagged": int(flagged.sum()),
            "chrf_flagged": round(float(chrf[flagged].mean()), 2),
            "chrf_rest": round(float(chrf[~flagged].mean()), 2),
            "worst_caught": round(float((flagged & worst).sum()
                                        / max(1, worst.sum())), 4)}


def main():
    m_en, m_de = data.multi30k("test_2016_flickr")
    t_en, t_de = data.testset("deu-eng/tatoeba-test-v2021-08-07")
    n_en, n_de = data.testset("deu-eng/newstest2014")
    en = m_en + t_en[:500] + n_en[:500]
    de = m_de + t_de[:500] + n_de[:500]
    result = {"model": os.path.basename(MODEL),
              "model_sha256": importance.sha256(MODEL),
              "directions": {"en-de": measure(en, de, "de"),
                             "de-en": measure(de, en, "en")}}
    with open(os.path.join(ROOT, "models", "eval", "quality.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("| signal | ρ with chrF, en→de | de→en |")
    print("|---|---|---|")
    for n in result["directions"]["en-de"]["rho"]:
        a = result["directions"]["en-de"]["rho"][n]
        b = result["directions"]["de-en"]["rho"][n]
        print(f"| {n} | {a:.3f} | {b:.3f} |")


if __name__ == "__main__":
    main()
