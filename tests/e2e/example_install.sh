#!/usr/bin/env bash
# libskinview_anim as another program uses it: installs the build into a
# temporary prefix, compiles examples/EXAMPLE.c against the installed
# header, library and pkg-config file only (plus examples/arm.h, the arm
# the examples share), runs it, and checks what it prints against the
# arm's geometry worked out here: the elbow is at x = 1 and turns about
# z, so the hand is at (1 + cos a, sin a, 0) once it has turned by a.
#   pose_arm   clip "bend", a = 90 degrees * t over 1 s
#   blend_arm  "bend" (+90 * t) and "droop" (-90 * t) blended at w:
#              slerp gives a = 90 * t * (1 - 2w); w = 0 is "bend" alone
#   crowd_arm  1000 characters, each at its own time T: a = 90 * (T mod 1)
#   skin_arm   the skinned points' bounds: (0, 0, 0) - (1 + cos a, sin a, 0)
# Only the public headers are installed: those skinview_anim.h includes.
# Usage: example_install.sh BUILD_DIR SOURCE_DIR [EXAMPLE]   (default pose_arm)
set -euo pipefail
build=$1 source=$2 example=${3:-pose_arm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words are separate arguments
cc -std=c11 -Wall -Wextra -Werror -I "$source/examples" "$source/examples/$example.c" \
  $(pkg-config --cflags --libs skinview_anim) -o "$tmp/$example"
# The public headers, and no others: those skinview_anim.h includes,
# directly or not, are every header installed (an internal one shipped is
# API nobody meant to keep).
# shellcheck disable=SC2046
reached=$(cc -std=c11 -M $(pkg-config --cflags skinview_anim) "$source/examples/pose_arm.c" | tr ' \\' '\n\n' |
  grep '/include/skinview/' | xargs -n1 basename | sort -u)
installed=$(ls "$tmp/prefix/include/skinview" | sort)
if [ "$reached" != "$installed" ]; then
  echo "FAIL: installed headers that skinview_anim.h does not include:"
  comm -13 <(echo "$reached") <(echo "$installed")
  exit 1
fi
"$tmp/$example" >"$tmp/out"
cat "$tmp/out"

# Each check: awk over the output, one FAIL line per wrong value, exit 1
# on any. hand_ok: (x, y, z) is the hand after turning by `a` (radians),
# to within a squared distance `tol`: 1e-8 for the 4 decimals printed,
# 1e-7 where the time is printed rounded too (crowd_arm).
common='function hand_ok(x, y, z, a, tol) { return (x - (1 + cos(a)))^2 + (y - sin(a))^2 + z^2 < tol }
        BEGIN { pi = atan2(0, -1); bad = 0; n = 0 }
        { line = $0; gsub(/[(),:]/, " ", line); split(line, f, " ") }'
case $example in
pose_arm)
  awk "$common"'
       /hand at/ {   # t = T s hand at X Y Z
         a = f[3] * pi / 2
         if (!hand_ok(f[7], f[8], f[9], a, 1e-8)) { print "FAIL: t = " f[3] ": expected (" 1 + cos(a) ", " sin(a) ", 0)"; bad = 1 }
         n++
       }
       END { if (n != 3) { print "FAIL: " n " poses printed, want 3"; bad = 1 } exit bad }' "$tmp/out"
  echo "ok: the installed library posed the arm as its geometry says" ;;
blend_arm)
  awk "$common"'
       /hand at/ {   # t = T s w = W hand at X Y Z
         a = f[3] * pi / 2 * (1 - 2 * f[7])
         if (!hand_ok(f[10], f[11], f[12], a, 1e-8)) { print "FAIL: t = " f[3] ", w = " f[7] ": expected (" 1 + cos(a) ", " sin(a) ", 0)"; bad = 1 }
         n++; if (f[7] == 0) ends++; if (f[7] == 1) ends++
       }
       END { if (n != 8 || ends != 4) { print "FAIL: " n " blends printed (" ends " at w = 0 or 1), want 8 (4)"; bad = 1 }
             exit bad }' "$tmp/out"
  echo "ok: the installed library blended the two clips as slerp says, the ends equal to each clip" ;;
crowd_arm)
  awk "$common"'
       /characters, posed by/ { count = f[1]; threads = f[5] }
       /^character/ {   # character I at T s hand at X Y Z
         t = f[4] - int(f[4]); a = t * pi / 2
         if (!hand_ok(f[8], f[9], f[10], a, 1e-7)) { print "FAIL: character " f[2] " at " f[4] ": expected (" 1 + cos(a) ", " sin(a) ", 0)"; bad = 1 }
         n++
       }
       /largest difference/ { worst = f[5]; seen = 1 }
       END { if (count != 1000 || threads < 1) { print "FAIL: " count " characters on " threads " threads, want 1000 on 1 or more"; bad = 1 }
             if (n != 3) { print "FAIL: " n " characters printed, want 3"; bad = 1 }
             if (!seen || !(worst + 0 <= 1e-5)) { print "FAIL: the crowd differs from pose_evaluate by " worst; bad = 1 }
             exit bad }' "$tmp/out"
  echo "ok: the installed library posed the crowd as pose_evaluate does, each arm as its geometry says" ;;
skin_arm)
  awk "$common"'
       /bounds/ {   # t = T s bounds LX LY LZ - HX HY HZ
         a = f[3] * pi / 2
         if (f[6]^2 + f[7]^2 + f[8]^2 > 1e-8 || !hand_ok(f[10], f[11], f[12], a, 1e-8)) {
           print "FAIL: t = " f[3] ": expected (0, 0, 0) - (" 1 + cos(a) ", " sin(a) ", 0)"; bad = 1 }
         n++
       }
       END { if (n != 3) { print "FAIL: " n " bounds printed, want 3"; bad = 1 } exit bad }' "$tmp/out"
  echo "ok: the installed library skinned the arm on the CPU as its geometry says" ;;
*)
  echo "example_install.sh: no check for example '$example'" >&2
  exit 2 ;;
esac
