#!/usr/bin/env bash
# Installs the Debian packages Skinview builds, runs and tests with.
# Root on CI and dev machines; falls back to sudo elsewhere.
# Prints nothing on stdout: its progress and apt/dpkg's output (dpkg writes
# "Setting up ..." to stdout) go to stderr, so callers can capture stdout.
set -euo pipefail
exec 1>&2

packages=(
  build-essential cmake pkg-config
  libassimp-dev assimp-utils assimp-testmodels
  libglfw3-dev libcglm-dev libstb-dev python3-glad python3
  libspng-dev libjpeg62-turbo-dev # texture decoders, in the guarded child
  libcjson-dev libmeshoptimizer-dev # quantized and meshopt glTF (gltf_prep.c)
  libxml2-dev # Collada curves as the file writes them (dae_curves.c)
  libseccomp-dev # the guarded child's system-call allowlist (src/import/sandbox.c)
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev # --video (src/app/video.c)
  ffmpeg # tests only: ffprobe checks the videos, ffmpeg decodes their frames
  libegl-dev libgl-dev libegl1 libgl1 libegl-mesa0 libglx-mesa0 libgl1-mesa-dri
  xvfb xauth xdotool valgrind libx11-dev
  strace # e2e_guard: which process opens the model file
  # e2e_install: the manual rendered, the completions run, the menu entry
  # validated, a MIME database built, the .deb made (dpkg-shlibdeps).
  man-db bsdextrautils desktop-file-utils shared-mime-info zsh fish dpkg-dev
  clang libclang-rt-14-dev
  # The independent pose evaluators of ../shared/oracle (reference_* tests,
  # tools/setup-oracle.sh): Irrlicht for .x/.b3d/.ms3d, numpy for the
  # Collada reader, g++ to build the Irrlicht one.
  libirrlicht-dev python3-numpy g++
)
# three.js runs on Node.js; a machine that already has node and npm (from
# any source) keeps them, else Debian's.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
