#!/usr/bin/env bash
# The model skinview opens without a MODEL argument is the bundled
# character (tools/make_character.c): a textured mesh on a skeleton of
# about 20 joints with the clips walk, wave and idle, found from the
# build tree (an installed copy: e2e_install checks it there).
# Usage: e2e_default_model.sh SKINVIEW
set -uo pipefail
skinview=$1
json=$("$skinview" --list --json) || { echo "FAIL: skinview --list without a model: exit $?"; exit 1; }
/usr/bin/python3 - "$json" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
problems = []
if not d["file"].endswith("/mannequin.glb"):
    problems.append("the default model is %s, not mannequin.glb" % d["file"])
bones = len(d["bones"])
if not 18 <= bones <= 24:
    problems.append("%d bones, not about 20" % bones)
clips = [c["name"] for c in d["clips"]]
for want in ("idle", "walk", "wave"):
    if want not in clips:
        problems.append("no clip '%s' (it has %s)" % (want, clips))
textures = [t for m in d["materials"] for t in m["textures"].values() if t["state"] == "found"]
if not textures:
    problems.append("no texture found")
print("default model: %s, %d bones, clips %s, %d texture(s)" % (d["file"], bones, clips, len(textures)))
for p in problems:
    print("FAIL: " + p)
sys.exit(1 if problems else 0)
PY
