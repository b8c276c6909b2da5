#!/usr/bin/env bash
# From ../shared/data to the shipped model and its scores, in one command:
#   bash models/recipe/reproduce.sh [--minutes N] [--device cuda] [...]
# Training resumes from models/work/checkpoint.pt when one exists; pass
# --warm-start models/heed-en-de.heed to continue from the shipped model.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh --recipe
bash scripts/build.sh release
(source models/recipe/malloc.sh && /usr/bin/python3 models/recipe/train.py "$@")
/usr/bin/python3 models/recipe/evaluate.py --model models/heed-en-de.heed
