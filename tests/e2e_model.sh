#!/usr/bin/env bash
# End-to-end checks of one model, without goldens:
#   two --screenshot times give non-blank PNGs that differ;
#   the --export-pose at the second time stays within 3x the bind pose's
#   bounds (no explosion, no collapse) and has no NaN.
# Usage: e2e_model.sh SKINVIEW SKV_CHECK OUT_DIR MODEL TIME [--anim N]
set -euo pipefail
skinview=$1 check=$2 out=$3 model=$4 time=$5
shift 5
mkdir -p "$out"
name=$(basename "$model")
"$skinview" "$model" "$@" --size 256x256 --time 0 --screenshot "$out/$name.t0.png"
"$skinview" "$model" "$@" --size 256x256 --time "$time" --screenshot "$out/$name.t1.png"
"$check" nonblank "$out/$name.t0.png"
"$check" nonblank "$out/$name.t1.png"
"$check" differ "$out/$name.t0.png" "$out/$name.t1.png"
"$skinview" "$model" "$@" --time "$time" --export-pose "$out/$name.pose.obj"
"$skinview" "$model" "$@" --bind-pose --export-pose "$out/$name.bind.obj"
"$check" bounds "$out/$name.pose.obj" "$out/$name.bind.obj" 3
echo "e2e ok: $model"
