#!/usr/bin/env bash
# A broken file whose Assimp message is huge: Assimp quotes the rest of a
# mangled SMD (~900 KB) in its error. Guarded (the child's message comes
# through a pipe) and with --trust, the run must end at once with status 4
# and one bounded line, cut with "…", not wait out --import-timeout.
# Usage: e2e_guard.sh SKINVIEW WUSON.smd
set -uo pipefail
skinview=$1 smd=$2
[ -e "$smd" ] || { echo "MISSING test model: $smd"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1 # short relative paths: the line's length is the message's
failures=0

# The first triangle's second vertex replaced by "{": the number parser
# quotes everything from there to the end of the file.
sed '12s/.*/{/' "$smd" >mangled.smd

for mode in guarded --trust; do
  args=(mangled.smd --list)
  [ "$mode" = --trust ] && args+=(--trust)
  start=$(date +%s%N)
  # timeout: a deadlocked guard would otherwise hold the test for 60 s.
  timeout 30 "$skinview" "${args[@]}" >out.txt 2>err.txt
  got=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  lines=$(wc -l <err.txt)
  bytes=$(wc -c <err.txt)
  if [ "$got" -ne 4 ] || [ "$lines" -ne 1 ] || [ "$bytes" -gt 400 ] || [ "$ms" -ge 5000 ] ||
    ! grep -q '^skinview: mangled.smd: cannot import: .*…$' err.txt ||
    LC_ALL=C grep -q '[[:cntrl:]]' err.txt; then
    echo "FAIL ($mode): status $got (want 4), $lines line(s), $bytes bytes, $ms ms:"
    head -c 600 err.txt | sed 's/^/    /'
    echo
    failures=$((failures + 1))
  else
    echo "ok ($mode): status 4 in $ms ms, one line of $bytes bytes"
  fi
done
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
