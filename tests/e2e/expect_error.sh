#!/usr/bin/env bash
# A case whose right outcome is a clean failure: exit STATUS, exactly one
# line on stderr naming the model, and no output file.
# Usage: expect_error.sh SKINVIEW STATUS MODEL [skinview args...]
set -uo pipefail
skinview=$1 want=$2 model=$3
shift 3
[ -e "$model" ] || { echo "MISSING test model: $model"; exit 1; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$skinview" "$model" "$@" 2>"$err"
got=$?
cat "$err"
lines=$(wc -l <"$err")
if [ "$got" -ne "$want" ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$model" "$err"; then
  echo "FAIL: status $got (want $want), $lines stderr line(s)"
  exit 1
fi
echo "ok: exit $got with one line"
