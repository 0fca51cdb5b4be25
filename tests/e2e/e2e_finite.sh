#!/usr/bin/env bash
# No non-finite number in any output (issue #21): on each hostile variant
# from tests/tools/gen/nan_mutations.py (scales 0/1e30/1e-30/negative, singular or
# zero inverse bind matrices, 1e38 keys, overflowing products, Collada
# unit 0), --export-pose, --list and --screenshot each end cleanly (status
# 0, or 4/5 with exactly one stderr line) within 5 s, and neither the OBJ
# nor --list holds a nan/inf token. Prints a table: variant, command,
# status, result.
# Usage: e2e_finite.sh SKINVIEW WORM.dae OUTDIR
set -uo pipefail
skinview=$1 worm=$2 out=$3
here=$(dirname "$0")
rm -rf "$out"
mkdir -p "$out/in"
python3 "$here/../tools/gen/nan_mutations.py" "$out/in" "$worm" > "$out/variants.txt" || { echo "generator failed"; exit 1; }
nonfinite='(^|[^[:alnum:]_])[-+]?(nan|inf)($|[^[:alnum:]_])'
failures=0 nan_outputs=0 crashes=0
printf '%-28s %-12s %6s  %s\n' variant command status result
while read -r file; do
  v=${file%.*}
  for cmd in export list screenshot; do
    case $cmd in
      export) args=(--export-pose "$out/$v.obj") ;;
      list) args=(--list) ;;
      screenshot) args=(--screenshot "$out/$v.png" --size 64x64) ;;
    esac
    start=$(date +%s%N)
    timeout 10 "$skinview" "$out/in/$file" --time 1 "${args[@]}" > "$out/$v.$cmd.out" 2> "$out/$v.$cmd.err"
    status=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    lines=$(wc -l < "$out/$v.$cmd.err")
    result=ok
    if [ "$status" -ge 128 ] || [ "$status" -eq 124 ]; then
      result="crash/timeout"; crashes=$((crashes + 1))
    elif [ "$status" -ne 0 ] && { [ "$status" -lt 4 ] || [ "$status" -gt 5 ] || [ "$lines" -ne 1 ]; }; then
      result="unclean ($lines stderr lines)"
    elif [ "$ms" -ge 5000 ]; then
      result="slow (${ms} ms)"
    elif [ "$cmd" = export ] && [ "$status" -eq 0 ] && grep -Eiq "$nonfinite" "$out/$v.obj"; then
      result="non-finite in OBJ"; nan_outputs=$((nan_outputs + 1))
    elif [ "$cmd" = list ] && grep -Eiq "$nonfinite" "$out/$v.list.out"; then
      result="non-finite in --list"; nan_outputs=$((nan_outputs + 1))
    fi
    [ "$status" -ne 0 ] && [ "$result" = ok ] && result="ok: $(head -c 100 "$out/$v.$cmd.err")"
    [ "${result:0:2}" = ok ] || failures=$((failures + 1))
    printf '%-28s %-12s %6s  %s\n' "$v" "$cmd" "$status" "$result"
  done
done < "$out/variants.txt"
echo "variants: $(wc -l < "$out/variants.txt"), failures: $failures (non-finite outputs: $nan_outputs, crashes/timeouts: $crashes)"
[ "$failures" -eq 0 ]
