#!/usr/bin/python3
"""The PyTorch peer: the recipe's model with incremental decoding
(cached.py), greedy and beam search over batches.

  /usr/bin/python3 bench/peers/torch_peer.py JOB.json RESULT.json

JOB: {"model": path, "threads": n, "beam": k, "batch": b,
      "sources": [[ids]], "runs": r}
RESULT: {"outputs": [[ids]], "seconds": [per run], "latency": [per batch,
         last run], "load_seconds": s, "peak_rss_bytes": n}
"""
import json
import os
import resource
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "models", "recipe"))
import heedfile  # noqa: E402
from cached import DecoderStep, Encoder, empty_cache  # noqa: E402
from transformer import Transformer, load_heed_tensors  # noqa: E402


def pad(batch, pad_id):
    n = max(len(s) for s in batch)
    return torch.tensor([s + [pad_id] * (n - len(s)) for s in batch])


def penalty(length, alpha=2.0):  # heed's default α
    return ((5.0 + length) / 6.0) ** alpha


@torch.no_grad()
def translate(enc, step, c, batch, beam):
    """Greedy (beam 1) or beam search for a batch of sources; returns the
    best token ids per source (without </s>)."""
    eos, bos = c["eos_id"], c["bos_id"]
    src = pad(batch, c["pad_id"])
    ck, cv, bias = enc(src)
    B, k = len(batch), beam
    limit = [int(2.0 * len(s) + 10) for s in batch]
    # Rows: B * k hypotheses, row b*k + j.
    rows = B * k
    ck, cv = ck.repeat_interleave(k, 1), cv.repeat_interleave(k, 1)
    bias = bias.repeat_interleave(k, 0)
    pk, pv = empty_cache(step.m, rows), empty_cache(step.m, rows)
    tokens = torch.full((rows, 1), bos)
    scores = torch.zeros(B, k)
    scores[:, 1:] = float("-inf")  # the k copies of <s> are one hypothesis
    seqs = [[[] for _ in range(k)] for _ in range(B)]
    done = [[] for _ in range(B)]  # (normalised score, ids)
    finished = [False] * B
    for t in range(max(limit)):
        lp, pk, pv = step(tokens, torch.tensor([t]), pk, pv, ck, cv, bias)
        lp[:, c["pad_id"]] = float("-inf")
        V = lp.shape[1]
        total = (scores.view(-1, 1) + lp).view(B, k * V)
        top, idx = total.topk(2 * k, dim=1)
        parents, next_tok = [], []
        new_scores = torch.full((B, k), float("-inf"))
        new_seqs = []
        for b in range(B):
            kept = []
            if not finished[b]:
                for s, i in zip(top[b].tolist(), idx[b].tolist()):
                    j, w = divmod(i, V)
                    if s == float("-inf"):
                        break
                    ids = seqs[b][j] + [w]
                    if w == eos or t + 1 >= limit[b]:
                        done[b].append((s / penalty(len(ids)), ids[:-1]
                                        if w == eos else ids))
                    else:
                        kept.append((s, j, w, ids))
                    if len(kept) == k:
                        break
                if len(done[b]) >= k or not kept or t + 1 >= limit[b]:
                    finished[b] = True
            row_seqs = []
            for n in range(k):
                if n < len(kept) and not finished[b]:
                    s, j, w, ids = kept[n]
                    new_scores[b, n] = s
                    parents.append(b * k + j)
                    next_tok.append(w)
                    row_seqs.append(ids)
                else:
                    parents.append(b * k)
                    next_tok.append(eos)
                    row_seqs.append([])
            new_seqs.append(row_seqs)
        if all(finished):
            break
        order = torch.tensor(parents)
        pk, pv = pk[:, order], pv[:, order]
        tokens = torch.tensor(next_tok)[:, None]
        scores, seqs = new_scores, new_seqs
    return [max(d)[1] if d else [] for d in done]


def main():
    job = json.load(open(sys.argv[1]))
    torch.set_num_threads(job["threads"])
    t0 = time.perf_counter()
    _, config, tensors = heedfile.read(job["model"])
    model = Transformer(config).eval()
    load_heed_tensors(model, tensors)
    enc, step = Encoder(model).eval(), DecoderStep(model).eval()
    load = time.perf_counter() - t0
    c = model.config
    sources, beam, batch = job["sources"], job["beam"], job["batch"]
    seconds, latency, outputs = [], [], []
    for _ in range(job["runs"]):
        outputs, latency = [], []
        start = time.perf_counter()
        for i in range(0, len(sources), batch):
            b0 = time.perf_counter()
            outputs += translate(enc, step, c, sources[i:i + batch], beam)
            latency.append(time.perf_counter() - b0)
        seconds.append(time.perf_counter() - start)
    json.dump({"outputs": outputs, "seconds": seconds, "latency": latency,
               "load_seconds": load,
               "peak_rss_bytes": resource.getrusage(
                   resource.RUSAGE_SELF).ru_maxrss * 1024},
              open(sys.argv[2], "w"))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
