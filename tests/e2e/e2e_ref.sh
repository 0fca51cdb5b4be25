#!/usr/bin/env bash
# --ref: users' own screenshot tests.
# Usage: e2e_ref.sh SKINVIEW SKV_CHECK MODEL OUT_DIR
set -uo pipefail
skinview=$1 check=$2 model=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
run() { "$skinview" "$model" --size 160x120 "$@" 2>>err.txt; }

# No reference yet: without --ref-create that is a failure (status 10, one
# line naming the flag), so a CI job whose reference was never committed
# cannot pass; nothing is written in its place.
run --time 0.5 --skeleton --screenshot a.png --ref ref.png >/dev/null
code=$?
[ "$code" -eq 10 ] || fail "a missing reference exited $code, not 10"
[ -e ref.png ] && fail "a missing reference was written without --ref-create"
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "no reference image ref.png yet; --ref-create writes it" err.txt ||
  fail "a missing reference did not say so in one line: $(cat err.txt)"
# With --ref-create the render becomes it, and says so.
: >err.txt
run --time 0.5 --skeleton --screenshot a.png --ref ref.png --ref-create >/dev/null || fail "--ref-create run exited $?"
[ -e ref.png ] || fail "the missing reference was not written"
grep -q "ref.png: no reference there yet: wrote this render as it (--ref-create)" err.txt ||
  fail "the --ref-create run did not say it wrote the reference"
"$check" same a.png ref.png >/dev/null || fail "the written reference is not the render"
# The same frame matches; a view flag takes part in the picture.
: >err.txt
run --time 0.5 --skeleton --screenshot b.png --ref ref.png || fail "a matching render exited $?"
[ -s err.txt ] && fail "a matching render printed: $(cat err.txt)"
[ -e b.diff.png ] && fail "a matching render wrote a diff"
run --time 0.5 --screenshot c.png --ref ref.png
code=$?
[ "$code" -eq 10 ] || fail "without the skeleton view: exit $code, not 10"
# Another time differs: exit 10, one line per frame and one closing line,
# actual | expected | difference beside the output.
: >err.txt
run --time 1.0 --skeleton --screenshot d.png --ref ref.png
code=$?
[ "$code" -eq 10 ] || fail "a different pose exited $code, not 10"
[ "$(wc -l <err.txt)" -eq 2 ] || fail "a different pose printed $(wc -l <err.txt) lines, not 2"
grep -q "^skinview: d.png: differs from ref.png: .* in d.diff.png" err.txt || fail "no line naming d.diff.png"
python3 - <<'PY' || fail "d.diff.png is not 480x120"
import struct
with open('d.diff.png', 'rb') as f:
    head = f.read(24)
assert struct.unpack('>II', head[16:24]) == (480, 120)
PY
# A threshold of 1 accepts any difference.
run --time 1.0 --skeleton --screenshot e.png --ref ref.png --ref-threshold 1 || fail "--ref-threshold 1 exited $?"
# Frame sequences: one reference per frame; missing ones are status 10
# in one line, or written with --ref-create.
: >err.txt
run --frames 3 --fps 4 --screenshot f_%d.png --ref r_%d.png >/dev/null
code=$?
[ "$code" -eq 10 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "3 of 3 reference images (r_0.png ... r_2.png) missing" err.txt ||
  fail "missing frame references: exit $code, $(cat err.txt)"
[ -e r_0.png ] && fail "frame references written without --ref-create"
run --frames 3 --fps 4 --screenshot f_%d.png --ref r_%d.png --ref-create >/dev/null || fail "frames, --ref-create exited $?"
[ -e r_0.png ] && [ -e r_2.png ] || fail "frame references not written"
# One missing of three: only it is written, the others compared.
rm r_1.png
run --frames 3 --fps 4 --screenshot f_%d.png --ref r_%d.png >/dev/null
[ $? -eq 10 ] || fail "one missing frame reference did not exit 10"
run --frames 3 --fps 4 --screenshot f_%d.png --ref r_%d.png --ref-create >/dev/null || fail "frames, one missing, --ref-create exited $?"
[ -e r_1.png ] || fail "the missing frame reference was not written"
run --frames 3 --fps 4 --screenshot g_%d.png --ref r_%d.png >/dev/null || fail "frames, second run exited $?"
run --frames 3 --fps 4 --time 0.3 --screenshot h_%d.png --ref r_%d.png >/dev/null
code=$?
[ "$code" -eq 10 ] || fail "shifted frames exited $code, not 10"
# Another size: exit 10 and why.
: >err.txt
"$skinview" "$model" --size 80x60 --time 0.5 --skeleton --screenshot s.png --ref ref.png 2>err.txt
code=$?
[ "$code" -eq 10 ] && grep -q "is 160x120, the render 80x60" err.txt || fail "a size mismatch: exit $code, $(cat err.txt)"
# A reference is a file from anywhere: decoded as textures are, in a
# sandboxed child by the image decoders made for hostile input, never by
# the parent. A truncated PNG, a header asking for 30000 x 30000 texels
# and bytes of another kind are each one line and status 3, at once.
head -c 300 ref.png >cut.png
python3 - <<'PY'
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
with open('huge.png', 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 30000, 30000, 8, 6, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(b'\0' * 4096)) + chunk(b'IEND', b''))
with open('ppm.png', 'wb') as f:
    f.write(b'P6\n8 8\n65535\n' + bytes([0xab]) * (8 * 8 * 3 * 2))
PY
for bad in "cut.png:broken PNG" "huge.png:30000x30000 texels" "ppm.png:a Netpbm (PNM) image"; do
  file=${bad%%:*} needle=${bad#*:}
  timeout -s KILL 10 "$skinview" "$model" --size 160x120 --time 0.5 --skeleton --screenshot z.png --ref "$file" 2>err.txt >/dev/null
  code=$?
  [ "$code" -eq 3 ] || fail "reference $file: exit $code, not 3"
  [ "$(wc -l <err.txt)" -eq 1 ] && grep -qF "the reference: cannot read $file: $needle" err.txt ||
    fail "reference $file: not one line naming it and '$needle': $(head -c 300 err.txt)"
done
# A reference as large as a render may be (--size takes 16384 a side):
# 8192 x 6400 texels, 200 MiB decoded, past a model texture's limits. It
# is read, and found to differ in size (status 10), not refused; with
# --import-memory 64 its decoding does not fit, and the line says so.
python3 - <<'PY'
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
w, h = 8192, 6400
z = zlib.compressobj(9)
row = b'\0' + b'\x20\x40\x60\xff' * w
data = b''.join(z.compress(row) for _ in range(h)) + z.flush()
with open('large.png', 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) +
            chunk(b'IDAT', data) + chunk(b'IEND', b''))
PY
run --time 0.5 --skeleton --screenshot l.png --ref large.png 2>err.txt >/dev/null
code=$?
[ "$code" -eq 10 ] && grep -q "the reference large.png is 8192x6400, the render 160x120" err.txt ||
  fail "a reference of 8192x6400: exit $code, $(head -c 300 err.txt)"
run --time 0.5 --skeleton --screenshot l.png --ref large.png --import-memory 64 2>err.txt >/dev/null
code=$?
[ "$code" -eq 3 ] && [ "$(wc -l <err.txt)" -eq 1 ] && grep -q "cannot read large.png: .*--import-memory" err.txt ||
  fail "a reference of 8192x6400 under --import-memory 64: exit $code, $(head -c 300 err.txt)"
# The decoding runs in a process of its own: a run with --ref starts one
# process more than the same run without (threads not counted).
if ! command -v strace >/dev/null; then
  fail "strace missing (tools/install-deps.sh installs it)"
else
  processes() {
    strace -f -qq -e trace=clone,clone3,fork,vfork -o trace.txt "$skinview" "$model" --size 160x120 --time 0.5 \
      --skeleton --screenshot y.png "$@" >/dev/null 2>&1
    grep -E "clone|fork" trace.txt | grep -vc CLONE_THREAD
  }
  without=$(processes) with=$(processes --ref ref.png)
  [ "$with" -eq $((without + 1)) ] || fail "--ref started $with processes, $without without it: not decoded in a child"
  # In a sequence too, forked by the main thread between frames, not by a
  # thread while the main thread draws: the child would inherit the locks
  # the drawing holds (the ASan build's child waited for its allocator's
  # lock until the import's deadline). Prints: processes, those forked by
  # a thread other than the main one. (The exit status is not looked at:
  # LeakSanitizer fails the ASan build's runs under ptrace.)
  sequence_forks() {
    strace -f -qq -e trace=clone,clone3,fork,vfork -o trace.txt "$skinview" "$model" --size 160x120 --frames 4 \
      --fps 4 --screenshot s_%d.png "$@" >/dev/null 2>&1
    local main_thread
    main_thread=$(head -n 1 trace.txt | cut -d' ' -f1)
    grep -E "(clone3?|v?fork)\(" trace.txt | grep -v CLONE_THREAD >forks.txt
    echo "$(wc -l <forks.txt) $(grep -vc "^$main_thread " forks.txt)"
  }
  run --frames 4 --fps 4 --screenshot s_ref_%d.png >/dev/null
  without=$(sequence_forks) with=$(sequence_forks --ref s_ref_%d.png)
  [ "$with" = "$((${without% *} + 4)) 0" ] ||
    fail "4 frames with --ref: $with process(es), by other threads (without --ref: $without): $(cat forks.txt)"
fi
# On a terminal (script gives one) the progress bar and the frames'
# warnings in the frames' order, each line whole: frame k's "differs"
# line, then the bar at k+1 (the frames are written on a thread of their
# own; a bar drawn meanwhile must not land inside a line).
if ! command -v script >/dev/null; then
  fail "script missing (util-linux)"
else
  run --frames 6 --fps 4 --background '#ff0000' --screenshot t_ref_%d.png >/dev/null
  script -qec "'$skinview' '$model' --size 160x120 --frames 6 --fps 4 --screenshot t_%d.png --ref t_ref_%d.png" \
    /dev/null >tty.txt 2>&1
  code=$?
  [ "$code" -eq 10 ] || fail "differing frames on a terminal exited $code, not 10: $(tail -c 300 tty.txt)"
  order=$(grep -aoE '\] +[0-9]+/6|t_[0-9]+\.png: differs' tty.txt |
    sed -E 's/^\] +([0-9]+)\/6$/bar\1/; s/^t_([0-9]+)\.png: differs$/frame\1/' | tr '\n' ' ')
  [ "$order" = "frame0 bar1 frame1 bar2 frame2 bar3 frame3 bar4 frame4 bar5 frame5 bar6 " ] ||
    fail "on a terminal the bar and the warnings came as: $order"
  torn=$'skinview: [^\r]*\r\\['
  grep -aq "$torn" tty.txt && fail "a progress bar inside a line: $(grep -a "$torn" tty.txt | head -c 300)"
fi
# Bad command lines.
"$skinview" "$model" --ref ref.png --list >/dev/null 2>&1
[ $? -eq 2 ] || fail "--ref without --screenshot is not a usage error"
"$skinview" "$model" --frames 2 --screenshot x_%d.png --ref ref.png >/dev/null 2>&1
[ $? -eq 2 ] || fail "--ref without %d under --frames is not a usage error"
"$skinview" "$model" --screenshot x.png --ref-create >/dev/null 2>&1
[ $? -eq 2 ] || fail "--ref-create without --ref is not a usage error"
"$skinview" "$model" --screenshot - --ref ref.png >/dev/null 2>&1
[ $? -eq 2 ] || fail "--ref with --screenshot - is not a usage error"
"$skinview" "$model" --screenshot x.png --ref ref.png --ref-threshold nan >/dev/null 2>&1
[ $? -eq 2 ] || fail "--ref-threshold nan accepted"
[ "$status" -eq 0 ] && echo "e2e_ref: all checks passed"
exit $status
