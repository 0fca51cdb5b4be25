#!/bin/sh
# ir_per_bone.sh - callgrind instructions per bone per frame of pose_evaluate.
#
#   bench/ir_per_bone.sh BENCH MODEL [CLIP [--seek|--lent]]
#
# Runs `BENCH --profile N` (skinview-bench) twice under callgrind, counting
# only inside pose_evaluate (--toggle-collect), with N and 2N frames, and
# divides the difference by N x bones: what is left is the per-frame cost,
# without the first frame's one-off work. valgrind has no AVX-512, so this
# counts the AVX2 code (or SSE2 where the CPU lacks AVX2).
set -eu
bench=$1 model=$2 clip=${3:-0} seek=${4:-}
n=240
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out.$1" --toggle-collect='pose_evaluate*' \
        "$bench" --profile "$1" --clip "$clip" $seek "$model" >"$tmp/stdout.$1" 2>"$tmp/stderr.$1" ||
        { cat "$tmp/stderr.$1" >&2; exit 1; }
    sed -n 's/^summary: *//p; s/^totals: *//p' "$tmp/out.$1" | head -1
}
a=$(count $n)
b=$(count $((2 * n)))
bones=$(sed -n 's/^bones \([0-9]*\) .*/\1/p' "$tmp/stdout.$n")
name=$(sed -n 's/^bones [0-9]* clip \(.*\) frames .*/\1/p' "$tmp/stdout.$n")
awk -v a="$a" -v b="$b" -v n="$n" -v bones="$bones" -v m="$(basename "$model")" -v c="$name" -v s="${seek:-play}" \
    'BEGIN { printf "%-28s %-24s %-6s %4d bones %8.1f Ir/frame %7.1f Ir/bone\n", m, c, s, bones, (b - a) / n, (b - a) / n / bones }'
