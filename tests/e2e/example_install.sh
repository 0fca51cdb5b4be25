#!/usr/bin/env bash
# libskinview_anim as another program uses it: installs the build into a
# temporary prefix, compiles examples/pose_arm.c against the installed
# header, library and pkg-config file only, runs it, and checks the hand
# against the arm's geometry worked out here (elbow at x = 1, bending
# 90 degrees about z over 1 s: hand = (1 + cos a, sin a, 0)).
# Only the public headers are installed: those skinview_anim.h includes.
# Usage: example_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's words are separate arguments
cc -std=c11 -Wall -Wextra -Werror "$source/examples/pose_arm.c" $(pkg-config --cflags --libs skinview_anim) \
  -o "$tmp/pose_arm"
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
"$tmp/pose_arm" >"$tmp/out"
cat "$tmp/out"
awk 'BEGIN { pi = atan2(0, -1); bad = 0; n = 0 }
     /hand at/ {
       t = $3; gsub(/[(),]/, " "); split($0, f, " ")
       x = f[7]; y = f[8]; z = f[9]; a = t * pi / 2
       if ((x - (1 + cos(a)))^2 + (y - sin(a))^2 + z^2 > 1e-8) { print "FAIL: t = " t ": expected (" 1 + cos(a) ", " sin(a) ", 0)"; bad = 1 }
       n++
     }
     END { if (n != 3) { print "FAIL: " n " poses printed, want 3"; bad = 1 } exit bad }' "$tmp/out"
echo "ok: the installed library posed the arm as its geometry says"
