#!/usr/bin/env bash
# What `cmake --install` puts on a desktop, checked where it lands, and the
# Debian package (CPack) that carries it installed into a scratch root:
#   the manual page renders without warnings and holds every --help option,
#     every exit status, the window's keys and the environment;
#   the bash completion offers options, an option's choices, the clips and
#     bones of the model on the line, files; fish's the same (complete -C);
#     zsh's parses and reads the names;
#   skinview.desktop passes desktop-file-validate; every MIME type it lists
#     is the shared database's or skinview.xml's, whose globs resolve to them
#     in a database built with it; the thumbnailer names the same types and
#     its Exec line has the size, input and output, and run as a file
#     manager runs it writes a square PNG;
#   the installed skinview opens its bundled default model;
#   the .deb lists the same files, depends on the libraries skinview links,
#     recommends the FFmpeg ones --video opens, and installs them (dpkg -x,
#     and dpkg --root with its own database).
# Usage: e2e_install.sh BUILD_DIR OUT_DIR SKV_CHECK
set -uo pipefail
build=$1 out=$2 check=$3
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
status=0
fail() { echo "FAIL: $*"; status=1; }
ok() { echo "ok: $*"; }

prefix=$out/stage/usr
cmake --install "$build" --prefix "$prefix" >"$out/install.log" 2>&1 || { cat "$out/install.log"; echo "FAIL: cmake --install"; exit 1; }
files=(bin/skinview share/man/man1/skinview.1 share/bash-completion/completions/skinview
       share/zsh/vendor-completions/_skinview share/fish/vendor_completions.d/skinview.fish
       share/applications/skinview.desktop share/mime/packages/skinview.xml share/thumbnailers/skinview.thumbnailer
       share/icons/hicolor/scalable/apps/skinview.svg share/skinview/assets/mannequin.glb)
for f in "${files[@]}"; do [ -s "$prefix/$f" ] || fail "not installed: $f"; done
skinview=$prefix/bin/skinview
export PATH=$prefix/bin:$PATH # the completions call skinview
model=$prefix/share/skinview/assets/mannequin.glb

# The installed skinview finds its own copy of the default model.
default=$("$skinview" --list --json 2>/dev/null | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["file"])')
case $default in
  "$prefix"/bin/../share/skinview/assets/mannequin.glb) ok "default model: $default" ;;
  *) fail "the installed skinview opened '$default', not its own share/skinview/assets/mannequin.glb" ;;
esac

# --- the manual -------------------------------------------------------------
man_page=$prefix/share/man/man1/skinview.1
MANWIDTH=120 man --warnings -l "$man_page" 2>"$out/man.err" | col -b >"$out/man.txt"
[ -s "$out/man.err" ] && fail "man warns: $(head -c 300 "$out/man.err")"
options=$("$skinview" --help | grep -o '^  --[a-z0-9-]*' | tr -d ' ' | sort -u)
missing=0
for o in $options; do
  grep -q -- "^ *$o\\b" "$out/man.txt" || { fail "the manual lacks $o"; missing=$((missing + 1)); }
done
[ "$missing" -eq 0 ] && ok "the manual holds all $(echo "$options" | wc -l) options of --help"
for section in OPTIONS "EXIT STATUS" "WINDOW KEYS" ENVIRONMENT; do
  grep -q "^$section" "$out/man.txt" || fail "the manual has no $section section"
done
exits=$("$skinview" --help | sed -n '/^exit status:/,$p' | grep -o '\b[0-9]\+ [a-z]' | cut -d' ' -f1)
for e in $exits; do
  sed -n '/^EXIT STATUS/,/^WINDOW KEYS/p' "$out/man.txt" | grep -q "^ *$e " || fail "the manual lacks exit status $e"
done
for key in Home/End ",/." "Space" "Q/Esc"; do
  sed -n '/^WINDOW KEYS/,/^ENVIRONMENT/p' "$out/man.txt" | grep -qF "$key" || fail "the manual lacks the key $key"
done
grep -q "WAYLAND_DISPLAY" "$out/man.txt" || fail "the manual lacks WAYLAND_DISPLAY"

# --- completions -------------------------------------------------------------
bash_completion=$prefix/share/bash-completion/completions/skinview
complete_bash() { # WORDS...: what _skinview offers for the last one, one a line
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _skinview; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$bash_completion" "$@" 2>>"$out/bash.err" | sort
}
expect_bash() { # "WANTED LINES" WORDS...
  local want=$1
  shift
  local got
  got=$(complete_bash "$@")
  [ "$got" = "$want" ] && ok "bash: $* -> $(echo "$got" | tr '\n' ' ')" ||
    fail "bash: '$*' offers '$(echo "$got" | tr '\n' ' ')', not '$(echo "$want" | tr '\n' ' ')'"
}
expect_bash $'--skeleton' skinview --skel
expect_bash $'dq\nlinear' skinview --skinning ""
expect_bash $'dq' skinview --skinning = d
expect_bash $'idle\nwalk\nwave' skinview "$model" --anim ""
expect_bash $'idle\nwalk\nwave' skinview --size 64x64 "$model" --time 1 --anim ""
expect_bash $'hand_L\nhand_R\nhead\nhips' skinview "$model" --weights h
mkdir -p "$out/files/sub" && touch "$out/files/shot.png"
expect_bash "$out/files/shot.png"$'\n'"$out/files/sub" skinview --screenshot "$out/files/"
expect_bash "$out/files/sub" skinview --screenshot-dir "$out/files/s"
[ -s "$out/bash.err" ] && fail "the bash completion wrote errors: $(head -c 300 "$out/bash.err")"
bones=$(complete_bash skinview "$model" --weights "" | wc -l)
[ "$bones" -eq 21 ] && ok "bash: --weights offers the model's 21 bones" || fail "bash: --weights offers $bones names, not 21"

fish_completion=$prefix/share/fish/vendor_completions.d/skinview.fish
complete_fish() { # LINE: fish's candidates, one a line, without descriptions
  XDG_CONFIG_HOME=$out/fish XDG_DATA_HOME=$out/fish fish -c "source '$fish_completion'; complete -C '$1'" 2>>"$out/fish.err" |
    cut -f1 | sort
}
for line in "skinview --skinning |dq linear" "skinview $model --anim |idle walk wave" "skinview --ske|--skeleton"; do
  want=${line#*|}
  got=$(complete_fish "${line%|*}" | tr '\n' ' ' | sed 's/ $//')
  [ "$got" = "$want" ] && ok "fish: ${line%|*} -> $got" || fail "fish: '${line%|*}' offers '$got', not '$want'"
done
[ -s "$out/fish.err" ] && fail "the fish completion wrote errors: $(head -c 300 "$out/fish.err")"

zsh_completion=$prefix/share/zsh/vendor-completions/_skinview
zsh -n "$zsh_completion" || fail "the zsh completion does not parse"
head -n 1 "$zsh_completion" | grep -qx '#compdef skinview' || fail "the zsh completion does not start with #compdef skinview"
got=$(zsh -f -c 'eval "$(sed -n "/^_skinview_names()/,/^}/p" "$1")"; _skinview_names "$2" clips' _ "$zsh_completion" "$model" |
  sort | tr '\n' ' ')
[ "$got" = "idle walk wave " ] && ok "zsh: the clips of the model: $got" || fail "zsh: the clips read '$got'"
specs=$(grep -c "^    '--" "$zsh_completion")
[ "$specs" -eq "$(echo "$options" | wc -l)" ] && ok "zsh: $specs options" ||
  fail "zsh: $specs option specs, --help has $(echo "$options" | wc -l)"

# --- menu entry, MIME types, thumbnailer --------------------------------------
desktop=$prefix/share/applications/skinview.desktop
if desktop-file-validate "$desktop" >"$out/validate.txt" 2>&1 && [ ! -s "$out/validate.txt" ]; then
  ok "desktop-file-validate: clean"
else
  fail "desktop-file-validate: $(head -c 400 "$out/validate.txt")"
fi
# A MIME database of the shared one and ours.
mkdir -p "$out/mime/packages"
cp /usr/share/mime/packages/freedesktop.org.xml "$prefix/share/mime/packages/skinview.xml" "$out/mime/packages/"
update-mime-database "$out/mime" >"$out/mime.log" 2>&1 || fail "update-mime-database: $(head -c 300 "$out/mime.log")"
types=$(sed -n 's/^MimeType=//p' "$desktop" | tr ';' '\n' | grep .)
for t in $types; do
  grep -qx "$t" "$out/mime/types" || fail "$t (skinview.desktop) is in no MIME database"
done
ok "skinview.desktop lists $(echo "$types" | wc -l) MIME types, all defined"
for pair in dae:model/vnd.collada+xml fbx:model/x-fbx x:model/x-directx md5mesh:model/x-md5mesh md5anim:model/x-md5anim \
            ms3d:model/x-milkshape-3d b3d:model/x-blitz3d smd:model/x-studiomdl-data bvh:model/x-bvh m3d:model/x-m3d \
            mdl:model/x-mdl; do
  grep -qx "[0-9]*:${pair#*:}:\*\.${pair%%:*}" "$out/mime/globs2" || fail "*.${pair%%:*} is not ${pair#*:} in the database"
  grep -q ":\*\.${pair%%:*}$" /usr/share/mime/globs2 2>/dev/null && [ "${pair%%:*}" != smd ] &&
    fail "*.${pair%%:*}: the shared database has it already"
done
thumbnailer=$prefix/share/thumbnailers/skinview.thumbnailer
[ "$(sed -n 's/^MimeType=//p' "$thumbnailer")" = "$(sed -n 's/^MimeType=//p' "$desktop")" ] ||
  fail "the thumbnailer's MIME types are not the menu entry's"
exec_line=$(sed -n 's/^Exec=//p' "$thumbnailer")
for field in %s %i %o; do
  [[ " $exec_line " == *" $field "* ]] || fail "the thumbnailer's Exec lacks $field: $exec_line"
done
[ "$(sed -n 's/^TryExec=//p' "$thumbnailer")" = skinview ] || fail "the thumbnailer's TryExec is not skinview"
# As a file manager runs it: the fields replaced, from another folder.
cmd=${exec_line//%s/128}
cmd=${cmd//%i/$model}
cmd=${cmd//%o/$out/thumb.png}
(cd "$out" && eval "$cmd") >"$out/thumb.log" 2>&1 || fail "the thumbnailer's Exec failed: $cmd: $(head -c 300 "$out/thumb.log")"
size=$(/usr/bin/python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]) if d[:8] == b"\x89PNG\r\n\x1a\n" else "not a PNG")' "$out/thumb.png" 2>&1)
[ "$size" = 128x128 ] && ok "thumbnailer: $cmd -> 128x128 PNG" || fail "thumbnailer: $size"
"$check" nonblank "$out/thumb.png" >/dev/null || fail "the thumbnail is blank"

# --- the Debian package ------------------------------------------------------
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out/package" >"$out/cpack.log" 2>&1 ||
  { fail "cpack: $(tail -c 400 "$out/cpack.log")"; exit 1; }
deb=$(ls "$out"/package/skinview_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { fail "cpack wrote no .deb"; exit 1; }
dpkg-deb -f "$deb" Package | grep -qx skinview || fail "$deb is not package skinview"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libassimp libglfw3 libc6 libegl1 libgl1; do
  [[ $depends == *"$lib"* ]] || fail "the package does not depend on $lib: $depends"
done
ok "$(basename "$deb"): Depends: $depends"
# --video's FFmpeg libraries are opened with dlopen (video.c), so
# dpkg-shlibdeps cannot see them: the package names them itself, the
# packages that hold the sonames this build compiled against.
recommends=$(dpkg-deb -f "$deb" Recommends)
missing=0
for lib in avcodec avformat avutil swscale; do
  major=$(pkg-config --modversion "lib$lib" | cut -d. -f1)
  owner=$(dpkg -S "$(pkg-config --variable=libdir "lib$lib")/lib$lib.so.$major" 2>/dev/null | head -n 1 | cut -d: -f1)
  [ -n "$owner" ] || { fail "no Debian package holds lib$lib.so.$major"; missing=1; continue; }
  [[ ", $depends, $recommends, " == *", $owner"[\ ,]* ]] || {
    missing=1
    fail "the package neither depends on nor recommends $owner (--video opens lib$lib.so.$major): Recommends: $recommends"
  }
done
[ "$missing" -eq 1 ] || ok "Recommends: $recommends"
dpkg -x "$deb" "$out/root-x" || fail "dpkg -x"
for f in "${files[@]}"; do [ -s "$out/root-x/usr/$f" ] || fail "not in the package: usr/$f"; done
# dpkg --root: a scratch root with a dpkg database of its own.
root=$out/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
if dpkg --root="$root" --force-not-root --force-bad-path --force-depends --force-script-chrootless \
     --log=/dev/null -i "$deb" >"$out/dpkg.log" 2>&1; then
  for f in "${files[@]}"; do [ -s "$root/usr/$f" ] || fail "dpkg --root did not install usr/$f"; done
  dpkg --root="$root" -s skinview 2>/dev/null | grep -q '^Status: install ok installed' ||
    fail "dpkg --root: skinview is not installed in the scratch database"
  dpkg --root="$root" -L skinview | grep -qx /usr/share/man/man1/skinview.1 || fail "dpkg -L lacks the manual"
  "$root/usr/bin/skinview" --list >/dev/null 2>&1 || fail "the packaged skinview does not open its default model"
else
  fail "dpkg --root -i: $(tail -c 400 "$out/dpkg.log")"
fi
[ "$status" -eq 0 ] && echo "e2e_install: all checks passed"
exit $status
