#!/usr/bin/env python3
"""x_clip.py IN.x OUT.x SET - a copy of a text DirectX .x file holding only
the AnimationSet named SET (the templates, frames and meshes as they are).
Irrlicht 1.8.5 (../shared/oracle, irr_pose) reads every AnimationSet of a
file onto one time line: on Testwuson.X, whose three sets each start at
frame 0, it poses nothing past t = 0. On this copy it plays that one set,
which Skinview plays with --anim SET. Fails (exit 1, one line) on a file it
cannot split so: binary, no such set, a brace left open, or any other
AnimationSet left in the copy."""
import re, sys

src, dst, keep = sys.argv[1:4]
data = open(src, 'rb').read()
if not data.startswith(b'xof ') or data[8:12] != b'txt ':
    sys.exit('x_clip.py: %s is not a text .x file' % src)
text = data.decode('latin-1')


def block_end(start):
    """The index past the brace that closes the one opened at `start`,
    skipping // and # comments and quoted strings."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = text.find('"', i + 1)
            if i < 0:
                break
        elif c == '#' or text.startswith('//', i):
            i = text.find('\n', i)
            if i < 0:
                break
        elif c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    sys.exit('x_clip.py: %s: an AnimationSet\'s brace is never closed' % src)


# "AnimationSet NAME {", the name anything up to the brace (the next line's
# too); not "template AnimationSet".
sets = re.compile(r'^[ \t]*AnimationSet\b([^{]*)\{', re.M)
out, pos, found = [], 0, 0
for m in sets.finditer(text):
    if m.start() < pos:
        continue
    end = block_end(m.end() - 1)
    out.append(text[pos:m.start()])
    if m.group(1).strip() == keep:
        out.append(text[m.start():end])
        found += 1
    pos = end
out.append(text[pos:])
copy = ''.join(out)
if found != 1 or len(sets.findall(copy)) != 1:
    sys.exit('x_clip.py: %s: %d AnimationSet(s) named %s, %d left in the copy (want 1 and 1)'
             % (src, found, keep, len(sets.findall(copy))))
open(dst, 'wb').write(copy.encode('latin-1'))
