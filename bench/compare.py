#!/usr/bin/python3
"""heed against PyTorch, ONNX Runtime (native and Web) and Bergamot's
WebAssembly engine (Firefox's), same machine, same run, on the shipped model
and held-out sentences (Multi30k test 2016).

  bash bench/run.sh [--runs N] [--systems a,b,...]   (installs what it needs)

Workloads (both directions):
  latency-greedy  200 sentences one at a time, greedy
  latency-beam4   200 sentences one at a time, beam 4
  batch32-beam4   1,000 sentences in batches of 32, beam 4 (throughput)
Each system translates in a process of its own; figures are medians over
--runs runs: target tokens per second (tokens counted the same way for every
system: SentencePiece pieces of the output plus </s>), per-sentence latency
(median, p90), model load time, peak RSS, and BLEU of the output against the
references, so that nobody wins by translating worse. Writes
build/bench/results.json and prints Markdown tables with heed's ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "models", "recipe"))
import data  # noqa: E402
import heedfile  # noqa: E402
import score  # noqa: E402

OUT = os.path.join(ROOT, "build", "bench")
F16 = os.path.join(ROOT, "models", "heed-en-de.heed")
INT8 = os.path.join(ROOT, "models", "heed-en-de-int8.heed")
NODE = "node"

WORKLOADS = [("latency-greedy", 200, 1, 1), ("latency-beam4", 200, 1, 4),
             ("batch32-beam4", 1000, 32, 4)]

# name -> (kind, settings)
SYSTEMS = {
    "heed int8": ("heed", {"model": INT8, "threads": 2}),
    "heed f32": ("heed", {"model": F16, "threads": 2}),
    "heed wasm int8": ("heed-wasm", {"model": INT8, "threads": 1}),
    "heed wasm int8 2t": ("heed-wasm", {"model": INT8, "threads": 2}),
    "pytorch": ("torch", {"threads": 2}),
    "ort native": ("ort", {"backend": "node", "threads": 2}),
    "ort native 1t": ("ort", {"backend": "node", "threads": 1}),
    "ort web 1t": ("ort", {"backend": "web", "threads": 1}),
    "ort web 2t": ("ort", {"backend": "web", "threads": 2}),
    # Firefox's engine on the same model (marian.py export), one thread.
    "bergamot wasm": ("bergamot", {}),
}
# heed's ratio to each peer: (heed system, peer)
RATIOS = [("heed int8", "pytorch"), ("heed int8", "ort native"),
          ("heed int8", "ort native 1t"), ("heed f32", "ort native"),
          ("heed wasm int8", "ort web 1t"), ("heed wasm int8 2t", "ort web 2t"),
          ("heed wasm int8 2t", "heed wasm int8"),
          ("heed wasm int8", "bergamot wasm")]


def run_json(cmd, job, name):
    job_path = os.path.join(OUT, f"{name}.job.json")
    result_path = os.path.join(OUT, f"{name}.result.json")
    with open(job_path, "w") as f:
        json.dump(job, f)
    subprocess.run(cmd + [job_path, result_path], check=True,
                   env=dict(os.environ, OMP_NUM_THREADS=str(job.get(
                       "threads", 1))))
    with open(result_path) as f:
        return json.load(f)


def stale(derived, source):
    """Whether `derived` is missing or older than the `source` it was made
    from (the ONNX export after a new model)."""
    return (not os.path.exists(derived)
            or os.path.getmtime(derived) < os.path.getmtime(source))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--workloads", default=",".join(w[0] for w in WORKLOADS))
    p.add_argument("--merge", action="store_true",
                   help="keep the other systems' rows of the last results.json")
    args = p.parse_args()
    os.makedirs(OUT, exist_ok=True)
    systems = [s.strip() for s in args.systems.split(",")]
    import sentencepiece as spm
    _, config, tensors = heedfile.read(F16)
    source_sp = spm.SentencePieceProcessor(
        model_proto=bytes(tensors["tokenizer.source"]))
    target_sp = spm.SentencePieceProcessor(
        model_proto=bytes(tensors.get("tokenizer.target",
                                      tensors["tokenizer.source"])))
    onnx_dir = os.path.join(OUT, "onnx")
    if any(SYSTEMS[s][0] == "ort" for s in systems) and stale(
            os.path.join(onnx_dir, "decoder.onnx"), F16):
        subprocess.run([sys.executable, os.path.join(HERE, "peers",
                                                     "export_onnx.py"),
                        F16, onnx_dir], check=True)
    marian_dir = os.path.join(OUT, "marian")
    if "bergamot wasm" in systems and stale(
            os.path.join(marian_dir, "model.bin"), F16):
        subprocess.run([sys.executable, os.path.join(
            ROOT, "models", "recipe", "marian.py"), "export", "--model", F16,
            "--out", marian_dir], check=True)
    en, de = data.multi30k("test_2016_flickr")
    results = []
    for wname, count, batch, beam in WORKLOADS:
        if wname not in args.workloads.split(","):
            continue
        for src_lines, refs, to in ((de, en, "en"), (en, de, "de")):
            lines, ref = src_lines[:count], refs[:count]
            tag = source_sp.piece_to_id(config["target_tags"][to])
            ids = [[tag] + source_sp.encode(x) + [config["eos_id"]]
                   for x in lines]
            for name in systems:
                kind, s = SYSTEMS[name]
                tag_name = f"{wname}-{to}-{name.replace(' ', '_')}"
                base = {"beam": beam, "batch": batch, "runs": args.runs}
                t0 = time.time()
                if kind == "heed":
                    threads = s["threads"] if batch > 1 else 1
                    r = run_json([os.path.join(ROOT, "build", "release",
                                               "translate_bench")],
                                 {**base, "model": s["model"], "lines": lines,
                                  "to": to, "threads": threads}, tag_name)
                    hyp = r["outputs"]
                elif kind == "heed-wasm":
                    r = run_json([NODE, os.path.join(HERE, "peers",
                                                     "heed_wasm.mjs")],
                                 {**base, "model": s["model"], "lines": lines,
                                  "to": to, "threads": s["threads"]},
                                 tag_name)
                    hyp = r["outputs"]
                elif kind == "bergamot":
                    r = run_json([NODE, os.path.join(HERE, "peers",
                                                     "bergamot_peer.mjs")],
                                 {**base, "dir": marian_dir, "lines": lines,
                                  "to": to}, tag_name)
                    hyp = r["outputs"]
                elif kind == "torch":
                    r = run_json([sys.executable, os.path.join(
                        HERE, "peers", "torch_peer.py")],
                        {**base, "model": F16, "sources": ids,
                         "threads": s["threads"]}, tag_name)
                    hyp = [target_sp.decode(o) for o in r["outputs"]]
                else:
                    r = run_json([NODE, os.path.join(HERE, "peers",
                                                     "ort_peer.mjs"),
                                  s["backend"]],
                                 {**base, "onnx": onnx_dir, "sources": ids,
                                  "threads": s["threads"],
                                  "config": {k: config.get(k, d) for k, d in
                                             (("bos_id", 1), ("eos_id", 2),
                                              ("pad_id", 0))}}, tag_name)
                    hyp = [target_sp.decode(o) for o in r["outputs"]]
                tokens = sum(len(target_sp.encode(h)) + 1 for h in hyp)
                lat = sorted(r["latency"])
                row = {
                    "workload": wname, "direction": f"{'de' if to == 'en' else 'en'}-{to}",
                    "system": name, "lines": len(lines),
                    "tokens_per_second": tokens / statistics.median(r["seconds"]),
                    "seconds": r["seconds"],
                    "latency_ms_median": 1000 * statistics.median(lat) / batch,
                    "latency_ms_p90": 1000 * lat[int(0.9 * (len(lat) - 1))] / batch,
                    "load_seconds": r["load_seconds"],
                    "peak_rss_mb": r["peak_rss_bytes"] / 2 ** 20,
                    "wasm_heap_mb": r.get("heap_bytes", 0) / 2 ** 20,
                    "bleu": score.bleu(hyp, ref)["score"],
                }
                results.append(row)
                print(f"{wname} {row['direction']} {name}: "
                      f"{row['tokens_per_second']:.0f} tok/s, BLEU "
                      f"{row['bleu']:.2f} ({time.time() - t0:.0f} s)",
                      flush=True)
    path = os.path.join(OUT, "results.json")
    if args.merge and os.path.exists(path):
        ran = {(r["workload"], r["direction"], r["system"]) for r in results}
        with open(path) as f:
            results = [r for r in json.load(f) if (
                r["workload"], r["direction"], r["system"]) not in ran] + results
        order = {s: i for i, s in enumerate(SYSTEMS)}
        results.sort(key=lambda r: (
            [w[0] for w in WORKLOADS].index(r["workload"]), r["direction"],
            order[r["system"]]))
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    report(results)


def compact(results):
    """Tokens/s, one row per workload and direction, one column per system
    (BLEU in brackets)."""
    systems = [s for s in SYSTEMS if any(r["system"] == s for r in results)]
    print("\n| workload | direction | " + " | ".join(systems) + " |")
    print("| --- | --- |" + " ---: |" * len(systems))
    rows = {}
    for r in results:
        rows.setdefault((r["workload"], r["direction"]), {})[r["system"]] = r
    for (w, d), by in rows.items():
        cells = [f"{by[s]['tokens_per_second']:.0f} ({by[s]['bleu']:.1f})"
                 if s in by else "" for s in systems]
        print(f"| {w} | {d} | " + " | ".join(cells) + " |")


def report(results):
    compact(results)
    print("\n| workload | direction | system | tokens/s | latency ms (median / p90) "
          "| load s | peak RSS MB | BLEU |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        lat = (f"{r['latency_ms_median']:.1f} / {r['latency_ms_p90']:.1f}"
               if r["workload"].startswith("latency") else "—")
        mem = f"{r['peak_rss_mb']:.0f}"
        if r["wasm_heap_mb"]:
            mem += f" (heap {r['wasm_heap_mb']:.0f})"
        print(f"| {r['workload']} | {r['direction']} | {r['system']} | "
              f"{r['tokens_per_second']:.0f} | {lat} | {r['load_seconds']:.2f} "
              f"| {mem} | {r['bleu']:.2f} |")
    print("\n| workload | direction | ratio | tokens/s ratio |")
    print("| --- | --- | --- | ---: |")
    index = {(r["workload"], r["direction"], r["system"]): r for r in results}
    for w, d in sorted({(r["workload"], r["direction"]) for r in results}):
        for a, b in RATIOS:
            if (w, d, a) in index and (w, d, b) in index:
                ratio = (index[(w, d, a)]["tokens_per_second"]
                         / index[(w, d, b)]["tokens_per_second"])
                print(f"| {w} | {d} | {a} / {b} | {ratio:.2f} |")


if __name__ == "__main__":
    if sys.argv[1:] == ["--report"]:  # the tables of the last run
        with open(os.path.join(OUT, "results.json")) as f:
            report(json.load(f))
    else:
        main()
