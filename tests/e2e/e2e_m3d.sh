#!/usr/bin/env bash
# The DirectX 11 book's .m3d (issue #43), beyond the poses the reference
# cases check: laid out as the book does (Models/ beside Textures/, DDS
# maps), --list and its JSON (bones, the clip, textures found), the bind
# pose exactly the file's vertices with z negated, the views, a crowd and a
# blend with a second file's clip; each broken file one line and status 4,
# a text file named .m3d that is not one said so, guarded and --trust.
# Usage: e2e_m3d.sh SKINVIEW SKV_CHECK OUT_DIR
set -uo pipefail
skinview=$1 check=$2 out=$3
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
rm -rf "$out"
mkdir -p "$out/book/Models" "$out/book/Textures"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
python3 "$gen/m3d_files.py" "$out/files" || exit 1
python3 "$gen/dds_files.py" "$out/dds" 64 || exit 1
cp "$out/files/strip.m3d" "$out/files/strip_wave.m3d" "$out/book/Models/"
cp "$out/dds/tex_bc3.dds" "$out/book/Textures/strip_diff.dds"
cp "$out/dds/tex_bc5.dds" "$out/book/Textures/strip_norm.dds"
model=$out/book/Models/strip.m3d

for trust in "" --trust; do
  t=${trust:+.trust}
  "$skinview" "$model" --list --json $trust >"$out/list$t.json" 2>"$out/list$t.err" || fail "list$t: status $?"
  [ -s "$out/list$t.err" ] && { fail "list$t: warned"; cat "$out/list$t.err"; }
  python3 - "$out/list$t.json" <<'PY' || fail "list$t: contents"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d['bones']) == 3, d['bones']
assert [c['name'] for c in d['clips']] == ['Bend'], d['clips']
assert abs(d['clips'][0]['seconds'] - 2.0) < 1e-6, d['clips'][0]
states = [s['state'] for m in d['materials'][:2] for s in m['textures'].values()]
assert states == ['found'] * 4, states
PY
  # The bind pose is the file's mesh: each vertex with z negated.
  "$skinview" "$model" --bind-pose --export-pose "$out/bind$t.obj" $trust 2>/dev/null || fail "bind$t"
  python3 - "$out/files/strip.m3d" "$out/bind$t.obj" <<'PY' || fail "bind$t: not the file's vertices"
import sys
toks = open(sys.argv[1]).read().split()
want = set()
for i, t in enumerate(toks):
    if t == 'Position:':
        want.add(tuple(round(v, 5) for v in (float(toks[i + 1]), float(toks[i + 2]), -float(toks[i + 3]))))
got = set(tuple(round(float(v), 5) for v in line.split()[1:4]) for line in open(sys.argv[2]) if line.startswith('v '))
assert got == want, (len(got), len(want), sorted(got - want)[:3], sorted(want - got)[:3])
PY
done

# Drawn textured from ../Textures (the material colour where they are not).
"$skinview" "$model" --time 0.8 --size 160x160 --screenshot "$out/textured.png" 2>/dev/null || fail "textured"
cp "$out/files/strip.m3d" "$out/bare.m3d"
"$skinview" "$out/bare.m3d" --time 0.8 --size 160x160 --screenshot "$out/bare.png" 2>/dev/null || fail "bare"
"$check" differ "$out/textured.png" "$out/bare.png" >/dev/null || fail "the DDS maps not drawn"
# Views, a crowd, a blend with the second file's clip, dual quaternions.
for args in "--skeleton --weights Bone1 --wireframe --normals" "--instances 6" \
            "--anim-file $out/book/Models/strip_wave.m3d --blend Bend,Wave,0.4" "--skinning dq"; do
  # shellcheck disable=SC2086
  "$skinview" "$model" --time 0.5 --size 96x96 --screenshot "$out/view.png" $args 2>"$out/view.err" ||
    { fail "$args: status $?"; cat "$out/view.err"; }
  "$check" nonblank "$out/view.png" >/dev/null || fail "$args: blank"
done

for bad in lying_count bone_index parent_after nan cut; do
  for trust in "" --trust; do
    "$skinview" "$out/files/$bad.m3d" --list $trust >/dev/null 2>"$out/bad.err"
    status=$?
    if [ "$status" -ne 4 ] || [ "$(wc -l <"$out/bad.err")" -ne 1 ] || ! grep -q "\.m3d" "$out/bad.err"; then
      fail "$bad$trust: status $status"
      cat "$out/bad.err"
    fi
  done
done
"$skinview" "$out/files/no_header.m3d" --list >/dev/null 2>"$out/bad.err"
[ $? -eq 4 ] && grep -q "not a model file Skinview reads" "$out/bad.err" || { fail "no_header"; cat "$out/bad.err"; }
echo "$failures failure(s)"
[ "$failures" -eq 0 ]
