#!/usr/bin/env bash
# Frame sequences, GIFs and the JSON summary:
#   --frames N --fps F --screenshot out_%04d.png writes exactly N files,
#   each pose different from the one before; --gif decodes (stb_image) to
#   the expected frames; --list --json parses and names meshes, bones with
#   parents, clips; bad combinations give one line and status 2.
# Usage: e2e_frames.sh SKINVIEW SKV_CHECK OUT_DIR WORM.dae FOX.glb
set -euo pipefail
skinview=$1 check=$2 out=$3 worm=$4 fox=$5
rm -rf "$out"
mkdir -p "$out"
failures=0
run() { "$@" || failures=$((failures + 1)); }

"$skinview" "$worm" --frames 7 --fps 12 --size 96x96 --screenshot "$out/worm_%04d.png" >"$out/frames.txt"
count=$(ls "$out" | grep -c '^worm_[0-9]\{4\}\.png$' || true)
echo "--frames 7: $count files; $(cat "$out/frames.txt")"
[ "$count" -eq 7 ] || failures=$((failures + 1))
for i in 0 1 2 3 4 5; do
  run "$check" differ "$out/worm_000$i.png" "$out/worm_000$((i + 1)).png" 0.001
done
# Quiet when stdout is not a terminal: one closing line, no progress bar.
[ "$(wc -l <"$out/frames.txt")" -eq 1 ] || failures=$((failures + 1))

# The whole Walk clip (0.708 s) at 15 fps: 11 frames; and a fixed count.
"$skinview" "$fox" --anim Walk --gif "$out/fox.gif" --size 128x96 >/dev/null
run "$check" gif "$out/fox.gif" 11 128 96 "$out/fox_middle.png"
"$skinview" "$worm" --gif "$out/worm.gif" --frames 5 --fps 5 --size 64x64 >/dev/null
run "$check" gif "$out/worm.gif" 5 64 64

"$skinview" "$fox" --list --json >"$out/fox.json"
run python3 - "$out/fox.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {b["name"]: b for b in d["bones"]}
assert len(d["meshes"]) == 1 and d["meshes"][0]["vertices"] > 0, d["meshes"]
assert [c["name"] for c in d["clips"]] == ["Survey", "Walk", "Run"], d["clips"]
hip, tail = names["b_Hip_01"], names["b_Tail01_012"]
assert tail["parent"] == hip["index"], (tail, hip)
assert sum(1 for b in d["bones"] if b["parent"] == -1) == 1
print("--list --json: %d meshes, %d bones, %d clips" % (len(d["meshes"]), len(d["bones"]), len(d["clips"])))
PY

expect_usage() { # status 2 and one line of our own (not a crash's)
  local got=0
  "$skinview" "$@" >/dev/null 2>"$out/err.txt" || got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <"$out/err.txt")" -ne 1 ] || ! grep -q '^skinview: ' "$out/err.txt"; then
    echo "FAIL: skinview $* -> status $got (want 2): $(head -c 300 "$out/err.txt")"
    failures=$((failures + 1))
    return
  fi
  echo "ok: $(cat "$out/err.txt")"
}
expect_usage "$worm" --frames 3 --screenshot "$out/no_pattern.png"
expect_usage "$worm" --frames 3 --screenshot "$out/two_%d_%d.png"
# A width that would overflow the frame name's buffer (it used to abort).
expect_usage "$worm" --frames 3 --size 32x32 --screenshot "$out/wide_%0100000d.png"
expect_usage "$worm" --frames 3 --size 32x32 --screenshot "$out/wide_%21d.png"
expect_usage "$worm" --frames 3 --size 32x32 --screenshot "$out/precise_%.100000d.png"
if ls "$out" | grep -q '^wide_\|^precise_'; then
  echo "FAIL: frames written for a refused pattern"
  failures=$((failures + 1))
fi
expect_usage "$worm" --json
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
