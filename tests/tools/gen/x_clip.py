#!/usr/bin/env python3
"""x_clip.py IN.x OUT.x SET - a copy of a text DirectX .x file holding only
the AnimationSet named SET (the templates, frames and meshes as they are).
Irrlicht 1.8.5 (../shared/oracle, irr_pose) reads every AnimationSet of a
file onto one time line: on Testwuson.X, whose three sets each start at
frame 0, it poses nothing past t = 0. On this copy it plays that one set,
which Skinview plays with --anim SET."""
import re, sys

src, dst, keep = sys.argv[1:4]
text = open(src, encoding='latin-1').read()
out, pos, found = [], 0, False
for m in re.finditer(r'^[ \t]*AnimationSet[ \t]+([A-Za-z0-9_\-.]*)[ \t]*\{', text, re.M):
    if m.start() < pos:
        continue
    depth, i = 0, m.end() - 1
    while True:  # the set's closing brace
        c = text[i]
        depth += c == '{'
        depth -= c == '}'
        i += 1
        if depth == 0:
            break
    out.append(text[pos:m.start()])
    if m.group(1) == keep:
        out.append(text[m.start():i])
        found = True
    pos = i
out.append(text[pos:])
if not found:
    sys.exit('x_clip.py: no AnimationSet %s in %s' % (keep, src))
open(dst, 'w', encoding='latin-1').write(''.join(out))
