#!/usr/bin/env bash
# Names from the file are escaped where they go. A generated glTF
# (tests/tools/gen/hostile_names.py) names its clip, mesh, nodes, material and
# texture with terminal escapes, BEL, CR/LF, bytes that are not UTF-8,
# quotes and backslashes. Then:
#   --list: UTF-8 without control bytes but the line ends;
#   stderr: every line starts with "skinview:", no control bytes (warnings,
#     and errors naming a hostile file, clip or bone);
#   --list --json: parses, and every name reads back as the file's bytes
#     decoded as UTF-8 (ill-formed bytes as U+FFFD);
#   --export-pose: no injected "v"/"f" lines: as many vertices as the model;
#   --layer masks: every joint named as --list --json prints it (ill-formed
#     bytes as U+FFFD) or by its bytes, the same pose either way.
# Usage: e2e_names.sh SKINVIEW GENERATOR.py
set -uo pipefail
skinview=$1 generator=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$generator" "$tmp/hostile.gltf" "$tmp/names.json" || exit 1
failures=0

run() { # run NAME STATUS ARGS...: stdout, stderr and status into $tmp/NAME.*
  local name=$1 want=$2
  shift 2
  "$skinview" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $name: status $got (want $want)"
    failures=$((failures + 1))
  fi
}
run list 0 "$tmp/hostile.gltf" --list
run json 0 "$tmp/hostile.gltf" --list --json
run obj 0 "$tmp/hostile.gltf" --export-pose "$tmp/pose.obj"
evil=$tmp/$'evil\e[2J\n\a.gltf'
cp "$tmp/hostile.gltf" "$evil"
run bad_clip 6 "$evil" --anim $'nope\e[H\r' --list
run bad_bone 2 "$tmp/hostile.gltf" --weights $'bone\e]0;x\a\n' --list
missing=$tmp/$'gone\e[2J\n.gltf'
run missing 3 "$missing" --list

python3 - "$tmp" <<'PY' || failures=$((failures + 1))
import json, os, re, sys
tmp = sys.argv[1]
names = json.load(open(os.path.join(tmp, "names.json")))
failed = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok: failed.append(what)
def read(name):
    return open(os.path.join(tmp, name), "rb").read()
def clean_text(data, what):
    """UTF-8, no control bytes but the newlines ending lines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s is not UTF-8: %s" % (what, e))
        return ""
    bad = [c for c in text if c != "\n" and (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0)]
    check(not bad, "%s has no control characters (%r)" % (what, bad[:5]))
    return text

listing = clean_text(read("list.out"), "--list")
check("clip\\x1b[2J\\x1b[H\\x07" in listing, "--list shows the clip's escapes as \\xNN")
check(listing.count("\n") == len(listing.splitlines()) and "v 1 2 3" not in listing.splitlines(),
      "--list: the mesh's newlines do not start lines")
for run, lines in (("list", 1), ("json", 1), ("obj", 1), ("bad_clip", 1), ("bad_bone", 1), ("missing", 1)):
    err = clean_text(read(run + ".err"), run + " stderr")
    check(len(err.splitlines()) == lines and all(l.startswith("skinview: ") for l in err.splitlines()),
          "%s: %d stderr line(s), each from skinview: %r" % (run, lines, err[:300]))

doc = json.loads(clean_text(read("json.out"), "--list --json"))
def want(values):
    return bytes(values).decode("utf-8", "replace")
check(doc["clips"][0]["name"] == want(names["clip"]), "JSON clip name round-trips")
check(doc["meshes"][0]["name"] == want(names["mesh"]), "JSON mesh name round-trips")
check(doc["meshes"][0]["node"] == want(names["root"]), "JSON node name round-trips")
check(sorted(b["name"] for b in doc["bones"]) == sorted(want(j) for j in names["joints"]),
      "JSON bone names round-trip (bad UTF-8 as U+FFFD)")
check(any(want(names["material"]) in w and want(names["texture"]) in w for w in doc["warnings"]),
      "JSON warning carries the material and texture names")

obj = clean_text(read("pose.obj"), "the OBJ")
lines = obj.splitlines()
check(sum(1 for l in lines if l.startswith("v ")) == names["vertices"] == doc["vertices"],
      "OBJ: %d v lines for %d vertices" % (sum(1 for l in lines if l.startswith("v ")), names["vertices"]))
check("f 1 1 1" not in lines and all(re.match(r"(#|v |vn |o |f \d)", l) for l in lines),
      "OBJ: every line is one of ours")
sys.exit(1 if failed else 0)
PY
# A --layer mask names a node as --list --json prints it (issue #44).
for k in 1 2; do
  printed=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["nodes"][int(sys.argv[1])]["name"])' "$k" \
    <"$tmp/json.out")
  raw=$(python3 -c 'import json, sys; sys.stdout.buffer.write(bytes(json.load(open(sys.argv[1]))["joints"][int(sys.argv[2]) - 1]))' \
    "$tmp/names.json" "$k")
  run "mask_printed_$k" 0 "$tmp/hostile.gltf" --time 0.5 --layer "0:mask=$printed:weight=0.5" --export-pose "$tmp/printed.obj"
  run "mask_raw_$k" 0 "$tmp/hostile.gltf" --time 0.5 --layer "0:mask=$raw:weight=0.5" --export-pose "$tmp/raw.obj"
  cmp -s "$tmp/printed.obj" "$tmp/raw.obj" || { echo "FAIL: node $k: the printed name's pose differs"; failures=$((failures + 1)); }
done

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
