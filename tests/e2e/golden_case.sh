#!/usr/bin/env bash
# One screenshot-comparison case: a model at two times, 256x256, one clip.
#
# Golden-independent checks first, so a wrong golden cannot hide a bug:
#   both PNGs are not blank; the two times differ (the clip animates);
#   the skinned pose (--export-pose) at the second time has no NaN and its
#   bounds stay within 3x the bind pose's.
# Renders run with --debug: any GL error fails the case.
# Then each PNG is compared with tests/golden/NAME.tI.png (see TOLERANCE);
# on a difference, actual | expected | diff is written beside the actual
# and the three paths are printed.
#
# Usage: golden_case.sh SKINVIEW SKV_CHECK GOLDEN_DIR OUT_DIR NAME MODEL T0 T1 [skinview args...]
# T1 "static": the model has no motion to show (a zero-length clip); one
# time is rendered, and the two-times-differ check does not apply.
# With SKV_UPDATE_GOLDENS=1 it writes the goldens instead of comparing
# (tools/update-goldens.sh; never on CI). Look at every golden it writes.
set -euo pipefail
skinview=$1 check=$2 golden_dir=$3 out=$4 name=$5 model=$6 t0=$7 t1=$8
shift 8

# TOLERANCE and MAX_FRACTION, with the measurements behind them.
. "$(dirname "$0")/golden_tolerance.sh"

if [ ! -e "$model" ]; then
  echo "MISSING test model: $model"
  case "$model" in
    /usr/share/assimp/*) echo "  it comes from Debian's assimp-testmodels: run tools/install-deps.sh" ;;
    *shared/models*) echo "  it comes from ../shared/models beside the repository" ;;
  esac
  exit 1
fi

mkdir -p "$out"
base="$out/$name"
times=("$t0" "$t1")
[ "$t1" = static ] && times=("$t0")
for i in "${!times[@]}"; do
  "$skinview" "$model" "$@" --debug --size 256x256 --time "${times[$i]}" --screenshot "$base.t$i.png"
  "$check" nonblank "$base.t$i.png"
done
[ "${#times[@]}" -eq 2 ] && "$check" differ "$base.t0.png" "$base.t1.png"
"$skinview" "$model" "$@" --time "${times[-1]}" --export-pose "$base.pose.obj"
"$skinview" "$model" "$@" --bind-pose --export-pose "$base.bind.obj"
"$check" bounds "$base.pose.obj" "$base.bind.obj" 3

# SKV_GOLDEN_OVERRIDE (set by CMake for an Assimp series other than the
# base goldens'): a folder of the goldens that differ on that series.
override=${SKV_GOLDEN_OVERRIDE:-}
golden_for() {
  if [ -n "$override" ] && [ -e "$override/$name.t$1.png" ]; then echo "$override/$name.t$1.png"
  else echo "$golden_dir/$name.t$1.png"; fi
}

if [ "${SKV_UPDATE_GOLDENS:-0}" = 1 ]; then
  for i in "${!times[@]}"; do
    dest=$golden_dir/$name.t$i.png
    if [ -n "$override" ]; then
      # Only an image that differs from the base golden is kept per series.
      if [ -e "$dest" ] && "$check" golden "$base.t$i.png" "$dest" "$base.t$i.diff.png" "$TOLERANCE" "$MAX_FRACTION" >/dev/null; then
        rm -f "$override/$name.t$i.png"
        echo "same as the base golden: $dest"
        continue
      fi
      dest=$override/$name.t$i.png
    fi
    mkdir -p "$(dirname "$dest")"
    cp "$base.t$i.png" "$dest"
    echo "wrote $dest: look at it before committing"
  done
  exit 0
fi
status=0
for i in "${!times[@]}"; do
  "$check" golden "$base.t$i.png" "$(golden_for "$i")" "$base.t$i.diff.png" "$TOLERANCE" "$MAX_FRACTION" || status=1
done
exit $status
