#!/usr/bin/env bash
# Sets up the independent pose evaluators of ../shared/oracle (see its
# README) for the reference_* tests, in BUILD_DIR/oracle:
#   three.js r187, @xmldom/xmldom and @gltf-transform/cli from npm
#   (pinned), beside copies of
#   three_pose.mjs and tests/tools/oracle/three_skeleton.mjs (they import
#   'three' from their own folder);
#   irr_pose, built with g++ against Debian's libirrlicht-dev.
# The Debian packages come from tools/install-deps.sh; npm needs the
# registry once, later runs reuse what is there (no network).
# Usage: tools/setup-oracle.sh BUILD_DIR
# Stdout: the oracle folder, one line; everything else goes to stderr.
set -euo pipefail
exec 3>&1 1>&2
root=$(cd "$(dirname "$0")/.." && pwd)
oracle_src=$root/../shared/oracle
[ -d "$oracle_src" ] || { echo "setup-oracle: $oracle_src not found (../shared beside the repository)"; exit 1; }
build=${1:?usage: tools/setup-oracle.sh BUILD_DIR}
dest=$(mkdir -p "$build/oracle" && cd "$build/oracle" && pwd)
three_version=0.187.0
xmldom_version=0.8.10
# glTF-Transform re-encodes the shared glTF models as the web optimisers
# do (quantize, meshopt, draco) for e2e_gltf_web.
gltf_transform_version=4.5.1

if [ ! -f "$dest/node_modules/three/package.json" ] ||
   ! grep -q "\"version\": \"$three_version\"" "$dest/node_modules/three/package.json" ||
   [ ! -d "$dest/node_modules/@xmldom/xmldom" ] ||
   ! grep -qs "\"version\": \"$gltf_transform_version\"" "$dest/node_modules/@gltf-transform/cli/package.json"; then
  echo "setup-oracle: npm install three@$three_version @xmldom/xmldom@$xmldom_version" \
       "@gltf-transform/cli@$gltf_transform_version in $dest"
  [ -f "$dest/package.json" ] || echo '{"name": "skinview-oracle", "private": true}' >"$dest/package.json"
  (cd "$dest" && npm install --no-audit --no-fund --loglevel=error \
      "three@$three_version" "@xmldom/xmldom@$xmldom_version" "@gltf-transform/cli@$gltf_transform_version")
fi
# The scripts are read from ../shared each time (copied: three_pose.mjs
# resolves 'three' from its own folder).
cp "$oracle_src/three_pose.mjs" "$dest/three_pose.mjs"
cp "$oracle_src/three_layers.mjs" "$dest/three_layers.mjs" # --layer's evaluator (reference_layers_*)
cp "$root/tests/tools/oracle/three_skeleton.mjs" "$dest/three_skeleton.mjs" # Skinview's own, for split files
cp "$root/tests/tools/oracle/fbx_influences.mjs" "$dest/fbx_influences.mjs" # three_skeleton.mjs --all-influences reads FBX clusters with it
if [ ! -x "$dest/irr_pose" ] || [ "$oracle_src/irr_pose.cpp" -nt "$dest/irr_pose" ]; then
  echo "setup-oracle: building irr_pose"
  g++ -O2 -o "$dest/irr_pose" "$oracle_src/irr_pose.cpp" \
      $(pkg-config --cflags --libs irrlicht 2>/dev/null || echo -I/usr/include/irrlicht -lIrrlicht)
fi
touch "$dest/.complete"
echo "$dest" >&3
