#!/usr/bin/env bash
# --video (issue #46): the container and codec come from the extension
# (.mp4 H.264, .webm VP9, .mkv H.264 in Matroska); ffprobe checks each
# file's codec, size and frame count (the clip once round at --fps, 30 by
# default, or --frames N from --time). A transparent background makes a
# WebM with an alpha plane: decoded by libvpx, its alpha matches the PNG
# render of the same frame. What the formats cannot hold is refused
# (status 2, one line): another extension, alpha in H.264, odd sizes,
# standard output. On a terminal a progress bar, elsewhere one "wrote"
# line. (Atomic writes: e2e_outputs.sh.)
# Usage: e2e_video.sh SKINVIEW SKV_CHECK MODEL OUT_DIR
# MODEL: a model with one clip of 2 s (assets/worm.dae).
set -uo pipefail
skinview=$1 check=$2 model=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
for tool in ffprobe ffmpeg script; do
  command -v "$tool" >/dev/null || { echo "FAIL: no $tool (tools/install-deps.sh installs ffmpeg)"; exit 1; }
done

probe() { # FILE: codec,width,height,rate,frames of the first video stream
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,width,height,nb_read_frames,avg_frame_rate -of csv=p=0 "$1"
}
expect_video() { # FILE WANT(codec,width,height,rate,frames) ARGS...
  local file=$1 want=$2
  shift 2
  "$skinview" "$model" --video "$file" "$@" >"$out/stdout" 2>"$out/stderr"
  local got=$?
  if [ "$got" -ne 0 ] || [ -s "$out/stderr" ]; then
    fail "--video $file $*: status $got: $(head -c 300 "$out/stderr")"
    return
  fi
  local have
  have=$(probe "$file")
  if [ "$have" = "$want" ]; then echo "ok: $file $*: $have ($(stat -c %s "$file") bytes)"
  else fail "$file $*: ffprobe says '$have', want '$want'"; fi
}

# Clip once round at the default 30 fps: 2 s, 60 frames.
expect_video "$out/clip.mp4" h264,160,120,30/1,60 --size 160x120
grep -qx "wrote $out/clip.mp4 (60 frames at 30 fps, 160x120, H.264)" "$out/stdout" ||
  fail "the mp4's stdout: $(cat "$out/stdout")"
[ "$(head -c 8 "$out/clip.mp4" | tail -c 4)" = ftyp ] || fail "clip.mp4 is not an MPEG-4 file"
# At --fps 10: 20 frames, VP9 in WebM.
expect_video "$out/clip.webm" vp9,160,120,10/1,20 --size 160x120 --fps 10
head -c 64 "$out/clip.webm" | grep -q webm || fail "clip.webm's DocType is not webm"
# --frames N from --time, H.264 in Matroska.
expect_video "$out/part.mkv" h264,128,96,24/1,7 --size 128x96 --fps 24 --frames 7 --time 0.5
head -c 64 "$out/part.mkv" | grep -q matroska || fail "part.mkv's DocType is not matroska"
# Upper-case extensions are the same formats.
expect_video "$out/upper.MP4" h264,64,48,30/1,3 --size 64x48 --frames 3
# The frames are the clip's: the first and last frames differ, and the
# first is the PNG render of t = 0 (up to the codec's loss).
ffmpeg -v error -y -i "$out/clip.mp4" -vf "select=eq(n\,0)" -frames:v 1 "$out/mp4_first.png" &&
  ffmpeg -v error -y -i "$out/clip.mp4" -vf "select=eq(n\,59)" -frames:v 1 "$out/mp4_last.png" ||
  fail "ffmpeg could not decode clip.mp4"
"$check" differ "$out/mp4_first.png" "$out/mp4_last.png" || fail "the video's first and last frames are alike"
"$skinview" "$model" --size 160x120 --screenshot "$out/t0.png" >/dev/null
"$check" golden "$out/mp4_first.png" "$out/t0.png" "$out/mp4_first.diff.png" 24 0.01 ||
  fail "the mp4's first frame is not the render at t = 0"

# A transparent background: VP9 with its alpha plane (WebM's alpha_mode),
# decoded by libvpx (FFmpeg's own VP9 decoder drops alpha) and compared
# with the PNG render of the same frame.
expect_video "$out/alpha.webm" vp9,160,120,30/1,4 --size 160x120 --frames 4 --time 0.5 --background transparent
grep -qx "wrote $out/alpha.webm (4 frames at 30 fps, 160x120, VP9 with alpha)" "$out/stdout" ||
  fail "alpha.webm's stdout: $(cat "$out/stdout")"
[ "$(ffprobe -v error -select_streams v:0 -show_entries stream_tags=alpha_mode -of csv=p=0 "$out/alpha.webm")" = 1 ] ||
  fail "alpha.webm has no alpha_mode 1"
[ -z "$(ffprobe -v error -select_streams v:0 -show_entries stream_tags=alpha_mode -of csv=p=0 "$out/clip.webm")" ] ||
  fail "the opaque clip.webm says it has alpha"
ffmpeg -v error -y -c:v libvpx-vp9 -i "$out/alpha.webm" -frames:v 1 -pix_fmt rgba "$out/alpha_first.png" ||
  fail "libvpx could not decode alpha.webm"
"$skinview" "$model" --size 160x120 --time 0.5 --background none --screenshot "$out/alpha_t05.png" >/dev/null
"$check" alpha "$out/alpha_first.png" 0 0 0 4 || fail "alpha.webm's corner is not transparent"
"$check" alphas "$out/alpha_first.png" "$out/alpha_t05.png" 24 0.01 || fail "alpha.webm's alpha is not the render's"

# Refused, one line, status 2, nothing written.
refuse() { # NEEDLE ARGS...
  local needle=$1
  shift
  "$skinview" "$model" "$@" >"$out/stdout" 2>"$out/stderr"
  local got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <"$out/stderr")" -ne 1 ] || ! grep -qF -- "$needle" "$out/stderr"; then
    fail "$*: status $got (want 2): $(head -c 300 "$out/stderr")"
  else
    echo "ok: refused: $(cat "$out/stderr")"
  fi
}
refuse "bad value for --video: '$out/x.avi' (expected a file name ending .mp4, .webm or .mkv)" --video "$out/x.avi"
refuse "bad value for --video: '-'" --video -
refuse "H.264 ($out/x.mp4) has no alpha channel" --video "$out/x.mp4" --background transparent
refuse "H.264 ($out/x.mkv) has no alpha channel" --video "$out/x.mkv" --background none
refuse "--video needs an even width and height" --video "$out/x.mp4" --size 161x120
refuse "one of --screenshot, --gif and --video per run" --video "$out/x.mp4" --gif "$out/x.gif"
refuse "one of --screenshot, --gif and --video per run" --video "$out/x.mp4" --screenshot "$out/x.png"
ls "$out"/x.* >/dev/null 2>&1 && fail "a refused run wrote $(ls "$out"/x.*)"

# On a terminal (script gives one) a progress bar that reaches the end.
script -qec "'$skinview' '$model' --size 64x48 --fps 10 --video '$out/tty.mp4'" /dev/null >"$out/tty.txt" 2>&1 ||
  fail "--video on a terminal: $(tail -c 300 "$out/tty.txt")"
grep -q '\[##############################\] 20/20' "$out/tty.txt" || fail "no full progress bar on a terminal: $(tail -c 300 "$out/tty.txt")"
# Not on a terminal: no bar, the one line.
"$skinview" "$model" --size 64x48 --fps 10 --video "$out/pipe.mp4" | cat >"$out/piped.txt"
[ "$(cat "$out/piped.txt")" = "wrote $out/pipe.mp4 (20 frames at 10 fps, 64x48, H.264)" ] ||
  fail "--video into a pipe printed: $(head -c 300 "$out/piped.txt")"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
