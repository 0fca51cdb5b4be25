#!/usr/bin/env bash
# Whether two skinview builds list the same: `--list` and `--list --json`
# (stdout, stderr and exit status) of every model file under the given
# folders or files, build A against build B. Prints each file that
# differs and a count. A check run by hand around a change to the
# import (issue #47), not a test.
# Usage: bench/list_same.sh SKINVIEW_A SKINVIEW_B PATH...
set -uo pipefail
a=$1 b=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=0 differ=0
while IFS= read -r -d '' f; do
  files=$((files + 1))
  for mode in "" "--json"; do
    "$a" "$f" --list $mode >"$tmp/a.out" 2>"$tmp/a.err"; echo "status $?" >>"$tmp/a.err"
    "$b" "$f" --list $mode >"$tmp/b.out" 2>"$tmp/b.err"; echo "status $?" >>"$tmp/b.err"
    if ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
      echo "DIFFERS: $f --list $mode"
      diff "$tmp/a.out" "$tmp/b.out" | head -5
      diff "$tmp/a.err" "$tmp/b.err" | head -5
      differ=$((differ + 1))
    fi
  done
done < <(find "$@" -type f ! -name '*.md' ! -name '*.txt' ! -name '*.png' ! -name '*.jpg' ! -name '*.bin' -print0 | sort -z)
echo "files: $files, listings that differ: $differ"
