#!/usr/bin/env bash
# A training run on a CUDA machine that has PyTorch but neither the data nor
# SentencePiece (heed's device machine):
#   here:   bash models/recipe/gpu.sh prepare      # models/work/gpu: examples.npz, spm.model
#   there:  bash models/recipe/gpu.sh train 8 "$OUT"   (hard limit in minutes; carry
#           models/work/gpu/examples.npz and models/work/gpu/spm.model, 11 MB)
#   here:   /usr/bin/python3 models/recipe/dev.py --candidate FILES_AT/candidate.heed \
#             --minutes 8 --note "H200, 8 minutes"
# The run warm-starts from the shipped model with its vocabulary and sizes.
# Try `train 0.5` first: a tiny run proves the path before the real one.
#   there:  bash models/recipe/gpu.sh scratch 9 "$OUT"
# trains instead a wider model from scratch on the same examples and
# vocabulary, in the shape of Bergamot's students: a deep encoder and a
# shallow decoder (6 + 2 layers, d_model 256, d_ff 1536: 11.0 M
# parameters, a 22 MB file at F16, within the 25 MB a file may have), with
# Marian's conventions; dev.py then judges it against the shipped model.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=models/work/gpu
# train.py on the GPU under a hard limit of MINUTES (+2 for the export),
# the candidate and its log written to OUT:
#   gpu_train MINUTES OUT WORK [train.py flags]
# Larger batches suit the GPU; the peak rate rises with them.
gpu_train() {
  local minutes="$1" out="$2" folder="$3"
  shift 3
  python3 - <<'PY'
import torch
print("cuda", torch.__version__, torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
PY
  PYTHONUNBUFFERED=1 timeout "$(python3 -c "print(int($minutes * 60 + 120))")" \
    python3 models/recipe/train.py --work "$folder" --device cuda \
    --out "$out/candidate.heed" --minutes "$minutes" \
    --batch-tokens 24000 --lr 7e-4 "$@" 2>&1 | tee "$out/train.log"
}
case "${1:-}" in
  prepare)
    mkdir -p "$work"
    rm -f "$work/examples.npz"
    /usr/bin/python3 models/recipe/train.py --work "$work" \
      --warm-start models/heed-en-de.heed --encode-only
    ls -la "$work" ;;
  train)
    gpu_train "${2:?minutes}" "${3:?output folder}" "$work" \
      --warm-start models/heed-en-de.heed --warmup 200 \
      --checkpoint-minutes 100 ;;
  scratch)
    # Its own folder: a checkpoint of the warm-started run must not resume here.
    mkdir -p "$work/scratch"
    ln -sf ../examples.npz ../spm.model "$work/scratch/"
    gpu_train "${2:?minutes}" "${3:?output folder}" "$work/scratch" \
      --marian-conventions --encoder-layers 6 --decoder-layers 2 \
      --d-ff 1536 --warmup 2000 --checkpoint-minutes 2 ;;
  *)
    echo "usage: gpu.sh prepare | train MINUTES OUT | scratch MINUTES OUT" >&2
    exit 2 ;;
esac
