#!/usr/bin/python3
"""Length and distance (Tang et al., EMNLP 2018, "Why Self-Attention?"):
BLEU and chrF of the page's model by source length, and how far its most
important heads (models/eval/importance.json) look in each length bucket.

  /usr/bin/python3 models/recipe/lengths.py

Pools Multi30k test_2016_flickr, the first 1,000 sentences of
tatoeba-test-v2021-08-07 and newstest2014, each direction, translated with
the engine's defaults; buckets by source words. Writes
models/eval/lengths.json and docs/lengths.svg, and prints the table of
docs/heads.md.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import heads  # noqa: E402
import importance  # noqa: E402
import score  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HEED = os.path.join(ROOT, "build", "release", "heed")
MODEL = os.path.join(ROOT, "models", "heed-en-de-int8.heed")
BUCKETS = [(1, 5), (6, 10), (11, 15), (16, 20), (21, 30), (31, 40),
           (41, 10**6)]
IMPORTANT = 3  # heads per direction whose distance is followed


def pairs():
    """{direction: [(source, reference)]}."""
    m_en, m_de = data.multi30k("test_2016_flickr")
    t_en, t_de = data.testset("deu-eng/tatoeba-test-v2021-08-07")
    n_en, n_de = data.testset("deu-eng/newstest2014")
    en = m_en + t_en[:1000] + n_en
    de = m_de + t_de[:1000] + n_de
    return {"en-de": list(zip(en, de)), "de-en": list(zip(de, en))}


def bucket_name(lo, hi):
    return f"{lo}+" if hi >= 10**6 else f"{lo}-{hi}"


def translate(lines, to):
    out = subprocess.run([HEED, "translate", "--model", MODEL, "--to", to],
                         input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout
    return out.split("\n")[:len(lines)]


def important_heads(direction):
    """The IMPORTANT heads whose switching off cost the most BLEU."""
    with open(os.path.join(ROOT, "models", "eval", "importance.json")) as f:
        d = json.load(f)["directions"][direction]
    drops = []
    for kind, layers in d["heads"].items():
        for l, row in enumerate(layers):
            for h, s in enumerate(row):
                drops.append((d["baseline"]["bleu"] - s["bleu"], kind, l, h))
    return sorted(drops, reverse=True)[:IMPORTANT]


def measure(direction, items):
    to = direction.split("-")[1]
    hyps = translate([s for s, _ in items], to)
    important = important_heads(direction)
    rows = []
    for lo, hi in BUCKETS:
        idx = [i for i, (s, _) in enumerate(items)
               if lo <= len(s.split()) <= hi]
        if not idx:
            continue
        h = [hyps[i] for i in idx]
        r = [items[i][1] for i in idx]
        roles = heads.roles(HEED, MODEL, [items[i][0] for i in idx],
                            to)["roles"]
        rows.append({
            "bucket": bucket_name(lo, hi), "sentences": len(idx),
            "bleu": round(score.bleu(h, r)["score"], 2),
            "chrf": round(score.chrf(h, r), 2),
            "encoder_distance": round(sum(
                x["distance"] for layer in roles["encoder"] for x in layer) /
                sum(len(layer) for layer in roles["encoder"]), 2),
            "important": [{"head": f"{k}:{l}:{hh}", "drop": round(drop, 2),
                           "distance": round(
                               roles[k][l][hh]["distance"], 2)}
                          for drop, k, l, hh in important]})
    return rows


def svg(result):
    """BLEU by length bucket, one line per direction."""
    w, h, left, bottom, top = 520, 260, 44, 40, 16
    names = [r["bucket"] for r in result["en-de"]]
    step = (w - left - 20) / max(1, len(names) - 1)
    top_score = max(r["bleu"] for d in ("en-de", "de-en") for r in result[d])
    ymax = 10 * (int(top_score // 10) + 1)

    def y(v):
        return h - bottom - v / ymax * (h - bottom - top)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" '
           f'height="{h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" '
           'stroke="#999"/>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" '
           f'y2="{h - bottom}" stroke="#999"/>']
    for v in range(0, ymax + 1, 10):
        out.append(f'<text x="8" y="{y(v) + 4:.1f}">{v}</text>')
    for i, n in enumerate(names):
        out.append(f'<text x="{left + i * step - 10:.1f}" '
                   f'y="{h - bottom + 16}">{n}</text>')
    out.append(f'<text x="{left + 60}" y="{h - 6}">source words '
               '(BLEU, beam 4)</text>')
    for k, (d, color) in enumerate((("en-de", "#1f77b4"),
                                    ("de-en", "#d95f02"))):
        pts = " ".join(f"{left + i * step:.1f},{y(r['bleu']):.1f}"
                       for i, r in enumerate(result[d]))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{color}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{w - 70}" y="{top + 14 * (k + 1)}" '
                   f'fill="{color}">{d}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    result = {d: measure(d, items) for d, items in pairs().items()}
    result["model_sha256"] = importance.sha256(MODEL)
    with open(os.path.join(ROOT, "models", "eval", "lengths.json"), "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    with open(os.path.join(ROOT, "docs", "lengths.svg"), "w") as f:
        f.write(svg(result))
    print("| direction | source words | sentences | BLEU | chrF | encoder "
          "heads' mean distance | most important heads: distance |")
    print("|---|---|---|---|---|---|---|")
    for d in ("en-de", "de-en"):
        for r in result[d]:
            imp = ", ".join(f"{x['head']} {x['distance']}"
                            for x in r["important"])
            print(f"| {d} | {r['bucket']} | {r['sentences']} | {r['bleu']} | "
                  f"{r['chrf']} | {r['encoder_distance']} | {imp} |")


if __name__ == "__main__":
    main()
