#!/usr/bin/env bash
# Half-Life 1 MDL clips last their frames, not a second a frame: Assimp's
# reader keys frames 0 .. n-1 at the sequence's fps but says the clip lasts
# fps x n ticks, so man.mdl's walk (26 frames at 30 fps) would move for
# 0.83 s of 26 and stand still for the rest (assimp_fixes.c, hl1_duration).
# And body parts show their first submodel, as the game's default body
# does, or every submodel where that body draws nothing (meshes.c,
# hl1_default_body).
# Usage: e2e_hl1_clips.sh SKINVIEW HL1_DIR OUT_DIR BLANK_BODY_MDL
#   BLANK_BODY_MDL: tests/tools/gen/hl1_blank_body.py's copy of duplicate_submodels.mdl
set -uo pipefail
skinview=$1 hl1=$2 out=$3 blank=$4
mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# The durations: n - 1 frames at the sequence's fps.
check_clip() { # FILE INDEX NAME TICKS TICKS_PER_SECOND
  "$skinview" "$hl1/$1" --list --json 2>/dev/null | "$py" -c '
import json, sys
clip = json.load(sys.stdin)["clips"][int(sys.argv[1])]
want = (sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
got = (clip["name"], clip["ticks"], clip["ticks_per_second"])
assert got == want, "%s: %s, expected %s" % (sys.argv[5], got, want)
' "$2" "$3" "$4" "$5" "$1" || fail "$1: clip $2's duration"
}
check_clip man.mdl 1 walk 25 30
check_clip man.mdl 0 reference 1 30
check_clip chrome_sphere.mdl 0 idle 220 25

# The walk loops over its 0.833 s: half a second in, and one loop later,
# the same pose (to float rounding of the time); 0.8 s is another pose.
for t in 0.5 1.3333333333 0.8; do
  "$skinview" "$hl1/man.mdl" --anim walk --time "$t" --export-pose "$out/walk_$t.obj" 2>/dev/null ||
    fail "--anim walk --time $t"
done
"$py" - "$out/walk_0.5.obj" "$out/walk_1.3333333333.obj" "$out/walk_0.8.obj" <<'PY' || fail "the walk does not loop over its frames"
import sys
def points(f):
    return [list(map(float, l.split()[1:4])) for l in open(f) if l.startswith('v ')]
a, b, c = (points(f) for f in sys.argv[1:4])
same = max(abs(x - y) for p, q in zip(a, b) for x, y in zip(p, q))
moved = max(abs(x - y) for p, q in zip(a, c) for x, y in zip(p, q))
print('0.5 s against one loop later: %.2g; against 0.8 s: %.2g' % (same, moved))
assert len(a) == len(b) == len(c) > 0 and same < 1e-4 and moved > 0.1
PY
# Body parts: man.mdl's three heads are one part's submodels (2 hidden, 3
# meshes left of 5); duplicate_submodels.mdl's three parts hold two each.
check_body() { # FILE MESHES WARNING
  "$skinview" "$1" --list >"$out/body.txt" 2>"$out/body.err" || fail "$1: --list exited $?"
  grep -q "^meshes: $2 " "$out/body.txt" || fail "$1: not $2 meshes: $(grep '^meshes' "$out/body.txt")"
  grep -q "$3" "$out/body.err" || fail "$1: no warning '$3': $(cat "$out/body.err")"
}
check_body "$hl1/man.mdl" 3 "Half-Life body parts: 2 submodel(s) hidden; each part shows its first"
check_body "$hl1/duplicate_submodels.mdl" 3 "Half-Life body parts: 3 submodel(s) hidden; each part shows its first"
# Every part's first submodel blank: the default body draws nothing, so
# every other submodel shows, not an empty model (which is refused).
check_body "$blank" 3 "the default body draws nothing (each part's first submodel is blank); all 3 other"
[ $status -eq 0 ] && echo "PASS: HL1 clips last n - 1 frames and loop; body parts show their default body"
exit $status
