#!/usr/bin/python3
"""Prints the model card's tables (Markdown) from models/eval/*.json:

  /usr/bin/python3 models/recipe/card.py
"""
import json
import os

EVAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval")
FLOORS = {("multi30k test_2016_flickr", "de-en"): 36,
          ("multi30k test_2016_flickr", "en-de"): 33,
          ("tatoeba-test-v2021-08-07", "de-en"): 25,
          ("tatoeba-test-v2021-08-07", "en-de"): 20,
          ("newstest2014", "de-en"): 10, ("newstest2014", "en-de"): 8}


def load(*parts):
    path = os.path.join(EVAL, *parts)
    return json.load(open(path)) if os.path.exists(path) else None


def scores_table(f16, int8):
    def index(report):
        return {(r["set"], r["direction"], r["beam"]): r
                for r in report["results"]}
    a, b = index(f16), index(int8)
    print("| set | direction | BLEU greedy | BLEU beam 4 | chrF beam 4 "
          "| int8 BLEU beam 4 | int8 chrF | floor (int8, beam 4) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for (name, direction, beam), r in a.items():
        if beam != 4:
            continue
        g = a.get((name, direction, 1), {"bleu": "–"})
        q = b.get((name, direction, 4), {})
        floor = FLOORS.get((name, direction))
        mark = ""
        if floor is not None and "bleu" in q:
            mark = f"≥ {floor} " + ("✓" if q["bleu"] >= floor else "✗")
        print(f"| {name} | {direction} | {g['bleu']} | {r['bleu']} "
              f"| {r['chrf']} | {q.get('bleu', '')} | {q.get('chrf', '')} "
              f"| {mark} |")


def curve_table(curve):
    keys = list(curve[0]["dev"])
    print("| run | hours (cumulative) | " + " | ".join(keys) +
          " | mean | kept | what changed |")
    print("| ---: | ---: | " + " | ".join("---:" for _ in keys) +
          " | ---: | --- | --- |")
    for p in curve:
        print(f"| {p['run']} | {p['hours']} | " +
              " | ".join(str(p["dev"][k]) for k in keys) +
              f" | {p['mean']} | {'yes' if p['kept'] else 'no'} "
              f"| {p['note']} |")


def decoding_table(report):
    settings = report["settings"]
    keys = list(next(iter(settings.values()))["dev"])
    print("| setting | " + " | ".join(keys) + " | mean |")
    print("| --- | " + " | ".join("---:" for _ in keys) + " | ---: |")
    for name, s in settings.items():
        print(f"| {name} | " + " | ".join(str(s["dev"][k]) for k in keys) +
              f" | {s['mean']} |")


def everyday_table(report):
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import data
    en, de = data.everyday()
    out = {r["direction"]: r for r in report["results"]
           if r["set"] == "everyday" and r["beam"] == 4}
    for direction, src in (("en-de", en), ("de-en", de)):
        r = out[direction]
        print(f"\n{direction}: BLEU {r['bleu']}, chrF {r['chrf']}\n")
        print("| source | heed (int8, beam 4) |\n| --- | --- |")
        for s, h in zip(src, r["outputs"]):
            print(f"| {s} | {h} |")


def main():
    f16, int8 = load("scores.json"), load("int8", "scores.json")
    if f16 and int8:
        scores_table(f16, int8)
    curve = load("curve.json")
    if curve:
        print()
        curve_table(curve)
    decoding = load("decoding.json")
    if decoding:
        print()
        decoding_table(decoding)
    if int8 and any(r["set"] == "everyday" for r in int8["results"]):
        everyday_table(int8)


if __name__ == "__main__":
    main()
