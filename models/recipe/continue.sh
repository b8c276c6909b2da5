#!/usr/bin/env bash
# One more training run on top of the shipped model, kept only if it is
# better on the dev sets:
#   bash models/recipe/continue.sh --minutes 100 [--note TEXT] [train.py flags]
# Warm-starts from models/heed-en-de.heed (its vocabulary and sizes), re-warms
# the learning rate over 200 steps to 5e-4, trains in models/work/run-DATE
# (checkpoints every 5 minutes; run again with RUN=that folder to resume),
# then models/recipe/dev.py compares the candidate (its last weights, and the
# average of its last checkpoints) with the shipped model on the dev sets,
# adds the run to the learning curve and, when the dev BLEU improved,
# replaces the model and its int8 copy. Test scores follow with
# evaluate.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=100
note=""
args=()
while (($#)); do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --note) note="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
run="${RUN:-models/work/run-$(date +%Y%m%d-%H%M)}"
mkdir -p "$run"
# Each run sees the examples in a new order, not the first run's again.
runs=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
  models/eval/curve.json 2>/dev/null || echo 0)
bash scripts/setup.sh --recipe
bash scripts/build.sh release
source models/recipe/malloc.sh
/usr/bin/python3 models/recipe/train.py --work "$run" \
  --out "$run/candidate.heed" --warm-start models/heed-en-de.heed \
  --lr 5e-4 --warmup 200 --minutes "$minutes" --data-seed "$runs" \
  "${args[@]}" |
  tee -a "$run/train.log"
# The last weights and the mean of the last checkpoints' (train.py writes
# candidate-avg.heed once it has two): the better on dev is the run's.
candidates=("$run/candidate.heed")
[[ -f "$run/candidate-avg.heed" ]] && candidates+=("$run/candidate-avg.heed")
/usr/bin/python3 models/recipe/dev.py --candidate "${candidates[@]}" \
  --minutes "$minutes" --note "$note"
