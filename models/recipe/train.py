#!/usr/bin/python3
"""Trains heed's English<->German model and exports it in the heed format.

  /usr/bin/python3 models/recipe/train.py --minutes 100      # CPU, resumes
  /usr/bin/python3 models/recipe/train.py --device cuda ...  # on a GPU

Stages (each skipped when its output exists in --work):
  1. data: training pairs (data.py) and a joint SentencePiece model
     (spm_train, 8000 pieces, <2de>/<2en> as user-defined symbols);
  2. train: the paper's recipe - Adam (0.9, 0.98), inverse-square-root
     warm-up, label smoothing 0.1, token-bucketed batches, gradient
     clipping, bf16 autocast where the CPU computes bf16 natively (else
     f32) - with a checkpoint every few minutes;
  3. export: the final weights as F16 to --out, and the mean of the last
     checkpoints' weights (average.py) to OUT-avg.heed.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import average  # noqa: E402
import data  # noqa: E402
import heedfile  # noqa: E402
from transformer import Transformer, heed_tensors, load_heed_tensors  # noqa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TAGS = {"de": "<2de>", "en": "<2en>"}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--work", default=os.path.join(ROOT, "models", "work"))
    p.add_argument("--out", default=os.path.join(ROOT, "models",
                                                 "heed-en-de.heed"))
    p.add_argument("--device", default="cpu")
    p.add_argument("--minutes", type=float, default=100.0,
                   help="training time budget (wall clock, this run)")
    p.add_argument("--vocab", type=int, default=8000)
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--d-ff", type=int, default=1024)
    p.add_argument("--encoder-layers", type=int, default=3)
    p.add_argument("--decoder-layers", type=int, default=3)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--batch-tokens", type=int, default=6000,
                   help="source+target tokens per batch")
    p.add_argument("--lr", type=float, default=1.0e-3, help="peak rate")
    p.add_argument("--warmup", type=int, default=1000)
    p.add_argument("--max-len", type=int, default=100)
    p.add_argument("--checkpoint-minutes", type=float, default=5.0)
    p.add_argument("--warm-start", default=None,
                   help="a heed model file to continue training from")
    p.add_argument("--marian-conventions", action="store_true",
                   help="from scratch: Marian's positions (sines, then "
                   "cosines) and decoder start (zeros), as the shipped "
                   "model has, so that Marian and Bergamot run it as it is")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--data-seed", type=int, default=0,
                   help="batch order seed; a new run on top of an old one "
                   "passes a new value so it does not repeat the same order")
    p.add_argument("--snapshots", type=int, default=4,
                   help="keep the weights of this many last checkpoints in "
                   "work/snapshots and also export their average "
                   "(OUT-avg.heed); 0: neither")
    p.add_argument("--mix", default="",
                   help="times each source is repeated per epoch, for "
                   "example news=2,anki=3 (the rest keep data.py's weights)")
    p.add_argument("--encode-only", action="store_true",
                   help="write work/examples.npz and stop (for a GPU run)")
    p.add_argument("--precision", default="auto",
                   choices=["auto", "bf16", "fp16", "f32"],
                   help="auto: bf16 on CPUs with native bf16, else f32; "
                   "fp16 on CUDA")
    return p.parse_args()


def parse_mix(text):
    """'news=2,anki=3' -> {'news': 2, 'anki': 3}."""
    mix = {}
    for item in filter(None, text.split(",")):
        name, _, times = item.partition("=")
        if not times.isdigit():
            sys.exit(f"--mix: expected source=times, got {item!r}")
        mix[name.strip()] = int(times)
    return mix


def prepare(work, vocab, mix):
    """Writes work/pairs.tsv and work/spm.model once."""
    os.makedirs(work, exist_ok=True)
    pairs_path = os.path.join(work, "pairs.tsv")
    if not os.path.exists(pairs_path):
        pairs, counts = data.training_pairs(repeats=mix)
        with open(pairs_path, "w", encoding="utf-8") as f:
            for en, de in pairs:
                f.write(f"{en}\t{de}\n")
        with open(os.path.join(work, "data.json"), "w") as f:
            json.dump(counts, f, indent=1)
        print(f"data: {len(pairs)} pairs {json.dumps(counts)}", flush=True)
    spm_prefix = os.path.join(work, "spm")
    if not os.path.exists(spm_prefix + ".model"):
        text = os.path.join(work, "spm_input.txt")
        with open(pairs_path, encoding="utf-8") as f, \
                open(text, "w", encoding="utf-8") as out:
            for line in f:
                en, de = line.rstrip("\n").split("\t")
                out.write(en + "\n" + de + "\n")
        subprocess.run(
            ["spm_train", f"--input={text}", f"--model_prefix={spm_prefix}",
             f"--vocab_size={vocab}", "--model_type=unigram",
             "--character_coverage=1.0", "--pad_id=0", "--bos_id=1",
             "--eos_id=2", "--unk_id=3",
             "--user_defined_symbols=" + ",".join(TAGS.values()),
             "--input_sentence_size=1000000", "--shuffle_input_sentence=true",
             "--minloglevel=1"], check=True)
    return pairs_path, spm_prefix + ".model"


def use_tokenizer_of(model_path, work):
    """A warm start keeps the model's own vocabulary: its SentencePiece
    model becomes work/spm.model."""
    os.makedirs(work, exist_ok=True)
    target = os.path.join(work, "spm.model")
    if not os.path.exists(target):
        _, _, stored = heedfile.read(model_path)
        with open(target, "wb") as f:
            f.write(bytes(stored["tokenizer.source"]))


def precision(device, wanted):
    """bf16 autocast only where the CPU computes bf16 natively (AVX512-BF16
    or AMX): elsewhere PyTorch emulates it and runs ~60x slower than f32."""
    if device != "cpu":
        return "fp16" if wanted == "auto" else wanted
    if wanted != "auto":
        return wanted
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        flags = ""
    return "bf16" if ("avx512_bf16" in flags or "amx_bf16" in flags) \
        else "f32"


def encode_pairs(pairs_path, spm_model, max_len):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=spm_model)
    tag = {lang: sp.piece_to_id(t) for lang, t in TAGS.items()}
    en, de = [], []
    with open(pairs_path, encoding="utf-8") as f:
        for line in f:
            a, b = line.rstrip("\n").split("\t")
            en.append(a)
            de.append(b)
    en_ids, de_ids = sp.encode(en), sp.encode(de)
    eos = sp.eos_id()
    examples = []
    for e, d in zip(en_ids, de_ids):
        if len(e) + 2 > max_len or len(d) + 1 > max_len:
            continue
        examples.append(([tag["de"]] + e + [eos], d + [eos]))  # en -> de
        examples.append(([tag["en"]] + d + [eos], e + [eos]))  # de -> en
    return examples, sp.get_piece_size()


def load_examples(args):
    """Training examples, from work/examples.npz when it exists (made once
    by --encode-only; a machine that trains from it needs neither the data
    nor SentencePiece), else from the data."""
    cache = os.path.join(args.work, "examples.npz")
    spm_model = os.path.join(args.work, "spm.model")
    if os.path.exists(cache):
        z = np.load(cache)
        ids, src_end, tgt_end = z["ids"].tolist(), z["src_end"], z["tgt_end"]
        examples, start = [], 0
        for s_end, t_end in zip(src_end.tolist(), tgt_end.tolist()):
            examples.append((ids[start:s_end], ids[s_end:t_end]))
            start = t_end
        return examples, int(z["vocab"]), spm_model
    pairs_path, spm_model = prepare(args.work, args.vocab,
                                     parse_mix(args.mix))
    examples, vocab = encode_pairs(pairs_path, spm_model, args.max_len)
    if args.encode_only:
        flat, src_end, tgt_end = [], [], []
        for s, t in examples:
            flat.extend(s)
            src_end.append(len(flat))
            flat.extend(t)
            tgt_end.append(len(flat))
        np.savez_compressed(cache, ids=np.array(flat, dtype=np.uint16),
                            src_end=np.array(src_end, dtype=np.int64),
                            tgt_end=np.array(tgt_end, dtype=np.int64),
                            vocab=vocab)
        print(f"encoded: {cache} ({os.path.getsize(cache) / 1e6:.1f} MB)")
        sys.exit(0)
    return examples, vocab, spm_model


def make_batches(examples, batch_tokens, rng):
    """Length-bucketed batches of about batch_tokens padded tokens."""
    order = sorted(range(len(examples)),
                   key=lambda i: (len(examples[i][0]), len(examples[i][1]),
                                  rng.random()))
    batches, batch, longest = [], [], 0
    for i in order:
        s, t = examples[i]
        size = max(longest, len(s) + len(t))
        if batch and size * (len(batch) + 1) > batch_tokens:
            batches.append(batch)
            batch, size = [], len(s) + len(t)
        batch.append(i)
        longest = size
    if batch:
        batches.append(batch)
    rng.shuffle(batches)
    return batches


def collate(examples, batch, pad, bos, device):
    src = [examples[i][0] for i in batch]
    tgt = [examples[i][1] for i in batch]
    S, T = max(map(len, src)), max(map(len, tgt))
    s = torch.full((len(batch), S), pad, dtype=torch.long)
    ti = torch.full((len(batch), T), pad, dtype=torch.long)
    to = torch.full((len(batch), T), pad, dtype=torch.long)
    for k, (a, b) in enumerate(zip(src, tgt)):
        s[k, :len(a)] = torch.tensor(a)
        ti[k, :len(b)] = torch.tensor([bos] + b[:-1])
        to[k, :len(b)] = torch.tensor(b)
    return s.to(device), ti.to(device), to.to(device)


def export(model, spm_model, out):
    spm_bytes = np.frombuffer(open(spm_model, "rb").read(), dtype=np.uint8)
    tensors = heed_tensors(model)
    tensors["tokenizer.source"] = spm_bytes
    tensors["tokenizer.target"] = spm_bytes
    heedfile.write(out, model.config, tensors, np.float16)
    print(f"export: {out} ({os.path.getsize(out) / 1e6:.1f} MB)", flush=True)


def keep_snapshot(work, step, model, config, keep):
    """The model's weights at this checkpoint in work/snapshots, the last
    `keep` of them kept (average.py averages them)."""
    folder = os.path.join(work, "snapshots")
    os.makedirs(folder, exist_ok=True)
    torch.save({"model": model.state_dict(), "config": config},
               os.path.join(folder, f"step-{step:07d}.pt"))
    for old in average.snapshots(work)[:-keep]:
        os.remove(old)


def main():
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    if args.warm_start:
        use_tokenizer_of(args.warm_start, args.work)
        _, stored_config, _ = heedfile.read(args.warm_start)
        for key in ("d_model", "heads", "d_ff", "encoder_layers",
                    "decoder_layers"):
            setattr(args, key, stored_config[key])
    examples, vocab, spm_model = load_examples(args)
    print(f"data: {len(examples)} examples, vocab {vocab}", flush=True)
    config = {"d_model": args.d_model, "heads": args.heads, "d_ff": args.d_ff,
              "encoder_layers": args.encoder_layers,
              "decoder_layers": args.decoder_layers,
              "source_vocab": vocab, "target_vocab": vocab,
              "activation": "relu", "pre_norm": False,
              "shared_embeddings": True, "tied_output": True,
              "target_tags": TAGS, "trained_max_length": args.max_len}
    if args.warm_start:
        # Marian's conventions (marian.py conventions) stay with the model.
        for key in ("positions", "decoder_start"):
            if key in stored_config:
                config[key] = stored_config[key]
    elif args.marian_conventions:
        config.update(positions="halves", decoder_start="zeros")
    model = Transformer(config, dropout=args.dropout).to(args.device)
    pad, bos = model.config["pad_id"], model.config["bos_id"]
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98),
                           eps=1e-9)
    ckpt_path = os.path.join(args.work, "checkpoint.pt")
    state = {"step": 0, "epoch": 0, "batch": 0, "seconds": 0.0}
    if os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path, map_location=args.device)
        model.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optimizer"])
        state = ckpt["state"]
        print(f"resume: step {state['step']}", flush=True)
    elif args.warm_start:
        _, _, stored = heedfile.read(args.warm_start)
        load_heed_tensors(model, stored)
        print(f"warm start from {args.warm_start}", flush=True)

    def save():
        tmp = ckpt_path + ".tmp"
        torch.save({"model": model.state_dict(),
                    "optimizer": opt.state_dict(), "state": state,
                    "config": config}, tmp)
        os.replace(tmp, ckpt_path)
        if args.snapshots > 0:
            keep_snapshot(args.work, state["step"], model, config,
                          args.snapshots)

    mode = precision(args.device, args.precision)
    print(f"precision: {mode} on {args.device}", flush=True)
    device_type = "cuda" if args.device.startswith("cuda") else "cpu"
    autocast = torch.autocast(
        device_type, enabled=mode != "f32",
        dtype=torch.float16 if mode == "fp16" else torch.bfloat16)
    scaler = torch.cuda.amp.GradScaler(enabled=mode == "fp16")
    start = time.time()
    last_ckpt = start
    tokens_seen, loss_sum, loss_n, log_t = 0, 0.0, 0, time.time()
    done = False
    while not done:
        seed = 1000 * (args.data_seed + 1) + state["epoch"]
        batches = make_batches(examples, args.batch_tokens,
                               random.Random(seed))
        while state["batch"] < len(batches):
            batch = batches[state["batch"]]
            state["batch"] += 1
            src, tgt_in, tgt_out = collate(examples, batch, pad, bos,
                                           args.device)
            step = state["step"] + 1
            lr = args.lr * min(step / args.warmup,
                               math.sqrt(args.warmup / step))
            for g in opt.param_groups:
                g["lr"] = lr
            model.train()
            with autocast:
                logits = model(src, tgt_in)
                loss = F.cross_entropy(logits.float().view(-1, vocab),
                                       tgt_out.view(-1), ignore_index=pad,
                                       label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            state["step"] = step
            n = int(tgt_out.ne(pad).sum())
            tokens_seen += n
            loss_sum += float(loss) * n
            loss_n += n
            if step % 100 == 0:
                now = time.time()
                print(f"step {step} epoch {state['epoch']} "
                      f"loss {loss_sum / loss_n:.3f} lr {lr:.2e} "
                      f"{tokens_seen / (now - log_t):.0f} tgt tok/s",
                      flush=True)
                tokens_seen, loss_sum, loss_n, log_t = 0, 0.0, 0, now
            now = time.time()
            if now - last_ckpt > 60 * args.checkpoint_minutes:
                state["seconds"] += now - last_ckpt
                last_ckpt = now
                save()
            if now - start > 60 * args.minutes:
                done = True
                break
        if not done:
            state["epoch"] += 1
            state["batch"] = 0
    state["seconds"] += time.time() - last_ckpt
    save()
    print(f"trained: {state['step']} steps, {state['epoch']} epochs, "
          f"{state['seconds'] / 60:.1f} minutes in all", flush=True)
    model.eval()
    export(model.cpu(), spm_model, args.out)
    averaged = average.averaged_model(args.work, args.snapshots)
    if averaged is not None:
        export(averaged, spm_model, args.out.replace(".heed", "-avg.heed"))
    with open(os.path.join(args.work, "train_state.json"), "w") as f:
        json.dump(state, f)


if __name__ == "__main__":
    main()
