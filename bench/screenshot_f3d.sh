#!/usr/bin/env bash
# Issue #47 B: whole-process `skinview MODEL --screenshot` against Debian's
# f3d (`f3d MODEL --output`) at SIZE x SIZE, on one Xvfb both draw under
# (display :99, started here and stopped at the end; Mesa's llvmpipe for
# both), interleaved (skinview, f3d, skinview, ...) after one warm-up
# pair. Prints the median and minimum wall time (ms) of each and the
# ratio of the medians. Extra arguments go to skinview. A measurement,
# not a test (f3d is not a dependency: apt-get install f3d to run it).
# Usage: bench/screenshot_f3d.sh SKINVIEW MODEL RUNS SIZE OUTDIR [SKINVIEW ARGS...]
set -uo pipefail
skinview=$1 model=$2 runs=$3 size=$4 out=$5
shift 5
mkdir -p "$out"
display=:99
Xvfb "$display" -screen 0 4096x4096x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$xvfb" 2>/dev/null; wait "$xvfb" 2>/dev/null' EXIT
for _ in $(seq 50); do [ -e /tmp/.X11-unix/X99 ] && break; sleep 0.1; done
export DISPLAY=$display
us() { local start=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; echo $((($(date +%s%N) - start) / 1000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
s=() f=()
for r in $(seq 0 "$runs"); do
  x=$(us "$skinview" "$model" --screenshot "$out/skinview_$size.png" --size "${size}x$size" "$@")
  y=$(us f3d "$model" --output="$out/f3d_$size.png" --resolution="$size,$size")
  [ "$r" -ge 1 ] && s+=("$x") && f+=("$y")
done
sm=$(printf '%s\n' "${s[@]}" | median) fm=$(printf '%s\n' "${f[@]}" | median)
smin=$(printf '%s\n' "${s[@]}" | sort -n | head -1) fmin=$(printf '%s\n' "${f[@]}" | sort -n | head -1)
printf '%s %sx%s: skinview median %.1f ms (min %.1f), f3d median %.1f ms (min %.1f), ratio %.3f; load %s\n' \
  "$(basename "$model")" "$size" "$size" "$(echo "$sm / 1000" | bc -l)" "$(echo "$smin / 1000" | bc -l)" \
  "$(echo "$fm / 1000" | bc -l)" "$(echo "$fmin / 1000" | bc -l)" "$(echo "$sm / $fm" | bc -l)" \
  "$(uptime | sed 's/.*average: //')"
