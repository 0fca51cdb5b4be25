#!/usr/bin/env python3
"""irr_hl1.py - Half-Life 1 .mdl poses from Irrlicht 1.8's loader (no code
shared with Assimp), in the time and space Skinview shows them. Written for
Skinview's tests; runs irr_pose (../shared/oracle/irr_pose.cpp, built by
tools/setup-oracle.sh), which asks Irrlicht's CAnimatedMeshHalfLife for
getMesh(FRAME) and prints every mesh buffer's vertices.

  irr_hl1.py MODEL.mdl OUT_{t}.json --time T[,T..] --assimp VERSION
             [--anim NAME|INDEX] [--controllers assimp|engine] [--exe irr_pose]

Time. Irrlicht lays the sequences end to end on one frame line: sequence s
starts at S_s = sum over the earlier ones of max(1, numframes - 1) and spans
max(1, numframes - 1) frames. getMesh(F) (detail level 255) poses sequence s
at its frame F - S_s + 0.255 (Irrlicht adds detail level x 0.001),
interpolating frames k and k + 1 by 0.255. Skinview shows at time t the
sequence's frame u = (t x fps) mod (numframes - 1) (Assimp keys frame k at
tick k, fps ticks a second; the clip lasts numframes - 1 frames and loops, as
Half-Life plays a sequence). So only times with u = k + 0.255, k whole, have
an Irrlicht pose: t = (k + 0.255) / fps (+ loops). Other times are refused.

Space. Irrlicht writes a vertex at (x, z, y) of Half-Life's Z-up model space
(bone matrix rows 0, 2, 1). Assimp's HL1 reader puts a rotation on its root
node, and Skinview's --export-pose includes it:
  5.2 (observed: aiImportFile's mRootNode->mTransformation): rows (0 -1 0),
      (0 0 1), (-1 0 0): Half-Life (x, y, z) -> (-y, z, -x) = Irrlicht (-Z, Y, -X);
  5.4 (MDLLoader.cpp, AI_CONFIG_IMPORT_MDL_HL1_TRANSFORM_COORD_SYSTEM off,
      its default): rows (1 0 0), (0 0 1), (0 -1 0): (x, z, -y) = Irrlicht (X, Y, -Z).
--assimp takes the version Skinview links (`skinview --version` will do).

Clip. --anim NAME: the first sequence of that name; --anim INDEX: Skinview's
clip index, where Assimp makes one clip per blend of a sequence (man.mdl's
arms_up is clips 2-5). Irrlicht sets both blend controllers to 0 and so plays
a sequence's first blend only: for a later blend k it is given a copy of the
file whose sequence starts its animation data at blend k's (animindex moved
on by k x numbones x 12 bytes, the size of a blend's per-bone offset table;
each bone's offsets are relative to its own entry, so they stay right) and
holds that one blend (numblends 1).
Only sequences in the file itself (group 0). Default: clip 0.

Bone controllers. Irrlicht sets every controller to the value 0, which it
quantises (255 steps from start to end) and applies: man.mdl's neck turns
-0.235 and -0.176 degrees. Assimp applies no controller (it lists them as
metadata). --controllers assimp (default) gives Irrlicht a copy of the file
whose controllers start at 0, so that the value 0 adds exactly 0 (only the
controller table differs; the copy sits in a temporary folder beside links to
the texture and sequence-group files Irrlicht opens by name);
--controllers engine keeps Irrlicht's reading.

Also refused: a sequence of one frame (Irrlicht interpolates past its data;
Skinview holds the frame), and a sequence whose motion type has X, Y or Z
(Irrlicht zeroes the motion bone's position on those axes, Assimp keeps it).
Submodels. Irrlicht builds a mesh buffer for every mesh of every submodel of
every body part, in that order; Skinview draws each part's first submodel (the
game's default body), so only those buffers are kept.
"""
import argparse, json, math, os, re, shutil, struct, subprocess, sys, tempfile

FRAME_OFFSET = 0.255  # getMesh's default detail level 255 x 0.001
MOTION_XYZ = 0x7       # STUDIO_X | STUDIO_Y | STUDIO_Z


def die(msg):
    sys.exit('irr_hl1: ' + msg)


def read_mdl(path):
    """The parts of a Half-Life 1 studio header this script needs."""
    data = open(path, 'rb').read()
    if len(data) < 244 or data[:4] != b'IDST' or struct.unpack_from('<i', data, 4)[0] != 10:
        die('%s: not a Half-Life 1 studio model (IDST, version 10)' % path)
    i32 = lambda off: struct.unpack_from('<i', data, off)[0]
    num_bones, num_controllers, controller_index = i32(140), i32(148), i32(152)
    num_seq, seq_index = i32(164), i32(168)
    num_parts, part_index = i32(204), i32(208)
    # Per body part (mstudiobodyparts_t: name[64], nummodels, base, modelindex)
    # the mesh count of each submodel (mstudiomodel_t, 112 bytes: nummesh at 72).
    parts = [[i32(i32(part_index + 76 * b + 72) + 112 * m + 72) for m in range(i32(part_index + 76 * b + 64))]
             for b in range(num_parts)]
    seqs = []
    for s in range(num_seq):
        o = seq_index + 176 * s  # mstudioseqdesc_t
        seqs.append({'label': data[o:o + 32].split(b'\0')[0].decode('latin-1'),
                     'fps': struct.unpack_from('<f', data, o + 32)[0],
                     'numframes': i32(o + 56), 'motiontype': i32(o + 68), 'numblends': i32(o + 120),
                     'animindex_at': o + 124, 'seqgroup': i32(o + 156)})
    return {'data': data, 'seqs': seqs, 'num_seqgroups': i32(172), 'parts': parts, 'num_bones': num_bones,
            'controllers': [controller_index + 24 * c for c in range(num_controllers)]}


def pick_sequence(mdl, anim):
    """The sequence and the blend of it that the clip is."""
    seqs = mdl['seqs']
    if not seqs:
        die('the file has no sequence')
    if anim is None or re.fullmatch(r'\d+', anim):
        clip = int(anim or 0)
        for s, seq in enumerate(seqs):  # Assimp: one clip per blend
            if clip < seq['numblends']:
                if clip > 0 and seq['seqgroup'] != 0:
                    die('clip %s is blend %d of sequence %r, whose data is in group file %d: not moved here'
                        % (anim, clip, seq['label'], seq['seqgroup']))
                return s, clip
            clip -= seq['numblends']
        die('no clip %s' % anim)
    for s, seq in enumerate(seqs):
        if seq['label'] == anim:
            return s, 0
    die('no sequence named %r' % anim)


def irrlicht_copy(model, mdl, folder, neutral, seq, blend):
    """A copy of MODEL whose bone controllers add nothing at the value 0
    (neutral), and whose sequence `seq` starts at its blend `blend`."""
    data = bytearray(mdl['data'])
    for off in mdl['controllers'] if neutral else []:  # mstudiobonecontroller_t: bone, type, start, end, rest, index
        end = struct.unpack_from('<f', data, off + 12)[0]
        struct.pack_into('<ff', data, off + 8, 0.0, end if end != 0.0 else 1.0)
    if blend:
        at = seq['animindex_at']
        struct.pack_into('<i', data, at, struct.unpack_from('<i', data, at)[0] + blend * mdl['num_bones'] * 12)
        # One blend left: Irrlicht reads every blend numblends says, at
        # weight 0 past the first, and those past the table would be read
        # out of the file's bounds.
        struct.pack_into('<i', data, at - 4, 1)
    src_dir, name = os.path.split(os.path.abspath(model))
    stem = os.path.splitext(name)[0]
    copy = os.path.join(folder, name)
    open(copy, 'wb').write(data)
    # Irrlicht opens STEM + "T.mdl" (textures) and STEM + "NN.mdl" (sequence groups).
    for extra in [stem + 'T.mdl'] + [stem + '%02d.mdl' % g for g in range(1, mdl['num_seqgroups'])]:
        if os.path.exists(os.path.join(src_dir, extra)):
            os.symlink(os.path.join(src_dir, extra), os.path.join(folder, extra))
    return copy


def to_assimp(series):
    if series == (5, 2):
        return lambda x, y, z: (-z, y, -x)
    if series == (5, 4):
        return lambda x, y, z: (x, y, -z)
    die('the root transform of Assimp %d.%d\'s HL1 reader is not established here (5.2 and 5.4 are)' % series)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model'); ap.add_argument('out')
    ap.add_argument('--time', default=str(FRAME_OFFSET / 30.0))
    ap.add_argument('--assimp', required=True, help="Assimp's version, e.g. 5.4.3 or skinview --version's line")
    ap.add_argument('--anim')
    ap.add_argument('--controllers', default='assimp', choices=['assimp', 'engine'])
    ap.add_argument('--exe', default=os.environ.get('IRR_POSE', 'irr_pose'))
    a = ap.parse_args()

    version = re.search(r'assimp (\d+)\.(\d+)', a.assimp) or re.match(r'\s*(\d+)\.(\d+)', a.assimp)
    if not version:
        die('cannot read an Assimp version in %r' % a.assimp)
    space = to_assimp((int(version.group(1)), int(version.group(2))))

    mdl = read_mdl(a.model)
    s, blend = pick_sequence(mdl, a.anim)
    seq = mdl['seqs'][s]
    if seq['numframes'] < 2:
        die('sequence %r has %d frame(s): Irrlicht interpolates past its data' % (seq['label'], seq['numframes']))
    if seq['motiontype'] & MOTION_XYZ:
        die('sequence %r moves on X/Y/Z (motion type %#x): Irrlicht zeroes that motion, Assimp keeps it'
            % (seq['label'], seq['motiontype']))
    spans = [max(1, q['numframes'] - 1) for q in mdl['seqs']]
    start, span, fps = sum(spans[:s]), spans[s], seq['fps']

    tokens = a.time.split(',')
    frames = []
    for tok in tokens:
        u = math.fmod(float(tok) * fps, span)
        if u < 0:
            u += span
        k = round(u - FRAME_OFFSET)
        if abs(u - FRAME_OFFSET - k) > 1e-6 or not 0 <= k < span:
            die('t = %s s is frame %.6f of %r; Irrlicht poses frames k + %.3f only: t = (k + %.3f) / %g'
                % (tok, u, seq['label'], FRAME_OFFSET, FRAME_OFFSET, fps))
        frames.append(start + k)

    folder = None
    model = os.path.abspath(a.model)
    try:
        neutral = a.controllers == 'assimp' and mdl['controllers']
        if neutral or blend:
            folder = tempfile.mkdtemp(prefix='irr_hl1.')
            model = irrlicht_copy(a.model, mdl, folder, neutral, seq, blend)
        run = subprocess.run([a.exe, model] + [str(f) for f in frames], capture_output=True, text=True)
        if run.returncode != 0:
            die('irr_pose failed (%d): %s' % (run.returncode, run.stderr.strip()))
        lines = run.stdout.splitlines()
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    if len(lines) != len(frames):
        die('irr_pose printed %d poses for %d frames' % (len(lines), len(frames)))

    for tok, frame, line in zip(tokens, frames, lines):
        d = json.loads(line)
        if d['frame_count'] != sum(spans):  # Irrlicht's frame line is the one read above
            die("Irrlicht's frame line has %d frames, the sequence table %d" % (d['frame_count'], sum(spans)))
        lo, hi = [math.inf] * 3, [-math.inf] * 3
        total = 0
        shown, first = [], 0
        for part in mdl['parts']:  # each part's first submodel's buffers
            shown += range(first, first + (part[0] if part else 0))
            first += sum(part)
        if first != len(d['meshes']):
            die('Irrlicht made %d mesh buffers; the body parts hold %d meshes' % (len(d['meshes']), first))
        d['meshes'] = [d['meshes'][i] for i in shown]
        for m in d['meshes']:
            p = m['positions']
            for i in range(0, len(p), 3):
                q = space(p[i], p[i + 1], p[i + 2])
                p[i:i + 3] = q
                for c in range(3):
                    lo[c], hi[c] = min(lo[c], q[c]), max(hi[c], q[c])
            total += m['num_vertices']
        d.update({'aabb': {'min': lo, 'max': hi}, 'model': os.path.basename(a.model), 'format': 'mdl',
                  'space': 'assimp %s.%s' % version.group(1, 2), 't': float(tok), 'sequence': seq['label'],
                  'sequence_frame': frame - start + FRAME_OFFSET, 'controllers': a.controllers,
                  'num_points_total': total})
        fn = a.out.replace('{t}', tok)
        json.dump(d, open(fn, 'w'))
        print('irr_hl1: wrote %s (t=%s s, %s frame %.3f, Irrlicht frame %d, %d pts)'
              % (fn, tok, seq['label'], frame - start + FRAME_OFFSET, frame, total))


if __name__ == '__main__':
    main()
