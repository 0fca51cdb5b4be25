#!/usr/bin/env bash
# The bad-input corpus: skinview must never crash, hang or print garbage.
#
# Builds the corpus in a temporary folder (nothing is committed):
#   - every file in Debian's assimp-testmodels invalid/ folder;
#   - each skinned model below truncated at 10 cut points, and with seeded
#     random byte flips (3 seeds, 0.2% of the bytes each);
#   - awkward paths: missing, a directory, empty, unreadable, names with
#     spaces and non-ASCII letters, an .md5mesh with a missing or
#     mismatched .md5anim, a model without meshes (BVH), without animation.
#   - the hostile files tests/tools/gen/ writes: numbers that overflow a pose
#     (nan_mutations.py), names full of escapes (hostile_names.py), files
#     on which a step was quadratic (zero normals, 80,000 one-channel
#     clips, 70,000 bones, 3,000 bones under 3,000 nodes, 3,000 clips x
#     3,000 nodes), and memory bombs: small files Assimp inflates to
#     gigabytes (fbx_zlib_bomb.py: deflated FBX arrays; memory_bombs.py:
#     PLY and OFF counts, a gzip'd .blend, a 3MF zip of XML).
# Runs `skinview --list` and `skinview --screenshot` on each with a time
# bound. Each run must end in exit 0 (with a PNG for --screenshot) or a
# documented non-zero status with exactly one error line naming the file.
# Resources: with SKV_RESOURCE_CAP_KB set (the normal build), every run has
# that address-space cap (ulimit -v) and a 10 s limit, and its time and
# peak RSS are measured (PEAK_RSS, tests/tools/peak_rss.c: skinview's own
# peak plus its guarded child's, which time(1)'s %M folds into the larger
# of the two): a table of every run, and any run over 10 s or over 1 GiB
# fails. (Sanitizer builds reserve terabytes of address space and run
# slower: there only crashes, hangs and unclean errors count.)
# Prints the tables; fails on any crash, hang, unclean error or overrun.
#
# Then the structure-aware corpus (tests/tools/gen/structure_mutations.py: edited
# counts, indices and numbers in Collada, glTF, ASCII FBX and MD5 files,
# cyclic and 100,000-deep node trees, 300 influences on a vertex, a
# million keys, splices, long messages): `--list --json` and
# `--export-pose` on each, as many at once as there are cores
# (SKV_TEST_JOBS), each must end within 5 s (normal build) with status 0
# or one clean error line, no JSON or OBJ may hold a NaN or inf, and the
# parent may never refuse the child's model block (the conversion must
# not let through what the block check forbids). They
# run with --import-memory 512 and --import-timeout 3: the many memory
# bombs among them (a count or index set to 2^31) then fail in well under
# a second, whatever the default budget.
# Under the sanitizers every fourth file, without the 5 s bound. In the
# normal build these too are measured, and one over 1 GiB fails.
#
# Ends with one line over both corpora: runs, crashes, runs over 10 s,
# runs over 1 GiB (the last two counted in the normal build only).
#
# Usage: bad_input.sh SKINVIEW SHARED_MODELS_DIR ASSETS_DIR PEAK_RSS
set -uo pipefail
skinview=$1 shared=$2 assets=$3 peak_rss=$4
memory_kb=1048576 # 1 GiB: the most a run (skinview and its child) may hold
testmodels=/usr/share/assimp/models
cap_kb=${SKV_RESOURCE_CAP_KB:-}
limit=${SKV_BAD_INPUT_SECONDS:-30} # per run; generous for sanitizer builds
[ -n "$cap_kb" ] && limit=10
gen=$(cd "$(dirname "$0")/../tools/gen" && pwd)
tmp=$(mktemp -d)
trap 'chmod -R u+rwX "$tmp"; rm -rf "$tmp"' EXIT
corpus="$tmp/corpus"
mkdir -p "$corpus"
chmod 755 "$tmp" "$corpus" # the unreadable case runs as nobody: let it reach the file

for f in "$testmodels/FBX/animation_with_skeleton.fbx" "$testmodels/X/BCN_Epileptic.X" \
         "$shared/md5/Bob.md5mesh" "$shared/gltf/Fox.glb" "$shared/gltf/SimpleSkin.gltf" \
         "$shared/collada/seymour_polylist_animation.dae" "$assets/worm.dae" "$assets/snake.fbx"; do
  [ -e "$f" ] || { echo "MISSING corpus model: $f"; exit 1; }
done
[ -d "$testmodels/invalid" ] || { echo "MISSING $testmodels/invalid (assimp-testmodels)"; exit 1; }

cp "$testmodels"/invalid/* "$corpus/" 2>/dev/null

# Truncations and byte flips, deterministic (python3 comes with the
# build's python3-glad).
python3 - "$corpus" \
  "$testmodels/FBX/animation_with_skeleton.fbx" "$testmodels/X/BCN_Epileptic.X" \
  "$shared/md5/Bob.md5mesh" "$shared/gltf/Fox.glb" "$shared/gltf/SimpleSkin.gltf" \
  "$shared/collada/seymour_polylist_animation.dae" "$assets/worm.dae" "$assets/snake.fbx" <<'EOF'
import os, random, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    data = open(path, 'rb').read()
    stem, ext = os.path.splitext(os.path.basename(path))
    for i in range(1, 11):
        cut = len(data) * i // 11
        open(os.path.join(out, f"{stem}.cut{i}{ext}"), 'wb').write(data[:cut])
    for seed in (1, 2, 3):
        rng = random.Random(seed)
        flipped = bytearray(data)
        for _ in range(max(1, len(data) // 500)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        open(os.path.join(out, f"{stem}.flip{seed}{ext}"), 'wb').write(bytes(flipped))
EOF

# The hostile files the generators write.
python3 "$gen/nan_mutations.py" "$corpus" "$assets/worm.dae" >/dev/null
python3 "$gen/hostile_names.py" "$corpus/hostile_names.gltf" >/dev/null
if [ -n "$cap_kb" ]; then
  # The big ones for the resource check only: under the sanitizers they
  # are e2e_bounds' (LeakSanitizer's exit scan of 3,000 clips crashed its
  # tracer, signal 11, outside Skinview's code).
  python3 "$gen/gltf_zero_normals.py" "$corpus/zero_normals.glb"
  python3 "$gen/gltf_one_channel_clips.py" "$corpus/one_channel_clips.glb"
  python3 "$gen/gltf_many_bones.py" "$corpus/many_bones.glb"
  python3 "$gen/gltf_deep_bones.py" "$corpus/deep_bones.glb"
  python3 "$gen/gltf_many_clips.py" "$corpus/many_clips.glb"
  # The sanitizer build's guarded child has no address-space limit: there
  # the bombs would take what they ask for.
  python3 "$gen/fbx_zlib_bomb.py" "$corpus/fbx_zlib_bomb.fbx" >/dev/null
  python3 "$gen/memory_bombs.py" "$corpus" >/dev/null
fi
# Awkward paths.
: >"$corpus/empty.dae"
mkdir "$corpus/a folder.fbx"
cp "$assets/worm.dae" "$corpus/unreadable.dae" && chmod 000 "$corpus/unreadable.dae"
cp "$assets/worm.dae" "$corpus/my model é ü.dae"
mkdir "$tmp/md5_missing" "$tmp/md5_mismatch"
cp "$assets/arm.md5mesh" "$assets/arm_skin.png" "$tmp/md5_missing/"
cp "$assets/arm.md5mesh" "$assets/arm_skin.png" "$tmp/md5_mismatch/"
cp "$shared/md5/Bob.md5anim" "$tmp/md5_mismatch/arm.md5anim" # other joints, other count
cases=("$corpus"/* "$tmp/md5_missing/arm.md5mesh" "$tmp/md5_mismatch/arm.md5mesh"
       "$testmodels/BVH/Boxing_Toes.bvh" "$testmodels/MS3D/Wuson.ms3d" "$corpus/does not exist.fbx")

tried=0 renders=0 clean=0 crashes=0 hangs=0 unclean=0 overruns=0 over_memory=0 largest_kb=0 largest_run=""
run() { # run MODEL ARGS...
  local model=$1
  shift
  # Runs as root can read mode-000 files: the unreadable case runs as nobody.
  local runner=()
  case "$model" in *unreadable*)
    if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
      runner=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    fi ;;
  esac
  local png="$tmp/out.png"
  rm -f "$png"
  # --import-timeout: the sanitizer build's guarded read has no memory
  # limit (see src/import/guard.c), so a runaway Assimp is stopped by time there.
  rm -f "$tmp/usage"
  if [ -n "$cap_kb" ]; then
    # The cap in a subshell (ulimit holds for what it starts); peak_rss
    # measures skinview and its child (--import-timeout: the guarded
    # read's own bound, below the 10 s one).
    ( ulimit -v "$cap_kb"
      timeout -s KILL "$limit" "$peak_rss" "$tmp/usage" \
        "${runner[@]}" "$skinview" "$model" "$@" --import-timeout 8 ) >"$tmp/stdout" 2>"$tmp/stderr"
  else
    "${runner[@]}" timeout -s KILL "$limit" "$skinview" "$model" "$@" --import-timeout 10 >"$tmp/stdout" 2>"$tmp/stderr"
  fi
  local status=$?
  if [ -n "$cap_kb" ]; then
    local seconds=? rss=? own=? child=? processes
    [ -s "$tmp/usage" ] && read -r seconds rss own child processes <"$tmp/usage"
    printf '%-48s %-13s %7s s %9s KB %9s KB %9s KB %s\n' "$(basename "$model")" "$1" "$seconds" "$rss" "$own" \
      "$child" "$status" >>"$tmp/resources"
    if [ "$seconds" = "?" ] || awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s > l) }'; then
      overruns=$((overruns + 1))
      echo "OVER ${limit} s: skinview '$model' $* ($seconds s)"
    fi
    if [ "$rss" != "?" ] && [ "$rss" -gt "$largest_kb" ]; then
      largest_kb=$rss largest_run="$(basename "$model") $1"
    fi
    if [ "$rss" != "?" ] && [ "$rss" -gt "$memory_kb" ]; then
      over_memory=$((over_memory + 1))
      echo "OVER 1 GiB: skinview '$model' $* ($rss KB: $own KB itself, $child KB its child)"
    fi
  fi
  tried=$((tried + 1))
  local errors
  errors=$(grep -v ': warning: ' "$tmp/stderr" | grep -c .)
  if [ "$status" -eq 137 ] || [ "$status" -eq 124 ]; then
    hangs=$((hangs + 1))
    echo "HANG ($limit s): skinview '$model' $*"
  elif [ "$status" -ge 128 ]; then
    crashes=$((crashes + 1))
    echo "CRASH (signal $((status - 128))): skinview '$model' $*"
    sed 's/^/    /' "$tmp/stderr" | tail -5
  elif [ "$status" -eq 0 ]; then
    if [ "$errors" -ne 0 ] || { [ "$1" = --screenshot ] && [ ! -s "$png" ]; }; then
      unclean=$((unclean + 1))
      echo "UNCLEAN success: skinview '$model' $*"
      sed 's/^/    /' "$tmp/stderr" | head -5
    else
      renders=$((renders + 1))
    fi
  elif [ "$errors" -eq 1 ] && [ "$status" -le 9 ] && grep -v ': warning: ' "$tmp/stderr" | grep -qF "skinview: $model: "; then
    clean=$((clean + 1))
  else
    unclean=$((unclean + 1))
    echo "UNCLEAN error (status $status, $errors error lines): skinview '$model' $*"
    sed 's/^/    /' "$tmp/stderr" | head -5
  fi
}

for model in "${cases[@]}"; do
  run "$model" --list
  run "$model" --screenshot "$tmp/out.png" --size 64x64 --time 0.5
done

if [ -n "$cap_kb" ]; then
  printf '\nresources per run (address space capped at %s KB, %s s each):\n' "$cap_kb" "$limit"
  printf '%-48s %-13s %9s %12s %12s %12s %s\n' input mode time "peak RSS" "skinview" "its child" status
  cat "$tmp/resources"
  sort -k3 -g "$tmp/resources" | tail -n 1 | awk '{ printf "slowest: %s %s, %s s\n", $1, $2, $3 }'
  sort -k5 -g "$tmp/resources" | tail -n 1 | awk '{ printf "largest: %s %s, %s KB\n", $1, $2, $5 }'
fi
printf '\n%-14s %6s\n' "bad input" "count"
printf '%-14s %6d\n' "cases tried" "$tried" "renders" "$renders" "clean errors" "$clean" \
  "crashes" "$crashes" "hangs" "$hangs" "unclean" "$unclean" "over 10 s" "$overruns" "over 1 GiB" "$over_memory"

# --- the structure-aware corpus ---------------------------------------------
structured="$tmp/structured"
python3 "$gen/structure_mutations.py" "$structured" "$assets/worm.dae" \
  "$shared/collada/seymour_polylist_animation.dae" "$shared/gltf/SimpleSkin.gltf" \
  "$shared/synthetic/tentacle130_8w.gltf" "$assets/snake.fbx" "$assets/arm.md5mesh" \
  "$testmodels/SMD/WusonSMD.smd" >"$tmp/structured.txt" || { echo "FAIL: structure_mutations.py"; exit 1; }
if [ -z "$cap_kb" ]; then
  awk 'NR % 4 == 1' "$tmp/structured.txt" >"$tmp/structured.run"
else
  cp "$tmp/structured.txt" "$tmp/structured.run"
fi
jobs=${SKV_TEST_JOBS:-$(nproc)}
# One line per run: status, milliseconds, error lines, whether the error
# line names the file, non-finite numbers in the output, whether the
# guarded import's time limit ended it, whether the parent refused the
# child's model block, mode, file.
worker() {
  local model=$1 mode out status start ms errors named nonfinite timedout refused rss
  local measure=()
  [ -n "$cap_kb" ] && measure=("$peak_rss" "$model.usage")
  for mode in json obj; do
    out="$model.$mode.out"
    [ "$mode" = obj ] && out="$model.pose.obj" # --export-pose writes only .obj names
    start=$(date +%s%N)
    if [ "$mode" = json ]; then
      args=(--list --json)
    else
      args=(--export-pose "$out" --time 0.5)
    fi
    ( [ -n "$cap_kb" ] && ulimit -v "$cap_kb"
      exec timeout -s KILL 30 "${measure[@]}" "$skinview" "$model" "${args[@]}" --import-timeout 3 --import-memory 512 ) \
      >"$model.$mode.stdout" 2>"$model.$mode.stderr"
    status=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    [ "$mode" = json ] && cp "$model.$mode.stdout" "$out"
    # Warnings, and --export-pose's note on a file without a mesh, are
    # not errors.
    errors=$(grep -v -e ': warning: ' -e ': no mesh in the file: .* holds its' "$model.$mode.stderr" | grep -c .)
    named=$(grep -v -e ': warning: ' -e ': no mesh in the file: .* holds its' "$model.$mode.stderr" |
      grep -cF "skinview: $model: ")
    timedout=$(grep -c 'did not finish reading it within' "$model.$mode.stderr")
    # The child's own model refused by the parent's check: the conversion
    # let through what the check forbids (a NaN UV did), never hostile here.
    refused=$(grep -c "the guarded import's model is malformed" "$model.$mode.stderr")
    nonfinite=0
    if [ -s "$out" ]; then
      if [ "$mode" = json ]; then
        LC_ALL=C grep -Eq '[:,[] *-?([Nn]a[Nn]|[Ii]nf|Infinity)' "$out" && nonfinite=1
      else
        LC_ALL=C grep -Eq '^(v|vn|vt) .*([Nn]a[Nn]|[Ii]nf)' "$out" && nonfinite=1
      fi
    fi
    rss=0
    [ -n "$cap_kb" ] && [ -s "$model.usage" ] && read -r _ rss _ <"$model.usage"
    echo "$status $ms $errors $named $nonfinite $timedout $refused $rss $mode $model"
    rm -f "$out" "$model.$mode.stdout" "$model.$mode.stderr" "$model.usage"
  done
}
export -f worker
export skinview cap_kb peak_rss
start=$(date +%s%N)
tr '\n' '\0' <"$tmp/structured.run" | xargs -0 -P "$jobs" -n 1 bash -c 'worker "$1"' _ >"$tmp/structured.results"
wall=$((($(date +%s%N) - start) / 1000000))
s_runs=0 s_ok=0 s_clean=0 s_crashes=0 s_hangs=0 s_unclean=0 s_slow=0 s_nonfinite=0 s_timeouts=0 s_refused=0 s_max=0
s_over_memory=0 s_largest_kb=0 s_largest_run="" s_over_10=0
while read -r status ms errors named nonfinite timedout refused rss mode model; do
  s_runs=$((s_runs + 1))
  s_timeouts=$((s_timeouts + timedout))
  [ "$ms" -gt "$s_max" ] && s_max=$ms
  if [ "$status" -eq 137 ] || [ "$status" -eq 124 ]; then
    s_hangs=$((s_hangs + 1)); echo "HANG: skinview '$model' ($mode)"
  elif [ "$status" -ge 128 ]; then
    s_crashes=$((s_crashes + 1)); echo "CRASH (signal $((status - 128))): skinview '$model' ($mode)"
  elif [ "$status" -eq 0 ] && [ "$errors" -eq 0 ]; then
    s_ok=$((s_ok + 1))
  elif [ "$status" -ne 0 ] && [ "$status" -le 9 ] && [ "$errors" -eq 1 ] && [ "$named" -eq 1 ]; then
    s_clean=$((s_clean + 1))
  else
    s_unclean=$((s_unclean + 1)); echo "UNCLEAN (status $status, $errors error lines): skinview '$model' ($mode)"
  fi
  [ "$ms" -gt 10000 ] && s_over_10=$((s_over_10 + 1))
  if [ -n "$cap_kb" ] && [ "$ms" -gt 5000 ]; then
    s_slow=$((s_slow + 1)); echo "OVER 5 s ($ms ms): skinview '$model' ($mode)"
  fi
  [ "$rss" -gt "$s_largest_kb" ] && s_largest_kb=$rss s_largest_run="$(basename "$model") ($mode)"
  if [ "$rss" -gt "$memory_kb" ]; then
    s_over_memory=$((s_over_memory + 1)); echo "OVER 1 GiB ($rss KB): skinview '$model' ($mode)"
  fi
  [ "$nonfinite" -eq 1 ] && { s_nonfinite=$((s_nonfinite + 1)); echo "NON-FINITE output: skinview '$model' ($mode)"; }
  [ "$refused" -ge 1 ] && { s_refused=$((s_refused + 1)); echo "BLOCK REFUSED: skinview '$model' ($mode)"; }
done <"$tmp/structured.results"
printf '\n%-26s %6s\n' "structure-aware corpus" "count"
printf '%-26s %6d\n' "files" "$(grep -c . "$tmp/structured.run")" "runs" "$s_runs" "status 0" "$s_ok" \
  "clean errors" "$s_clean" "crashes" "$s_crashes" "hangs" "$s_hangs" "unclean" "$s_unclean" \
  "over 5 s" "$s_slow" "over 1 GiB" "$s_over_memory" "NaN/inf in an output" "$s_nonfinite" \
  "child's block refused" "$s_refused" "import time limit (3 s)" "$s_timeouts"
printf '%-26s %6d ms\n' "slowest run" "$s_max" "wall time ($jobs at once)" "$wall"
[ -n "$cap_kb" ] && printf '%-26s %6d KB %s\n' "largest run" "$s_largest_kb" "$s_largest_run"

# The one line over both: the hostile runs' figures.
if [ -n "$cap_kb" ]; then
  [ "$s_largest_kb" -gt "$largest_kb" ] && largest_kb=$s_largest_kb largest_run=$s_largest_run
  printf '\nhostile runs: %d runs, %d crashes, %d over 10 s, %d over 1 GiB (largest %d MiB: %s)\n' \
    $((tried + s_runs)) $((crashes + s_crashes)) $((overruns + s_over_10)) $((over_memory + s_over_memory)) \
    $((largest_kb / 1024)) "$largest_run"
else
  printf '\nhostile runs: %d runs, %d crashes (time and memory not measured under the sanitizers)\n' \
    $((tried + s_runs)) $((crashes + s_crashes))
fi
[ "$crashes" -eq 0 ] && [ "$hangs" -eq 0 ] && [ "$unclean" -eq 0 ] && [ "$overruns" -eq 0 ] &&
  [ "$over_memory" -eq 0 ] && [ "$s_over_memory" -eq 0 ] &&
  [ "$s_crashes" -eq 0 ] && [ "$s_hangs" -eq 0 ] && [ "$s_unclean" -eq 0 ] && [ "$s_slow" -eq 0 ] &&
  [ "$s_nonfinite" -eq 0 ] && [ "$s_refused" -eq 0 ] && [ "$s_runs" -gt 0 ]
