#!/usr/bin/python3
"""Scores a heed model with the engine itself (the heed CLI), greedy and
beam 4, on the held-out sets, and checks that PyTorch and heed agree on
greedy output.

  /usr/bin/python3 models/recipe/evaluate.py --model models/heed-en-de.heed

Writes models/eval/scores.json, a Markdown table on stdout, and the
PyTorch/heed parity report (differences logged to models/eval/).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import data  # noqa: E402
import score  # noqa: E402
import wmt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# (name, loader) -> (en lines, de lines)
SETS = [
    ("multi30k test_2016_flickr", lambda: data.multi30k("test_2016_flickr")),
    ("multi30k test_2017_flickr", lambda: data.multi30k("test_2017_flickr")),
    ("tatoeba-test-v2021-08-07",
     lambda: data.testset("deu-eng/tatoeba-test-v2021-08-07")),
    ("newstest2014", lambda: data.testset("deu-eng/newstest2014")),
    ("everyday", lambda: data.everyday()),
    # Paragraphs (WMT 2023, held out from training), one test per direction:
    # {target language: (sources, references)}, human reference A.
    ("generaltest2023", lambda: {"en": wmt.test_reference("de-en"),
                                 "de": wmt.test_reference("en-de")}),
]


def repeats_bigram(text, times=3):
    """Whether some word 2-gram occurs `times` times or more in text."""
    words = text.split()
    seen = {}
    for pair in zip(words, words[1:]):
        seen[pair] = seen.get(pair, 0) + 1
        if seen[pair] >= times:
            return True
    return False


def new_repeats(references, outputs):
    """Outputs that repeat a 2-gram three times where the reference (the
    same language, unlike the source) does not. In a paragraph this counts
    "in the" three times as well as a loop (models/recipe/repeats.py)."""
    return sum(1 for r, o in zip(references, outputs)
               if repeats_bigram(o) and not repeats_bigram(r))


def loops(text, times=3, longest=4):
    """Whether some n-gram (n <= longest words) occurs `times` times in a
    row: "radio radio radio", "the city the city the city"."""
    words = text.split()
    for n in range(1, longest + 1):
        for i in range(len(words) - n * times + 1):
            first = words[i:i + n]
            if all(words[i + k * n:i + (k + 1) * n] == first
                   for k in range(1, times)):
                return True
    return False


def new_loops(references, outputs):
    """Outputs with a loop (loops()) where the reference has none."""
    return sum(1 for r, o in zip(references, outputs)
               if loops(o) and not loops(r))


def write_hypotheses(folder, result, outputs):
    """One job's outputs, a line each, named after its set, direction and
    beam: for reading the repeats and errors behind a score."""
    os.makedirs(folder, exist_ok=True)
    name = (f"{result['set'].replace(' ', '_')}.{result['direction']}"
            f".beam{result['beam']}.txt")
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        f.write("".join(o + "\n" for o in outputs))


def translate(heed, model, lines, to, beam, extra_flags=()):
    t0 = time.time()
    out = subprocess.run([heed, "translate", "--model", model, "--to", to,
                          "--beam", str(beam), *extra_flags],
                         input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.split("\n")[:len(lines)]
    return out, time.time() - t0


def parity(heed, model, lines, to, out_dir):
    """Fraction of lines where PyTorch greedy == heed greedy."""
    import sentencepiece as spm
    import torch
    import heedfile
    import search
    from transformer import Transformer, load_heed_tensors
    torch.set_num_threads(os.cpu_count())
    _, config, tensors = heedfile.read(model)
    m = Transformer(config).eval()
    load_heed_tensors(m, tensors)
    sp = spm.SentencePieceProcessor(
        model_proto=bytes(tensors["tokenizer.source"]))
    tag = sp.piece_to_id(config["target_tags"][to])
    # PyTorch's greedy search has no rules against repetition, and writes
    # SentencePiece's " ⁇ " for the unknown piece.
    theirs, _ = translate(heed, model, lines, to, 1,
                          ["--no-repeat-ngram-size", "0",
                           "--repetition-penalty", "1",
                           "--copy-unknown", "0"])
    same, diffs = 0, []
    for line, h in zip(lines, theirs):
        ids = [tag] + sp.encode(line) + [config["eos_id"]]
        tokens, _ = search.greedy(m, ids)
        mine = sp.decode([t for t in tokens if t != config["eos_id"]])
        if mine == h:
            same += 1
        else:
            diffs.append({"source": line, "pytorch": mine, "heed": h})
    with open(os.path.join(out_dir, f"parity_{to}.json"), "w") as f:
        json.dump(diffs, f, ensure_ascii=False, indent=1)
    return same / len(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=os.path.join(ROOT, "models",
                                                   "heed-en-de.heed"))
    p.add_argument("--heed", default=os.path.join(ROOT, "build", "release",
                                                  "heed"))
    p.add_argument("--out", default=os.path.join(ROOT, "models", "eval"))
    p.add_argument("--limit", type=int, default=0,
                   help="score only the first N lines of each set")
    p.add_argument("--parity", type=int, default=500)
    p.add_argument("--simd", default="",
                   help="heed's --simd TARGET: AVX2 gives the kernel the "
                        "card's columns were measured with on any x86 CPU")
    p.add_argument("--sets", default="",
                   help="score only these sets (comma-separated names)")
    p.add_argument("--beams", default="1,4",
                   help="beam sizes to score, comma-separated")
    p.add_argument("--hypotheses", default="",
                   help="also write each job's outputs to this folder, one "
                        "file per set, direction and beam")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    jobs = []
    wanted = set(filter(None, args.sets.split(",")))
    for name, load in SETS:
        if wanted and name not in wanted:
            continue
        loaded = load()
        if isinstance(loaded, dict):
            pairs = [(*loaded[to], to) for to in ("en", "de")]
        else:
            en, de = loaded
            pairs = [(de, en, "en"), (en, de, "de")]
        for src, ref, to in pairs:
            if args.limit:
                src, ref = src[:args.limit], ref[:args.limit]
            for beam in map(int, args.beams.split(",")):
                jobs.append((name, src, ref, to, beam))

    def run(job):
        name, src, ref, to, beam = job
        hyp, seconds = translate(args.heed, args.model, src, to, beam,
                                 ("--simd", args.simd) if args.simd else ())
        r = {"set": name, "direction": "de-en" if to == "en" else "en-de",
             "beam": beam, "lines": len(src),
             "bleu": round(score.bleu(hyp, ref)["score"], 2),
             "chrf": round(score.chrf(hyp, ref), 2),
             "new_bigram_repeats": new_repeats(ref, hyp),
             "new_loops": new_loops(ref, hyp),
             "seconds": round(seconds, 1)}
        print(json.dumps(r), flush=True)
        if args.hypotheses:
            write_hypotheses(args.hypotheses, r, hyp)
        if name == "everyday" and beam == 4:
            r["outputs"] = hyp
        return r

    # heed translates on one thread: one CLI per core.
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        results = list(pool.map(run, jobs))
    report = {"model": os.path.basename(args.model), "results": results}
    if args.parity:
        en, de = data.multi30k("test_2016_flickr")
        report["parity_greedy"] = {
            "de-en": parity(args.heed, args.model, de[:args.parity], "en",
                            args.out),
            "en-de": parity(args.heed, args.model, en[:args.parity], "de",
                            args.out)}
        print("parity", report["parity_greedy"], flush=True)
    with open(os.path.join(args.out, "scores.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("\n| set | direction | beam | BLEU | chrF |\n| --- | --- | --- | ---: | ---: |")
    for r in results:
        print(f"| {r['set']} | {r['direction']} | {r['beam']} | {r['bleu']} "
              f"| {r['chrf']} |")


if __name__ == "__main__":
    main()
