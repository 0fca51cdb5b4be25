#!/usr/bin/env bash
# Issue #47 A: whole-process `skinview FILE --list` on generated skinned
# tubes (tests/tools/gen/gltf_big_skin.py) of 2k, 100k and 1M vertices,
# builds A and B interleaved (A, B, A, B, ...) after one warm-up pair, so
# that load on the machine falls on both alike. Prints per build and file
# the median and minimum wall time (ms) and the median CPU time (user +
# sys, parent and child, ms), then the 1M / 100k ratio of the medians.
# A measurement, not a test. Files are written into WORK once.
# Usage: bench/list_scale.sh SKINVIEW_A SKINVIEW_B RUNS WORK
set -uo pipefail
a=$1 b=$2 runs=$3 work=$4
gen=$(cd "$(dirname "$0")/../tests/tools/gen" && pwd)
mkdir -p "$work"
for n in 2000 100000 1000000; do
  [ -f "$work/tube_$n.glb" ] || python3 "$gen/gltf_big_skin.py" "$work/tube_$n.glb" "$n"
done
one() { # one SKINVIEW FILE: "wall_ms cpu_ms" of one run
  /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$1" "$2" --list >/dev/null 2>&1
  local start=$(date +%s%N)
  "$1" "$2" --list >/dev/null 2>&1
  local wall=$((($(date +%s%N) - start) / 1000))
  read -r _ u s <"$work/time.txt"
  echo "$wall $(echo "($u + $s) * 1000" | bc -l)"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
stat_of() { # FILE: median and minimum of column 1 (us -> ms), median of column 2 (ms)
  local m min c
  m=$(cut -d' ' -f1 "$1" | median) min=$(cut -d' ' -f1 "$1" | sort -n | head -1) c=$(cut -d' ' -f2 "$1" | median)
  echo "$(echo "$m / 1000" | bc -l | xargs printf '%.1f') $(echo "$min / 1000" | bc -l | xargs printf '%.1f') $(printf '%.0f' "$c")"
}
echo "load before: $(uptime)"
printf '%-8s %-16s %10s %10s %10s\n' build file "wall med" "wall min" "cpu med"
declare -A med
for n in 2000 100000 1000000; do
  f=$work/tube_$n.glb
  : >"$work/a.txt"; : >"$work/b.txt"
  for r in $(seq 0 "$runs"); do
    x=$(one "$a" "$f"); y=$(one "$b" "$f")
    [ "$r" -ge 1 ] && echo "$x" >>"$work/a.txt" && echo "$y" >>"$work/b.txt"
  done
  read -r am amin acpu < <(stat_of "$work/a.txt")
  read -r bm bmin bcpu < <(stat_of "$work/b.txt")
  printf '%-8s %-16s %10s %10s %10s\n' A "tube_$n" "$am" "$amin" "$acpu" B "tube_$n" "$bm" "$bmin" "$bcpu"
  med[A$n]=$am med[B$n]=$bm
done
for x in A B; do
  echo "$x: 1M / 100k (wall medians) = $(echo "${med[${x}1000000]} / ${med[${x}100000]}" | bc -l | cut -c1-5)"
done
echo "load after: $(uptime)"
