#!/usr/bin/env python3
"""collada_clip.py IN.dae OUT.dae CLIP - a copy of a Collada file holding only
the <animation> elements that <animation_clip name="CLIP"> instances, and no
<library_animation_clips>. The by-hand Collada evaluator
(../shared/oracle/dae_spec.py) reads no clips: it plays every animation of
the file at once; on this copy it plays that one clip, on the file's
absolute time line as Assimp does."""
import re, sys

src, dst, clip_name = sys.argv[1:4]
text = open(src, encoding='utf-8').read()
clip = re.search(r'<animation_clip\b[^>]*\bname="%s".*?</animation_clip>' % re.escape(clip_name), text, re.S)
if not clip:
    sys.exit('collada_clip.py: no <animation_clip name="%s"> in %s' % (clip_name, src))
keep = set(re.findall(r'url="#([^"]+)"', clip.group(0)))
text = re.sub(r'<animation id="([^"]+)".*?</animation>', lambda m: m.group(0) if m.group(1) in keep else '',
              text, flags=re.S)
text = re.sub(r'<library_animation_clips>.*?</library_animation_clips>', '', text, flags=re.S)
open(dst, 'w', encoding='utf-8').write(text)
