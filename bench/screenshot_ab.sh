#!/usr/bin/env bash
# Two skinview builds' whole-process `--screenshot` of one model at SIZE x
# SIZE, interleaved (A, B, A, B, ...) after one warm-up pair; prints the
# median and minimum wall time (ms) of each, the ratio B/A of the
# medians, whether every PNG B wrote is byte for byte A's, and the load.
# A measurement, not a test. Extra arguments go to both.
# Usage: bench/screenshot_ab.sh SKINVIEW_A SKINVIEW_B MODEL RUNS SIZE OUTDIR [ARGS...]
set -uo pipefail
a=$1 b=$2 model=$3 runs=$4 size=$5 out=$6
shift 6
mkdir -p "$out"
us() { local start=$(date +%s%N); "$@" >/dev/null 2>&1 || echo "FAILED: $*" >&2; echo $((($(date +%s%N) - start) / 1000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ta=() tb=() same=yes
for r in $(seq 0 "$runs"); do
  x=$(us "$a" "$model" --screenshot "$out/a.png" --size "${size}x$size" "$@")
  y=$(us "$b" "$model" --screenshot "$out/b.png" --size "${size}x$size" "$@")
  cmp -s "$out/a.png" "$out/b.png" || same=NO
  [ "$r" -ge 1 ] && ta+=("$x") && tb+=("$y")
done
am=$(printf '%s\n' "${ta[@]}" | median) bm=$(printf '%s\n' "${tb[@]}" | median)
amin=$(printf '%s\n' "${ta[@]}" | sort -n | head -1) bmin=$(printf '%s\n' "${tb[@]}" | sort -n | head -1)
printf '%s %sx%s: A median %.1f ms (min %.1f), B median %.1f ms (min %.1f), B/A %.3f, PNGs identical: %s; load %s\n' \
  "$(basename "$model")" "$size" "$size" "$(echo "$am / 1000" | bc -l)" "$(echo "$amin / 1000" | bc -l)" \
  "$(echo "$bm / 1000" | bc -l)" "$(echo "$bmin / 1000" | bc -l)" "$(echo "$bm / $am" | bc -l)" "$same" \
  "$(uptime | sed 's/.*average: //')"
