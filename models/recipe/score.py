#!/usr/bin/python3
"""BLEU and chrF as sacreBLEU defines them (its defaults), for one reference
per segment: BLEU with the 13a tokeniser and exponential smoothing; chrF
with character n-grams up to 6, β = 2, whitespace removed, precision and
recall averaged over the effective orders before the F-score.

  score.py HYPOTHESES REFERENCES     prints BLEU and chrF
"""
import math
import re
import sys
from collections import Counter

_13A = [(re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
        (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
        (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
        (re.compile(r"([0-9])(-)"), r"\1 \2 ")]


def tokenize_13a(line):
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = (line.replace("&quot;", '"').replace("&amp;", "&")
                .replace("&lt;", "<").replace("&gt;", ">"))
    line = f" {line} "
    for pattern, repl in _13A:
        line = pattern.sub(repl, line)
    return " ".join(line.split())


def _ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def bleu(hypotheses, references, max_order=4):
    """Corpus BLEU (0-100) and its parts."""
    correct, total = [0] * max_order, [0] * max_order
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references, strict=True):
        h, r = tokenize_13a(hyp).split(), tokenize_13a(ref).split()
        hyp_len += len(h)
        ref_len += len(r)
        for n in range(1, max_order + 1):
            hc, rc = _ngrams(h, n), _ngrams(r, n)
            correct[n - 1] += sum(min(c, rc[g]) for g, c in hc.items())
            total[n - 1] += max(0, len(h) - n + 1)
    precisions = [0.0] * max_order
    smooth = 1.0
    for n in range(max_order):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            precisions[n] = 100.0 / (smooth * total[n])
        else:
            precisions[n] = 100.0 * correct[n] / total[n]
    if hyp_len == 0:
        bp = 0.0
    elif hyp_len < ref_len:
        bp = math.exp(1 - ref_len / hyp_len)
    else:
        bp = 1.0
    if min(precisions) <= 0:
        score = 0.0
    else:
        score = bp * math.exp(sum(math.log(p) for p in precisions) / max_order)
    return {"score": score, "precisions": precisions, "bp": bp,
            "hyp_len": hyp_len, "ref_len": ref_len}


def chrf(hypotheses, references, order=6, beta=2.0):
    """Corpus chrF (0-100)."""
    stats = [[0, 0, 0] for _ in range(order)]  # hyp, ref, match per order
    for hyp, ref in zip(hypotheses, references, strict=True):
        h, r = "".join(hyp.split()), "".join(ref.split())
        for n in range(1, order + 1):
            hc = Counter(h[i:i + n] for i in range(len(h) - n + 1))
            rc = Counter(r[i:i + n] for i in range(len(r) - n + 1))
            s = stats[n - 1]
            s[0] += sum(hc.values())
            s[1] += sum(rc.values())
            s[2] += sum(min(c, rc[g]) for g, c in hc.items())
    avg_p = avg_r = 0.0
    effective = 0
    for n_hyp, n_ref, n_match in stats:
        if n_hyp > 0 and n_ref > 0:
            avg_p += n_match / n_hyp
            avg_r += n_match / n_ref
            effective += 1
    if effective == 0:
        return 0.0
    avg_p /= effective
    avg_r /= effective
    if avg_p + avg_r == 0:
        return 0.0
    factor = beta ** 2
    return 100 * (1 + factor) * avg_p * avg_r / (factor * avg_p + avg_r)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        hyps = [line.rstrip("\n") for line in f]
    with open(sys.argv[2], encoding="utf-8") as f:
        refs = [line.rstrip("\n") for line in f]
    b = bleu(hyps, refs)
    print(f"BLEU {b['score']:.2f} chrF {chrf(hyps, refs):.2f}")


if __name__ == "__main__":
    main()
