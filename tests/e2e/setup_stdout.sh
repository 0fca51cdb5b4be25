#!/usr/bin/env bash
# The set-up scripts print only their documented result on stdout, even
# when they install packages (dpkg's "Setting up ..." lines are on stdout):
#   tools/build-assimp.sh: the install prefix, one line, an existing folder
#   tools/install-deps.sh: nothing
# Stubs on PATH stand in for the package tools: dpkg-query reports every
# package missing, so the install branch runs, and apt-get prints
# dpkg-like lines on stdout; a cache holding a finished build stands in
# for the Assimp build, so nothing is fetched or compiled.
# Usage: setup_stdout.sh REPO_ROOT WORK_DIR
set -euo pipefail
root=$1 work=$2
rm -rf "$work"
mkdir -p "$work/bin" "$work/cache/assimp-5.4.9-1/install/lib/pkgconfig"
stubs=$work/bin
cat >"$stubs/dpkg-query" <<'STUB'
#!/bin/sh
exit 1
STUB
cat >"$stubs/apt-get" <<STUB
#!/bin/sh
echo "apt-get \$*" >>"$work/apt.log"
echo "Selecting previously unselected package libpugixml1v5:amd64."
echo "Unpacking libpugixml1v5:amd64 (1.13-0.2) ..."
echo "Setting up libpugixml1v5:amd64 (1.13-0.2) ..."
STUB
cat >"$stubs/sudo" <<'STUB'
#!/bin/sh
exec "$@"
STUB
chmod +x "$stubs"/*
prefix_dir=$work/cache/assimp-5.4.9-1/install
touch "$prefix_dir/.complete" "$prefix_dir/lib/pkgconfig/assimp.pc"
# The build's options stamp, as build-assimp.sh writes and checks it.
sed -n 's/^options="\(.*\)"$/\1/p' "$root/tools/build-assimp.sh" >"$prefix_dir/.options"
ln -s assimp-5.4.9-1 "$work/cache/assimp-current"

fail=0
out=$(PATH="$stubs:$PATH" SKINVIEW_CACHE="$work/cache" bash "$root/tools/build-assimp.sh" 2>"$work/build-assimp.err")
if ! grep -q "apt-get install" "$work/apt.log" 2>/dev/null; then
  echo "FAIL build-assimp.sh: the install branch did not run (stub apt-get not called)"; fail=1
fi
lines=$(printf '%s' "$out" | grep -c '' || true)
if [ "$lines" -ne 1 ] || [ ! -d "$out" ] || [ "$out" != "$(readlink -f "$prefix_dir")" ]; then
  echo "FAIL build-assimp.sh: stdout must be the prefix alone, got $lines line(s):"
  printf '%s\n' "$out" | head -5 | sed 's/^/  | /'; fail=1
else
  echo "ok   build-assimp.sh: stdout is one existing folder ($out)"
fi

rm -f "$work/apt.log"
out=$(PATH="$stubs:$PATH" bash "$root/tools/install-deps.sh" 2>"$work/install-deps.err")
if ! grep -q "apt-get install" "$work/apt.log" 2>/dev/null; then
  echo "FAIL install-deps.sh: the install branch did not run (stub apt-get not called)"; fail=1
fi
if [ -n "$out" ]; then
  echo "FAIL install-deps.sh: stdout must be empty, got:"
  printf '%s\n' "$out" | head -5 | sed 's/^/  | /'; fail=1
else
  echo "ok   install-deps.sh: stdout empty"
fi
exit $fail
