#!/usr/bin/env bash
# Builds the "current" Assimp (5.4.x) that -DSKINVIEW_ASSIMP=current links,
# from Debian's own source package of a newer release, into a cache folder
# outside the clone, keyed by version; reuses it when it is already there.
#
#   source:  `apt-get source assimp` from trixie (Debian 13, 5.4.3), through a
#            private apt configuration under the cache folder: the machine's
#            own sources.list, lists and archives are not touched.
#   build:   only the importers Skinview reads, no exporters (the asset
#            generator uses assimp-utils, i.e. the system Assimp), no tools,
#            tests, docs or samples. Debian's patches are applied (system
#            pugixml, rapidjson, stb, draco), and Draco decoding enabled as
#            Debian's own build does (ASSIMP_ENABLE_DRACO: glTF's
#            KHR_draco_mesh_compression; Debian 12's 5.2.5 reads it too).
#   result:  $cache/assimp-<debian version>/install (a CMake prefix with
#            lib/pkgconfig/assimp.pc) and the link $cache/assimp-current to it.
#
# Usage: tools/build-assimp.sh
# Stdout: the install prefix, one line, and nothing else (callers capture
# it); all progress, apt, dpkg and compiler output goes to stderr.
# Cache: $SKINVIEW_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/skinview.
# Needs root (or sudo) only to apt-get the build dependencies.
set -euo pipefail

suite=trixie
want_upstream=5.4    # any 5.4.x: the suite's current revision is taken
cache=${SKINVIEW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/skinview}
mkdir -p "$cache"

complete() { [ -f "$1/install/.complete" ] && [ -f "$1/install/lib/pkgconfig/assimp.pc" ] &&
             [ "$(cat "$1/install/.options" 2>/dev/null)" = "$options" ]; }

# Everything below that is not the result goes to stderr, and so does
# anything the tools it runs print (dpkg's "Setting up ..." lines are on
# stdout): the one line printed on the original stdout is the prefix.
exec 3>&1 1>&2

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Build dependencies (Debian's Build-Depends for the parts built here).
build_deps=(build-essential cmake dpkg-dev libminizip-dev libpugixml-dev libutfcpp-dev
            rapidjson-dev zlib1g-dev libdraco-dev libstb-dev)
missing=()
for p in "${build_deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "build-assimp: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Reuse: the last complete build, with no network. (After the dependency
# check: the built library links the runtime parts of those packages.)
# The build's options, stamped in the install: a build with others is not
# reused (the fast path below cannot know the version, which names the key).
options="importers+draco"
if [ -L "$cache/assimp-current" ] && complete "$cache/assimp-current" &&
   [ "$(cat "$cache/assimp-current/install/.options" 2>/dev/null)" = "$options" ]; then
  echo "build-assimp: reusing $(readlink -f "$cache/assimp-current")/install"
  readlink -f "$cache/assimp-current/install" >&3
  exit 0
fi

# Private apt configuration: only a deb-src line for the newer suite. The
# archive keys are the machine's own (debian-archive-keyring).
apt_dir=$cache/apt
mkdir -p "$apt_dir/etc/sources.list.d" "$apt_dir/etc/preferences.d" "$apt_dir/lists/partial" \
         "$apt_dir/cache/archives/partial" "$apt_dir/src"
echo "deb-src http://deb.debian.org/debian $suite main" >"$apt_dir/etc/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/etc/sources.list"
  -o "Dir::Etc::SourceParts=$apt_dir/etc/sources.list.d"
  -o "Dir::Etc::Preferences=$apt_dir/etc/preferences"
  -o "Dir::Etc::PreferencesParts=$apt_dir/etc/preferences.d"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::Etc::TrustedParts=/etc/apt/trusted.gpg.d"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
echo "build-assimp: fetching the assimp source package from $suite"
apt-get "${apt_opts[@]}" -qq update
version=$(apt-cache "${apt_opts[@]}" showsrc assimp | awk '/^Version:/ { print $2; exit }')
case "$version" in
  "$want_upstream".*) ;;
  *) echo "build-assimp: $suite carries assimp '$version', not $want_upstream.x" >&2; exit 1 ;;
esac
# The key names the build's options too: a change here builds anew.
key=assimp-$version-$options
dest=$cache/$key
if ! complete "$dest"; then
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "$dest" && apt-get "${apt_opts[@]}" -qq source --download-only "assimp=$version")
  dsc=$(ls "$dest"/assimp_*.dsc)
  # dpkg-source unpacks the orig tarball and applies debian/patches.
  (cd "$dest" && dpkg-source --no-check -x "$dsc" src)

  start=$(date +%s)
  cmake -S "$dest/src" -B "$dest/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$dest/install" -DCMAKE_INSTALL_LIBDIR=lib \
    -DBUILD_SHARED_LIBS=ON -DASSIMP_BUILD_ZLIB=OFF -DASSIMP_NO_EXPORT=ON \
    -DASSIMP_BUILD_ASSIMP_TOOLS=OFF -DASSIMP_BUILD_TESTS=OFF -DASSIMP_BUILD_DOCS=OFF \
    -DASSIMP_BUILD_SAMPLES=OFF -DASSIMP_BUILD_DRACO=OFF -DASSIMP_WARNINGS_AS_ERRORS=OFF \
    "-DCMAKE_CXX_FLAGS=-DASSIMP_ENABLE_DRACO=1" \
    -DASSIMP_INJECT_DEBUG_POSTFIX=OFF -DASSIMP_BUILD_USE_CCACHE=OFF \
    -DASSIMP_BUILD_ALL_IMPORTERS_BY_DEFAULT=OFF \
    $(for f in COLLADA FBX MD5 GLTF X SMD MDL MD2 HMP MS3D B3D BVH OBJ OFF PLY 3DS; do
        printf -- '-DASSIMP_BUILD_%s_IMPORTER=ON ' "$f"; done)
  cmake --build "$dest/build" -j"$(nproc 2>/dev/null || echo 2)"
  cmake --install "$dest/build"
  end=$(date +%s)
  echo "build-assimp: built $key in $((end - start)) s on $(nproc) cores"
  echo "$options" >"$dest/install/.options"
  touch "$dest/install/.complete"
  rm -rf "$dest/build"   # object files: ~200 MB, not needed once installed
fi
ln -sfn "$key" "$cache/assimp-current"
echo "$dest/install" >&3
