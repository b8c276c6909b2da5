"""Greedy and beam search over the PyTorch Transformer, with the rules heed
documents (core/decode/search.h): ties go to the earlier hypothesis, then the
lower token id; padding is never produced; GNMT length penalty; a sentence
ends when beam_size hypotheses have finished or at its length limit.

Each step recomputes the decoder over the whole prefix (no cache), so it is
an independent check of heed's incremental decoder.
"""
import numpy as np
import torch


def max_length(source_length, ratio, extra):
    return max(1, int(ratio * source_length + extra))


def length_penalty(length, alpha):
    return np.power(np.float32((5.0 + length) / 6.0), np.float32(alpha))


def _next_log_probs(model, memory, pad_mask, prefixes):
    """log-probs (N, V) float32 of the token after each prefix."""
    bos = model.config["bos_id"]
    tgt = torch.tensor([[bos] + p for p in prefixes], dtype=torch.long)
    n = len(prefixes)
    logits, _, _ = model.decode(tgt, memory.expand(n, -1, -1),
                                pad_mask.expand(n, -1))
    lp = torch.log_softmax(logits[:, -1].double(), -1).float().numpy()
    lp[:, model.config["pad_id"]] = -np.inf
    return lp


def _top(lp, k):
    order = np.lexsort((np.arange(lp.shape[0]), -lp))  # by -lp, then id
    return order[:k]


@torch.no_grad()
def greedy(model, src_ids, ratio=2.0, extra=10, alpha=2.0):
    memory, pad_mask, _ = model.encode(torch.tensor([src_ids]))
    limit = max_length(len(src_ids), ratio, extra)
    tokens, cum = [], np.float32(0)
    while len(tokens) < limit:
        lp = _next_log_probs(model, memory, pad_mask, [tokens])[0]
        tok = int(_top(lp, 1)[0])
        cum = np.float32(cum + lp[tok])
        tokens.append(tok)
        if tok == model.config["eos_id"]:
            break
    return tokens, float(cum / length_penalty(len(tokens), alpha))


@torch.no_grad()
def beam(model, src_ids, k=4, nbest=4, ratio=2.0, extra=10, alpha=2.0):
    eos = model.config["eos_id"]
    memory, pad_mask, _ = model.encode(torch.tensor([src_ids]))
    limit = max_length(len(src_ids), ratio, extra)
    alive = [([], np.float32(0))]
    finished = []
    for step in range(1, limit + 1):
        lp = _next_log_probs(model, memory, pad_mask, [a[0] for a in alive])
        expansions = []
        for row, (tokens, cum) in enumerate(alive):
            for tok in _top(lp[row], 2 * k):
                expansions.append((np.float32(cum + lp[row, tok]), row,
                                   int(tok)))
        expansions.sort(key=lambda e: -e[0])  # stable
        at_limit = step >= limit
        penalty = length_penalty(step, alpha)
        new_alive, kept = [], 0
        for i, (cum, row, tok) in enumerate(expansions):
            if kept >= k:
                break
            ends = tok == eos
            if ends and i >= k:
                continue
            tokens = alive[row][0] + [tok]
            if ends or at_limit:
                finished.append((float(np.float32(cum / penalty)), tokens))
                if not ends:
                    kept += 1
                continue
            new_alive.append((tokens, cum))
            kept += 1
        if at_limit or len(finished) >= k:
            break
        alive = new_alive
    finished.sort(key=lambda f: -f[0])
    return [{"tokens": t, "score": s} for s, t in finished[:nbest]]
