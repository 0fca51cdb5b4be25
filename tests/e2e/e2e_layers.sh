#!/usr/bin/env bash
# --layer's command line: every bad SPEC is one line on stderr naming the
# part, status 2 (README "Layers"); names with ':' split only before a
# field; the layers reach every output (--screenshot, --frames, --gif,
# --export-pose, a crowd, both skinning modes) and move the pose there;
# --list --json gives every node's parent. (The pose itself is checked
# against three.js by the reference_layers_* cases.)
# The camera frames what is drawn: the layered (or --blend's blended)
# pose, not the base clip's.
# Usage: e2e_layers.sh SKINVIEW SHARED_MODELS_DIR OUT_DIR SKV_CHECK
set -uo pipefail
skinview=$1 shared=$2 out=$3 check=$4
robot=$shared/gltf/robot.glb
rm -rf "$out" && mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect2() { # expect2 NEEDLE SPEC...
  local needle=$1
  shift
  local args=()
  for spec in "$@"; do args+=(--layer "$spec"); done
  "$skinview" "$robot" --anim Robot_Walking "${args[@]}" --list >/dev/null 2>"$out/err"
  local got=$? lines shown="$*"
  lines=$(wc -l <"$out/err")
  if [ "$got" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$needle" "$out/err"; then
    fail "--layer ${shown:0:100} -> status $got, $lines line(s), want 2 and one line with '$needle':"
    cut -c1-300 "$out/err" | sed 's/^/    /'
  else
    echo "ok: $(cat "$out/err")"
  fi
}
expect2 "no clip 'Nope'" Nope
expect2 "no clip '99'" 99
expect2 "no node 'Nope'" Robot_Wave:mask=Nope
expect2 "no node 'Torso:weight'" "Robot_Wave:mask=Torso:weight"
expect2 "no clip 'Nope'" Robot_Yes:additive=Nope
expect2 "weight '1.5'" Robot_Wave:weight=1.5
expect2 "weight '-0.1'" Robot_Wave:weight=-0.1
expect2 "weight 'nan'" Robot_Wave:weight=nan
expect2 "weight 'inf'" Robot_Wave:weight=inf
expect2 "weight '0x1p-1'" Robot_Wave:weight=0x1p-1
expect2 "weight ''" Robot_Wave:weight=
expect2 "weight ' 0.5'" "Robot_Wave:weight= 0.5"
expect2 "empty bone name in 'mask='" Robot_Wave:mask=
expect2 "empty bone name in 'mask=Torso++Neck'" Robot_Wave:mask=Torso++Neck
expect2 "no reference clip" Robot_Yes:additive=
expect2 "bad field 'additive:x'" Robot_Yes:additive:x
expect2 "mask given twice" Robot_Wave:mask=Torso:mask=Neck
expect2 "weight given twice" Robot_Wave:weight=1:weight=0
expect2 "additive given twice" Robot_Yes:additive:additive
expect2 "no clip before" :weight=1
expect2 "no clip before" ""
expect2 "no clip 'Robot_Wave:Torso'" Robot_Wave:Torso   # not a field: part of the name
# A long SPEC (an argument holds at most 128 KiB) is echoed shortened, so
# that the line still says what is wrong with it.
long=$(head -c 100000 /dev/zero | tr '\0' A)
expect2 "': no clip 'AAAA" "$long"
expect2 "': no node 'AAAA" "Robot_Wave:mask=$long"
expect2 "': no clip 'AAAA" "Robot_Wave:additive=$long"
expect2 "is not a number in [0, 1]" "Robot_Wave:weight=$long"
expect2 "is not a number in [0, 1]" "$long:weight=x"
expect2 "empty bone name in 'mask=Torso" "Robot_Wave:mask=Torso+$long+"
# A weight in [0, 1] however many digits it is written with.
"$skinview" "$robot" --layer "Robot_Wave:weight=0.$(head -c 200 /dev/zero | tr '\0' 5)" --list >/dev/null 2>"$out/err" ||
  { fail "a 200-digit weight in [0, 1] refused:"; sed 's/^/    /' "$out/err"; }
"$skinview" "$robot" --layer Robot_Wave --blend Robot_Idle,Robot_Walking,0.5 --list >/dev/null 2>"$out/err"
[ $? -eq 2 ] && [ "$(wc -l <"$out/err")" -eq 1 ] || fail "--layer with --blend: want status 2, one line"
many=()
for i in $(seq 33); do many+=(--layer Robot_Wave); done
"$skinview" "$robot" "${many[@]}" --list >/dev/null 2>"$out/err"
[ $? -eq 2 ] && grep -q "at most 32 --layer" "$out/err" || fail "33 layers: want status 2 'at most 32 --layer'"

# Clips by index as by name; Torso (a joint and a mesh node) means the joint.
pose() { "$skinview" "$robot" --time 0.6 "$@" --export-pose "$out/pose.obj" >/dev/null 2>&1 && grep '^v ' "$out/pose.obj"; }
pose --anim Robot_Walking >"$out/base.v" || fail "base pose"
pose --anim Robot_Walking --layer Robot_Wave:mask=Torso >"$out/torso.v" || fail "--layer by names"
pose --anim 10 --layer 12:mask=Torso >"$out/index.v" || fail "--layer by indices"
cmp -s "$out/torso.v" "$out/index.v" || fail "clips by index differ from clips by name"
cmp -s "$out/base.v" "$out/torso.v" && fail "the layer did not move the pose"
pose --anim Robot_Walking --layer Robot_Wave:mask=Torso:weight=0 >"$out/zero.v" || fail "weight 0"
python3 - "$out/base.v" "$out/zero.v" <<'PY' || fail "weight 0 is not the base pose"
import sys
a, b = ([float(x) for line in open(f) for x in line.split()[1:4]] for f in sys.argv[1:3])
worst = max(abs(x - y) for x, y in zip(a, b))
print("ok: weight 0 vs the base pose: %.2g" % worst)
sys.exit(0 if len(a) == len(b) and worst < 1e-4 else 1)
PY

# Every output takes the layers: each run succeeds and differs from the
# same run without them.
outputs() { # outputs NAME ARGS... (DIR in ARGS: the run's folder): with and without the layers, compared
  local name=$1
  shift
  for with in 0 1; do
    local dir=$out/$name.$with extra=() args=()
    mkdir -p "$dir"
    [ "$with" = 1 ] && extra=(--layer Robot_Wave:mask=Torso --layer Robot_Yes:additive:weight=0.5)
    for a in "$@"; do args+=("${a/DIR/$dir}"); done
    "$skinview" "$robot" --anim Robot_Walking --time 0.6 --size 96x96 "${args[@]}" "${extra[@]}" >/dev/null \
      2>"$out/err.$name" || { fail "$name (layers $with):"; sed 's/^/    /' "$out/err.$name"; return; }
  done
  if [ -z "$(ls "$out/$name.1")" ] || diff -rq "$out/$name.0" "$out/$name.1" >/dev/null; then
    fail "$name: no output, or the layers changed nothing"
  else
    echo "ok: $name ($(ls "$out/$name.1" | wc -l) file(s), moved by the layers)"
  fi
}
outputs shot --screenshot DIR/shot.png
outputs frames --screenshot DIR/frames_%02d.png --frames 3
outputs gif --gif DIR/anim.gif --frames 3
outputs dq --screenshot DIR/dq.png --skinning dq
outputs crowd --screenshot DIR/crowd.png --instances 4
outputs obj --export-pose DIR/pose.obj

# The framing is the pose drawn: layered, or --blend's blended one (the
# second clip at weight 1), not the base clip's. --frame pose: the
# picture is framed as the pose it exports would be (robot.glb falling
# over, Robot_Death over Robot_Idle, stands elsewhere than the idle pose);
# --frame clip: the whole clip drawn in the picture (Robot_Jump over
# Robot_Sitting stands taller than the sitting clip: its head left the
# picture). framed_as_drawn NAME POSE_ARGS CLIP_ARGS.
framed_as_drawn() {
  local name=$1 pose=$2 clip=$3 drawn exported x0 y0 x1 y1
  # shellcheck disable=SC2086
  "$skinview" "$robot" $pose --time 0.9 --frame pose --msaa 1 --size 160x160 \
    --screenshot "$out/$name.pose.png" --export-pose "$out/$name.pose.obj" >/dev/null 2>&1 &&
    "$skinview" "$out/$name.pose.obj" --msaa 1 --size 160x160 --screenshot "$out/$name.obj.png" >/dev/null 2>&1 ||
    fail "--frame pose with $name: no picture"
  drawn=$("$check" extent "$out/$name.pose.png" 8) exported=$("$check" extent "$out/$name.obj.png" 8)
  [ "$drawn" = "$exported" ] && echo "ok: --frame pose frames the pose drawn with $name ($drawn)" ||
    fail "--frame pose with $name: the picture spans $drawn, its exported pose framed alone $exported"
  # shellcheck disable=SC2086
  "$skinview" "$robot" $clip --time 0.2 --size 160x160 --screenshot "$out/$name.clip.png" >/dev/null 2>&1 ||
    fail "--frame clip with $name: no picture"
  read -r x0 y0 x1 y1 < <("$check" extent "$out/$name.clip.png" 8)
  [ "${x0:-0}" -gt 0 ] && [ "${y0:-0}" -gt 0 ] && [ "${x1:-159}" -lt 159 ] && [ "${y1:-159}" -lt 159 ] &&
    echo "ok: the clip drawn with $name inside the picture ($x0 $y0 $x1 $y1)" ||
    fail "--frame clip with $name: the model reaches the picture's edge ($x0 $y0 $x1 $y1)"
}
framed_as_drawn layer "--anim Robot_Idle --layer Robot_Death" "--anim Robot_Sitting --layer Robot_Jump"
framed_as_drawn blend "--blend Robot_Idle,Robot_Death,1" "--blend Robot_Sitting,Robot_Jump,1"
# Each clip drawn loops on its own duration: the clip framed is the
# longest, not the first. Robot_Sitting (0.42 s) with Robot_Dance (3.3 s)
# at weight 1, as a blend and as a layer: the dance's arm past the
# picture's right edge at 0.9 s where only the sitting's 0.42 s were framed.
for how in "--blend Robot_Sitting,Robot_Dance,1" "--anim Robot_Sitting --layer Robot_Dance"; do
  edge=999
  for t in 0.3 0.9 1.5 2.1 2.7; do
    # shellcheck disable=SC2086
    "$skinview" "$robot" $how --time "$t" --msaa 1 --size 160x160 --screenshot "$out/longest.png" >/dev/null 2>&1 ||
      fail "$how at $t: no picture"
    read -r x0 y0 x1 y1 < <("$check" extent "$out/longest.png" 8)
    for v in "${x0:-0}" "${y0:-0}" $((159 - ${x1:-159})) $((159 - ${y1:-159})); do [ "$v" -lt "$edge" ] && edge=$v; done
  done
  [ "$edge" -gt 0 ] && echo "ok: $how framed on the longest clip (nearest edge $edge px)" ||
    fail "$how: the model reaches the picture's edge (the longer clip not framed whole)"
done

# A crowd plays one clip a character (crowd.c poses no blend): --blend
# with --instances is a bad command line, one line and status 2, not a
# blend silently left out.
"$skinview" "$robot" --blend Robot_Idle,Robot_Death,1 --instances 4 --time 0.9 --size 128x128 \
  --screenshot "$out/blend_crowd.png" >/dev/null 2>"$out/blend_crowd.err"
st=$?
[ "$st" -eq 2 ] && [ "$(wc -l <"$out/blend_crowd.err")" -eq 1 ] && grep -q -- "--instances" "$out/blend_crowd.err" &&
  [ ! -e "$out/blend_crowd.png" ] && echo "ok: --blend with --instances refused ($(cat "$out/blend_crowd.err"))" ||
  fail "--blend with --instances: status $st, said: $(head -c 300 "$out/blend_crowd.err")"

# --list --json: every node with its parent, the joints marked.
"$skinview" "$robot" --list --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
nodes = d["nodes"]
assert all(-1 <= n["parent"] < n["index"] for n in nodes), "parents first"
torso = [n for n in nodes if n["name"] == "Torso"]
assert len(torso) == 2 and sum(n["joint"] for n in torso) == 1, torso
print("ok: --list --json: %d nodes with parents" % len(nodes))
' || fail "--list --json nodes"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all ok"
