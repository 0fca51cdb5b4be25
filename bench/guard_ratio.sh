#!/usr/bin/env bash
# Guarded `--list` (the import and conversion in the sandboxed child, the
# model block checked and adopted here) against `--trust --list` (all of
# it in-process), per file: RUNS runs of each, interleaved (trust, guarded,
# trust, ...) after 2 warm-up pairs, so that load on the machine falls on
# both alike. Prints the median and the minimum of each and their ratios.
# A measurement, not a test (no bound is asserted).
# Usage: bench/guard_ratio.sh SKINVIEW RUNS MODEL...
set -uo pipefail
skinview=$1 runs=$2
shift 2
ms() { # ms ARGS...: milliseconds of one run
  local start=$(date +%s%N)
  "$skinview" "$@" >/dev/null 2>&1
  echo $((($(date +%s%N) - start) / 1000))
}
stat_of() { # median and minimum of the numbers on stdin (microseconds in, ms out)
  sort -n | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "%.1f %.1f\n", m / 1000, v[1] / 1000 }'
}
printf '%-44s %10s %10s %10s %10s %8s %8s\n' file "trust med" "guard med" "trust min" "guard min" "ratio" "ratio min"
for model in "$@"; do
  trust=() guarded=()
  for r in $(seq -2 "$runs"); do
    t=$(ms "$model" --list --trust)
    g=$(ms "$model" --list)
    [ "$r" -ge 1 ] && trust+=("$t") && guarded+=("$g")
  done
  read -r tm tmin < <(printf '%s\n' "${trust[@]}" | stat_of)
  read -r gm gmin < <(printf '%s\n' "${guarded[@]}" | stat_of)
  printf '%-44s %10s %10s %10s %10s %8.3f %8.3f\n' "$(basename "$model")" "$tm" "$gm" "$tmin" "$gmin" \
    "$(echo "$gm / $tm" | bc -l)" "$(echo "$gmin / $tmin" | bc -l)"
done
