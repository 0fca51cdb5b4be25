#!/usr/bin/env bash
# Prints the reference cases' rows as one table (case, evaluator, time,
# Chamfer and AABB error over the bounds diagonal, verdict); fails if a
# case wrote no rows or any row failed.
# Usage: reference_table.sh OUT_DIR NAME...
set -uo pipefail
out=$1
shift
status=0 rows=0
printf '%-44s %-6s %-9s %-18s %-16s %s\n' case evaluator time chamfer/diag aabb/diag verdict
for name in "$@"; do
  if [ ! -s "$out/$name.rows" ]; then
    printf '%-44s no rows: the case did not run or did not finish\n' "$name"
    status=1
    continue
  fi
  while read -r _ case evaluator t _ chamfer _ aabb verdict rest; do
    printf '%-44s %-6s %-9s %-18s %-16s %s %s\n' "$case" "$evaluator" "${t#t=}" "$chamfer" "$aabb" "$verdict" "$rest"
    rows=$((rows + 1))
    [ "$verdict" = PASS ] || status=1
  done <"$out/$name.rows"
done
echo "$rows rows from $# cases"
exit $status
