#!/usr/bin/env bash
# Keeping the motion in view: --follow, --in-place, --frame pose and the
# camera flags, on a walk that leaves its starting place (BVH 01_01).
# Usage: e2e_camera.sh SKINVIEW SKV_CHECK MODEL OUT_DIR
set -uo pipefail
skinview=$1 check=$2 model=$3 out=$4
mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
shot() { local name=$1; shift; "$skinview" "$model" --size 200x200 --time 20 "$@" --screenshot "$out/$name.png" 2>/dev/null || fail "$name: exit $?"; }
cover() { "$check" nonblank "$out/$1.png" | sed -n 's/.*: \([0-9.]*\)% of pixels.*/\1/p'; }
shot plain
shot follow --follow
shot in_place --in-place
shot pose --frame pose
shot side --camera-azimuth 90 --camera-elevation 30 --camera-zoom 1.5
plain=$(cover plain) follow=$(cover follow) in_place=$(cover in_place) pose=$(cover pose)
echo "figure covers: plain $plain%, --follow $follow%, --in-place $in_place%, --frame pose $pose%"
# Framed over the whole walk the figure is small; following it, or taking
# the walk out, or framing the pose shown, it fills several times more.
for v in follow in_place pose; do
  awk -v a="${!v}" -v b="$plain" 'BEGIN { exit !(a > 3 * b) }' || fail "--$v: the figure covers $(eval echo \$$v)%, not 3x $plain%"
done
"$check" differ "$out/plain.png" "$out/side.png" >/dev/null || fail "the camera flags do not change the picture"
# At the clip's start all agree that the figure is where it starts: the
# in-place picture at 0 s equals the following one.
"$skinview" "$model" --size 200x200 --time 0 --follow --screenshot "$out/follow0.png" 2>/dev/null
"$skinview" "$model" --size 200x200 --time 0 --in-place --screenshot "$out/in_place0.png" 2>/dev/null
"$check" same "$out/follow0.png" "$out/in_place0.png" >/dev/null || fail "--follow and --in-place differ at the clip's start"
for bad in "--frame sideways" "--camera-azimuth 400" "--camera-elevation 90" "--camera-zoom 0" "--camera-zoom nan"; do
  # shellcheck disable=SC2086
  "$skinview" "$model" $bad --list >/dev/null 2>"$out/bad.err"
  code=$?
  [ "$code" -eq 2 ] && [ "$(wc -l <"$out/bad.err")" -eq 1 ] || fail "'$bad': exit $code, $(wc -l <"$out/bad.err") lines"
done
[ "$status" -eq 0 ] && echo "e2e_camera: all checks passed"
exit $status
