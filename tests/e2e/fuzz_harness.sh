#!/usr/bin/env bash
# tests/tools/fuzz.sh tells faults the guarded child contained from real ones.
# A stub stands in for the libFuzzer binary: fuzzing, it leaves artifacts
# (as the child does when Assimp dies in it) and exits 0; replaying one,
# it exits 0 for a contained fault and 1 for a real one. fuzz.sh must pass
# with contained artifacts only, and fail naming the real one otherwise.
# Usage: fuzz_harness.sh FUZZ_SH WORK_DIR SHARED_MODELS ASSETS
set -uo pipefail
fuzz_sh=$1 work=$2 shared=$3 assets=$4
rm -rf "$work"
mkdir -p "$work"
stub=$work/stub_fuzzer
cat >"$stub" <<'STUB'
#!/usr/bin/env bash
prefix=
for a in "$@"; do case "$a" in -artifact_prefix=*) prefix=${a#-artifact_prefix=} ;; esac; done
last=${!#}
if [ -f "$last" ]; then # replay of one artifact
  case "$(basename "$last")" in *real*) echo "ERROR: AddressSanitizer: heap-buffer-overflow (stub)"; exit 1 ;; esac
  exit 0
fi
printf 'contained' >"${prefix}oom-contained1"
printf 'contained' >"${prefix}crash-contained2"
[ -n "${STUB_REAL:-}" ] && printf 'real' >"${prefix}crash-real"
exit 0
STUB
chmod +x "$stub"
status=0
bash "$fuzz_sh" "$stub" "$work/clean" "$shared" "$assets" 1 >"$work/clean.log" 2>&1 || { echo "FAIL: contained artifacts only, fuzz.sh failed:"; cat "$work/clean.log"; status=1; }
grep -q "artifacts: 2 contained in the guarded child (replay clean), 0 real" "$work/clean.log" || { echo "FAIL: no count line"; status=1; }
if STUB_REAL=1 bash "$fuzz_sh" "$stub" "$work/real" "$shared" "$assets" 1 >"$work/real.log" 2>&1; then
  echo "FAIL: a real artifact did not fail fuzz.sh"; cat "$work/real.log"; status=1
fi
grep -q "REAL failure, replays as one: .*crash-real" "$work/real.log" || { echo "FAIL: the real artifact is not named"; status=1; }
[ "$status" -eq 0 ] && echo "fuzz_harness: contained faults pass, a real one fails and is named"
exit $status
