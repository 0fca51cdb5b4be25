#!/usr/bin/env bash
# --morph NAME=W sets every target of that name on every mesh, and says
# how many (issue #42: it moved only the first mesh's); a number names one
# target; glTF mesh weights are the defaults. Exact positions on
# tests/tools/gen/gltf_shared_morph.py's two quads.
# Usage: e2e_morph_names.sh SKINVIEW OUT_DIR
set -uo pipefail
skinview=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python3 "$(dirname "$0")/../tools/gen/gltf_shared_morph.py" "$out/m.gltf" || exit 1
# case NAME "WANT VERTICES" ARGS...: the OBJ's vertex lines, joined.
case_() {
  local name=$1 want=$2
  shift 2
  "$skinview" "$out/m.gltf" --export-pose "$out/$name.obj" "$@" 2>"$out/$name.err" || { fail "$name: status $?"; return; }
  local got
  got=$(grep '^v ' "$out/$name.obj" | cut -c3- | tr '\n' '|')
  [ "$got" = "$want" ] && echo "ok: $name" || fail "$name: got $got, want $want"
}
case_ rest "0 0 0|1 0 0|1 1 0|0 1 0|3 0 0|4 0 0|4 1 0|3 1 0|"
case_ mouth "0 1 0|1 1 0|1 2 0|0 2 0|5 0 0|6 0 0|6 1 0|5 1 0|" --morph mouthOpen=1
grep -q "note: --morph mouthOpen=1 set 2 targets (meshes 'Head', 'Teeth')" "$out/mouth.err" ||
  { fail "mouth: the note"; cat "$out/mouth.err"; }
case_ blink "0 0 5|1 0 5|1 1 5|0 1 5|3 0 0|4 0 0|4 1 0|3 1 0|" --morph blink=1
case_ number "0 0 0|1 0 0|1 1 0|0 1 0|4 0 0|5 0 0|5 1 0|4 1 0|" --morph 2=0.5
grep -q "set 1 target (mesh 'Teeth')" "$out/number.err" || { fail "number: the note"; cat "$out/number.err"; }
# The file's mesh weights as the defaults.
python3 - "$out/m.gltf" "$out/w.gltf" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['meshes'][0]['weights'] = [0.5, 0]
d['meshes'][1]['weights'] = [0.25]
json.dump(d, open(sys.argv[2], 'w'))
PY
"$skinview" "$out/w.gltf" --export-pose "$out/w.obj" 2>/dev/null || fail "weights"
got=$(grep '^v ' "$out/w.obj" | cut -c3- | tr '\n' '|')
[ "$got" = "0 0.5 0|1 0.5 0|1 1.5 0|0 1.5 0|3.5 0 0|4.5 0 0|4.5 1 0|3.5 1 0|" ] || fail "weights: got $got"
"$skinview" "$out/m.gltf" --morph nothing=1 --list >/dev/null 2>"$out/none.err"
[ $? -eq 2 ] && grep -q "no morph target 'nothing'" "$out/none.err" || fail "unknown name"
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
