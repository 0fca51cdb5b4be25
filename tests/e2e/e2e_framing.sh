#!/usr/bin/env bash
# Framing fills the picture: at the default camera and size (800x600) the
# model, over frames spread across its whole clip, takes at least MIN of
# the picture's width or height (skv_fill fill: the box of every pixel
# that is not background in any frame). A stick figure of a file without a
# mesh is centred at t = 0 instead (CENTRE cases).
#
# Usage: e2e_framing.sh SKINVIEW SKV_FILL OUT_DIR MIN CASE...
#   CASE: fill:NAME:MODEL[:ARGS]     (ARGS split at spaces)
#         centre:NAME:MODEL[:ARGS]
set -uo pipefail
skinview=$1 fill=$2 out=$3 min=$4
shift 4
rm -rf "$out"
mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
frames=32 # the framing samples the clip 32 times (scene.c): these frames are those poses
for spec in "$@"; do
  IFS=: read -r kind name model args <<<"$spec"
  read -r -a extra <<<"${args:-}"
  if [ ! -e "$model" ]; then
    fail "$name: MISSING test model $model"
    continue
  fi
  case "$kind" in
    fill)
      # The clip's length: frames at equal steps over one loop.
      seconds=$("$skinview" "$model" "${extra[@]}" --list --json 2>/dev/null |
        /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin); a = sys.argv[1:]
clip = a[a.index("--anim") + 1] if "--anim" in a else "0"
c = [c for c in d["clips"] if c["name"] == clip or str(c["index"]) == clip]
print(c[0]["seconds"] if c else 0)' "${extra[@]}")
      if awk -v s="$seconds" 'BEGIN { exit !(s > 0) }'; then
        fps=$(awk -v s="$seconds" -v n="$frames" 'BEGIN { printf "%.6f", n / s }')
        "$skinview" "$model" "${extra[@]}" --time 0 --frames "$frames" --fps "$fps" \
          --screenshot "$out/${name}_%02d.png" >/dev/null 2>"$out/$name.err" || { fail "$name: exit $?"; continue; }
      else
        "$skinview" "$model" "${extra[@]}" --screenshot "$out/${name}_00.png" 2>"$out/$name.err" ||
          { fail "$name: exit $?"; continue; }
      fi
      if line=$("$fill" fill "$min" "$out/${name}"_*.png); then echo "$name: $line"; else fail "$name: $line"; fi ;;
    centre)
      "$skinview" "$model" "${extra[@]}" --time 0 --screenshot "$out/$name.png" 2>"$out/$name.err" ||
        { fail "$name: exit $?"; continue; }
      if line=$("$fill" centre 0.03 "$out/$name.png"); then echo "$name: $line"; else fail "$name: $line"; fi ;;
    *) fail "bad case '$spec'" ;;
  esac
done
[ "$status" -eq 0 ] && echo "e2e_framing: all checks passed"
exit $status
