#!/usr/bin/env python3
"""fbx_pivots.py - write a small Mixamo/Autodesk-style ASCII FBX 7.4 file whose bones carry
PreRotation and (variant "pivots"/"offaxis") rotation/scaling pivots and offsets.

Usage: fbx_pivots.py OUT.fbx [--variant prerotation|pivots|offaxis] [--no-anim]
                             [--transform-mesh] [--pose T OUT.json]

What it exercises (Assimp 5.1-5.2 FBX import, PITFALLS 1 and 2):
  prerotation  every bone has a non-trivial PreRotation (RotationActive 1), nothing else.
               Assimp keeps static NAME_$AssimpFbx$_Translation/_PreRotation helper
               nodes while the animation channel on NAME carries the whole local transform.
  pivots       as above, plus RotationOffset/RotationPivot/ScalingPivot on Spine and a
               RotationOffset on Head: Assimp animates their helper nodes themselves (channels
               on NAME_$AssimpFbx$_Rotation), while Hips stays the prerotation case. Spine's
               pivot lies on its animated rotation axis (X), so three.js's FBXLoader (which
               keeps a pivoted bone's rest translation during animation) is still exact.
  offaxis      as pivots, but Spine's RotationPivot is off its rotation axis: the bone swings
               about the pivot. three.js is wrong wherever Spine's rotation differs from its
               rest rotation (at every key here); use --pose as the reference.
  --no-anim    leave out the animation (the rest pose = bind pose, for --bind-pose checks).
  --transform-mesh  write each cluster's Transform as the mesh's global bind matrix (identity,
               the same for every bone: the SDK API's meaning) instead of the stored form below;
               Assimp 5.2 then reports identity offsets for all bones.
  --pose T J   also write the pose at time T, evaluated here by the FBX spec
               (local = T*Roff*Rp*Rpre*R*Rpost^-1*Rp^-1*Soff*Sp*S*Sp^-1, linear blend
               skinning), as skinned-points JSON for /work/shared/oracle/compare.py.

The scene: a 156-vertex open tube (13 rings x 12, quads, Y-up, 0..60 units high) skinned to
the chain mixamorig:Hips (y=4) -> mixamorig:Spine (y=20) -> mixamorig:Head (y=40), 1-2 weights
per vertex. One clip "mixamo.com" with keys at 0, 0.5, 1 s (Hips translates and tilts, Spine
and Head bend 30-60 degrees).

FBX layout (ids in parentheses):
  Objects:     Geometry (10) "Mesh" ........... Vertices, PolygonVertexIndex, normals
               Model (20) "Body", "Mesh"
               Model (100+i) bone i, "LimbNode" + NodeAttribute (200+i) "LimbNode" (Skeleton)
               Deformer (30) "Skin"; Deformer (300+i) "Cluster" per bone: Indexes, Weights,
                 TransformLink = bone global bind, Transform = TransformLink^-1 * mesh global
                 bind (mesh global = identity). That is what Autodesk writers store (checked on
                 ozz's arnaud.fbx: Transform * TransformLink = I for all 53 clusters), although
                 the FBX SDK's GetTransformMatrix() presents Transform as the mesh's global
                 matrix; Assimp 5.2 takes Transform as the bone offset matrix as it is.
               Pose (40) "BindPose": mesh and bones with their global bind matrices
               AnimationStack (50) -> AnimationLayer (51) -> AnimationCurveNode (400+..)
                 "T"/"R" -> AnimationCurve (500+..) d|X d|Y d|Z
  Connections: Body->root, Geometry->Body, Hips->root, Spine->Hips, Head->Spine,
               attribute->bone, Skin->Geometry, Cluster->Skin, bone->Cluster,
               Layer->Stack, CurveNode->Layer, CurveNode->bone ("Lcl Rotation"/"Lcl Translation"),
               Curve->CurveNode ("d|X"/"d|Y"/"d|Z").
"""
import argparse, collections, json, math, re

KTIME = 46186158000                    # FBX time units per second
KEY_TIMES = [0.0, 0.5, 1.0]

# ---------------------------------------------------------------- 4x4 matrices (column vectors)
def mul(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = [[sum(out[i][k] * m[k][j] for k in range(4)) for j in range(4)] for i in range(4)]
    return out

def translate(v):
    return [[1, 0, 0, v[0]], [0, 1, 0, v[1]], [0, 0, 1, v[2]], [0, 0, 0, 1]]

def euler_xyz(deg):
    """FBX eEulerXYZ: x applied first, i.e. Rz * Ry * Rx."""
    x, y, z = (math.radians(a) for a in deg)
    cx, sx, cy, sy, cz, sz = math.cos(x), math.sin(x), math.cos(y), math.sin(y), math.cos(z), math.sin(z)
    rx = [[1, 0, 0, 0], [0, cx, -sx, 0], [0, sx, cx, 0], [0, 0, 0, 1]]
    ry = [[cy, 0, sy, 0], [0, 1, 0, 0], [-sy, 0, cy, 0], [0, 0, 0, 1]]
    rz = [[cz, -sz, 0, 0], [sz, cz, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    return mul(rz, ry, rx)

def inverse(m):
    """Gauss-Jordan with partial pivoting."""
    a = [list(map(float, row)) + [1.0 if i == j else 0.0 for j in range(4)] for i, row in enumerate(m)]
    for c in range(4):
        p = max(range(c, 4), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        a[c] = [x / a[c][c] for x in a[c]]
        for r in range(4):
            if r != c:
                a[r] = [x - a[r][c] * y for x, y in zip(a[r], a[c])]
    return [row[4:] for row in a]

def apply(m, v):
    return [m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2] + m[i][3] for i in range(3)]

def neg(v):
    return [-x for x in v]

IDENTITY = translate([0, 0, 0])

# ---------------------------------------------------------------- the rig
def make_bones(variant):
    """name, parent, joint position in world at rest, FBX transform properties (degrees)."""
    bones = [
        dict(name="mixamorig:Hips", parent=-1, joint=[0, 4, 0], pre=[90, 0, 0]),
        dict(name="mixamorig:Spine", parent=0, joint=[0, 20, 0], pre=[-90, 0, 25]),
        dict(name="mixamorig:Head", parent=1, joint=[0, 40, 0], pre=[20, -30, -25]),
    ]
    for b in bones:
        b.update(rot=[0, 0, 0], roff=[0, 0, 0], rpiv=[0, 0, 0], spiv=[0, 0, 0])
    if variant in ("pivots", "offaxis"):
        bones[1].update(roff=[0, 1.5, -1], spiv=[2, 3, 1],
                        rpiv=[4, 0, 0] if variant == "pivots" else [3, 5, 2])
        bones[2].update(roff=[0.5, 0, 1])
    # Animation: per bone, "R"/"T" -> [X keys, Y keys, Z keys] at KEY_TIMES (degrees; T as offsets).
    bones[0]["anim"] = {"R": [[0, 0, 0], [0, 15, -10], [0, 0, 0]], "T": [[0, 0, 0], [3, 2, 0], [0, 0, -2]]}
    bones[1]["anim"] = {"R": [[10, 45, -30], [0, 0, 0], [0, 0, 0]]}
    bones[2]["anim"] = {"R": [[0, -40, 30], [0, 25, 0], [0, 0, 0]]}
    return bones

def local_matrix(b, trans, rot):
    """FBX spec: T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1 (S = 1)."""
    return mul(translate(trans), translate(b["roff"]), translate(b["rpiv"]), euler_xyz(b["pre"]),
               euler_xyz(rot), translate(neg(b["rpiv"])), translate(b["spiv"]), translate(neg(b["spiv"])))

def solve_translations(bones):
    """Pick each Lcl Translation so that the bone's origin lands on its joint position."""
    glob = []
    for b in bones:
        parent = glob[b["parent"]] if b["parent"] >= 0 else IDENTITY
        want = apply(inverse(parent), b["joint"])
        have = apply(local_matrix(b, [0, 0, 0], b["rot"]), [0, 0, 0])
        b["trans"] = [w - h for w, h in zip(want, have)]
        glob.append(mul(parent, local_matrix(b, b["trans"], b["rot"])))
        b["bind"] = glob[-1]
    for b in bones:   # translation keys are written as offsets from the rest translation
        if "T" in b["anim"]:
            b["anim"]["T"] = [[r + d for d in ax] for r, ax in zip(b["trans"], b["anim"]["T"])]

def pose_globals(bones, t):
    """Global matrices at time t (linear keys, clamped), by the FBX spec."""
    def sample(keys):
        k = max(i for i in range(len(KEY_TIMES)) if KEY_TIMES[i] <= t) if t > 0 else 0
        if k + 1 >= len(KEY_TIMES):
            return keys[-1]
        f = (t - KEY_TIMES[k]) / (KEY_TIMES[k + 1] - KEY_TIMES[k])
        return keys[k] + f * (keys[k + 1] - keys[k])
    glob = []
    for b in bones:
        vals = {p: [sample(ax) for ax in axes] for p, axes in b["anim"].items()}
        m = local_matrix(b, vals.get("T", b["trans"]), vals.get("R", b["rot"]))
        glob.append(mul(glob[b["parent"]], m) if b["parent"] >= 0 else m)
    return glob

# ---------------------------------------------------------------- the mesh
RINGS, SEGS, RADIUS, STEP = 13, 12, 5.0, 5.0

def make_mesh(bones):
    verts, normals, polys = [], [], []
    weights = [[] for _ in bones]          # per bone: (vertex index, weight)
    for r in range(RINGS):
        y = r * STEP
        w_spine = min(max((y - 12) / 16, 0), 1)   # Hips -> Spine blend over y 12..28
        w_head = min(max((y - 32) / 16, 0), 1)    # Spine -> Head blend over y 32..48
        infl = [(0, 1 - w_spine), (1, w_spine - w_head), (2, w_head)]
        for s in range(SEGS):
            a = 2 * math.pi * s / SEGS
            vi = len(verts)
            verts.append([RADIUS * math.cos(a), y, RADIUS * math.sin(a)])
            for bone, w in infl:
                if w > 1e-9:
                    weights[bone].append((vi, w))
    for r in range(RINGS - 1):
        for s in range(SEGS):
            i0, i1 = r * SEGS + s, r * SEGS + (s + 1) % SEGS
            quad = [i0, i0 + SEGS, i1 + SEGS, i1]          # counter-clockwise seen from outside
            polys.append(quad)
            for i in quad:
                normals.append([verts[i][0] / RADIUS, 0, verts[i][2] / RADIUS])
    return verts, normals, polys, weights

# ---------------------------------------------------------------- FBX text
def num(x):
    s = "%.9g" % x
    return "0" if s == "-0" else s

def arr(name, values, ind):
    vals = ",".join(num(v) if isinstance(v, float) else str(v) for v in values)
    return f"{ind}{name}: *{len(values)} {{\n{ind}\ta: {vals}\n{ind}}}\n"

def flat(m):
    """FBX stores matrices column by column (translation in elements 12..14)."""
    return [float(m[i][j]) for j in range(4) for i in range(4)]

def vec_p(name, v, kind="Vector3D", label="Vector", flags=""):
    return f'\t\t\tP: "{name}", "{kind}", "{label}", "{flags}",{",".join(num(x) for x in v)}\n'

def write_fbx(path, bones, mesh, with_anim, mesh_transform):
    verts, normals, polys, weights = mesh
    o, c = [], []                                  # object blocks, connections
    o.append('\tGeometry: 10, "Geometry::Body", "Mesh" {\n'
             + arr("Vertices", [float(x) for v in verts for x in v], "\t\t")
             + arr("PolygonVertexIndex", [i if k < len(p) - 1 else -i - 1
                                          for p in polys for k, i in enumerate(p)], "\t\t")
             + '\t\tGeometryVersion: 124\n\t\tLayerElementNormal: 0 {\n\t\t\tVersion: 101\n\t\t\tName: ""\n'
             '\t\t\tMappingInformationType: "ByPolygonVertex"\n\t\t\tReferenceInformationType: "Direct"\n'
             + arr("Normals", [float(x) for n in normals for x in n], "\t\t\t")
             + '\t\t}\n\t\tLayer: 0 {\n\t\t\tVersion: 100\n\t\t\tLayerElement:  {\n'
             '\t\t\t\tType: "LayerElementNormal"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n\t\t}\n\t}\n')
    o.append('\tModel: 20, "Model::Body", "Mesh" {\n\t\tVersion: 232\n\t\tProperties70:  {\n'
             '\t\t\tP: "DefaultAttributeIndex", "int", "Integer", "",0\n\t\t}\n'
             '\t\tShading: T\n\t\tCulling: "CullingOff"\n\t}\n')
    c += ["Model::Body, Model::RootNode", (20, 0), "Geometry::Body, Model::Body", (10, 20)]
    for i, b in enumerate(bones):
        props = (vec_p("PreRotation", b["pre"]) + '\t\t\tP: "RotationActive", "bool", "", "",1\n'
                 '\t\t\tP: "InheritType", "enum", "", "",1\n' + vec_p("ScalingMax", [0, 0, 0])
                 + '\t\t\tP: "DefaultAttributeIndex", "int", "Integer", "",0\n'
                 + vec_p("Lcl Translation", b["trans"], "Lcl Translation", "", "A")
                 + vec_p("Lcl Rotation", b["rot"], "Lcl Rotation", "", "A"))
        for key, prop in (("roff", "RotationOffset"), ("rpiv", "RotationPivot"), ("spiv", "ScalingPivot")):
            if any(b[key]):
                props += vec_p(prop, b[key])
        o.append(f'\tNodeAttribute: {200 + i}, "NodeAttribute::", "LimbNode" {{\n\t\tProperties70:  {{\n'
                 f'\t\t\tP: "Size", "double", "Number", "",33.3333333333333\n\t\t}}\n'
                 f'\t\tTypeFlags: "Skeleton"\n\t}}\n'
                 f'\tModel: {100 + i}, "Model::{b["name"]}", "LimbNode" {{\n\t\tVersion: 232\n'
                 f'\t\tProperties70:  {{\n{props}\t\t}}\n\t\tShading: Y\n\t\tCulling: "CullingOff"\n\t}}\n')
        parent = (100 + b["parent"], "Model::" + bones[b["parent"]]["name"]) if b["parent"] >= 0 else (0, "Model::RootNode")
        c += [f"Model::{b['name']}, {parent[1]}", (100 + i, parent[0]),
              f"NodeAttribute::, Model::{b['name']}", (200 + i, 100 + i)]
    o.append('\tDeformer: 30, "Deformer::", "Skin" {\n\t\tVersion: 101\n\t\tLink_DeformAcuracy: 50\n\t}\n')
    c += ["Deformer::, Geometry::Body", (30, 10)]
    for i, b in enumerate(bones):
        o.append(f'\tDeformer: {300 + i}, "SubDeformer::", "Cluster" {{\n\t\tVersion: 100\n'
                 '\t\tUserData: "", ""\n' + arr("Indexes", [v for v, _ in weights[i]], "\t\t")
                 + arr("Weights", [float(w) for _, w in weights[i]], "\t\t")
                 + arr("Transform", flat(IDENTITY if mesh_transform else inverse(b["bind"])), "\t\t") + arr("TransformLink", flat(b["bind"]), "\t\t") + "\t}\n")
        c += ["SubDeformer::, Deformer::", (300 + i, 30), f"Model::{b['name']}, SubDeformer::", (100 + i, 300 + i)]
    pose = [(20, IDENTITY)] + [(100 + i, b["bind"]) for i, b in enumerate(bones)]
    o.append(f'\tPose: 40, "Pose::BIND_POSES", "BindPose" {{\n\t\tType: "BindPose"\n\t\tVersion: 100\n'
             f'\t\tNbPoseNodes: {len(pose)}\n'
             + "".join(f"\t\tPoseNode:  {{\n\t\t\tNode: {n}\n" + arr("Matrix", flat(m), "\t\t\t") + "\t\t}\n"
                       for n, m in pose) + "\t}\n")
    if with_anim:
        stop = int(KEY_TIMES[-1] * KTIME)
        o.append(f'\tAnimationStack: 50, "AnimStack::mixamo.com", "" {{\n\t\tProperties70:  {{\n'
                 f'\t\t\tP: "LocalStop", "KTime", "Time", "",{stop}\n'
                 f'\t\t\tP: "ReferenceStop", "KTime", "Time", "",{stop}\n\t\t}}\n\t}}\n'
                 '\tAnimationLayer: 51, "AnimLayer::BaseLayer", "" {\n\t}\n')
        c += ["AnimLayer::BaseLayer, AnimStack::mixamo.com", (51, 50)]
        cn_id, cv_id = 400, 500
        for i, b in enumerate(bones):
            for prop, keys in sorted(b["anim"].items()):
                lcl = "Lcl Translation" if prop == "T" else "Lcl Rotation"
                o.append(f'\tAnimationCurveNode: {cn_id}, "AnimCurveNode::{prop}", "" {{\n\t\tProperties70:  {{\n'
                         + "".join(f'\t\t\tP: "d|{a}", "Number", "", "A",{num(k[0])}\n' for a, k in zip("XYZ", keys))
                         + "\t\t}\n\t}\n")
                c += [f"AnimCurveNode::{prop}, AnimLayer::BaseLayer", (cn_id, 51),
                      f"AnimCurveNode::{prop}, Model::{b['name']}", (cn_id, 100 + i, lcl)]
                for axis, k in zip("XYZ", keys):
                    o.append(f'\tAnimationCurve: {cv_id}, "AnimCurve::", "" {{\n\t\tDefault: {num(k[0])}\n'
                             '\t\tKeyVer: 4009\n' + arr("KeyTime", [round(t * KTIME) for t in KEY_TIMES], "\t\t")
                             + arr("KeyValueFloat", [float(v) for v in k], "\t\t")
                             + "\t\t;KeyAttrFlags: Linear\n" + arr("KeyAttrFlags", [24836], "\t\t")
                             + arr("KeyAttrDataFloat", [0, 0, 255790911, 0], "\t\t")
                             + arr("KeyAttrRefCount", [len(KEY_TIMES)], "\t\t") + "\t}\n")
                    c += [f"AnimCurve::, AnimCurveNode::{prop}", (cv_id, cn_id, f"d|{axis}")]
                    cv_id += 1
                cn_id += 1
    conn = ""
    for comment, link in zip(c[0::2], c[1::2]):
        conn += f"\t\n\t;{comment}\n"
        conn += f'\tC: "OP",{link[0]},{link[1]}, "{link[2]}"\n' if len(link) == 3 else f'\tC: "OO",{link[0]},{link[1]}\n'
    gs = "".join(f'\t\tP: "{n}", "int", "Integer", "",{v}\n' for n, v in (
        ("UpAxis", 1), ("UpAxisSign", 1), ("FrontAxis", 2), ("FrontAxisSign", 1), ("CoordAxis", 0),
        ("CoordAxisSign", 1), ("OriginalUpAxis", 1), ("OriginalUpAxisSign", 1)))
    types = collections.Counter(re.findall(r"^\t(\w+): \d+,", "".join(o), re.M))
    with open(path, "w") as f:
        f.write("; FBX 7.4.0 project file\n; Generated by tests/tools/gen/fbx_pivots.py\n"
                "; ----------------------------------------------------\n\n"
                "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n"
                '\tCreator: "FBX SDK/FBX Plugins version 2014.2.1"\n}\n'
                "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n" + gs
                + '\t\tP: "UnitScaleFactor", "double", "Number", "",1\n'
                '\t\tP: "OriginalUnitScaleFactor", "double", "Number", "",1\n'
                '\t\tP: "AmbientColor", "ColorRGB", "Color", "",0,0,0\n'
                '\t\tP: "DefaultCamera", "KString", "", "", "Producer Perspective"\n'
                '\t\tP: "TimeMode", "enum", "", "",6\n\t\tP: "TimeProtocol", "enum", "", "",2\n'
                '\t\tP: "SnapOnFrameMode", "enum", "", "",0\n\t\tP: "TimeSpanStart", "KTime", "Time", "",0\n'
                f'\t\tP: "TimeSpanStop", "KTime", "Time", "",{int(KEY_TIMES[-1] * KTIME)}\n'
                '\t\tP: "CustomFrameRate", "double", "Number", "",-1\n\t}\n}\n\n'
                "; Object definitions\n;------------------------------------------------------------------\n\n"
                "Definitions:  {\n\tVersion: 100\n\tCount: %d\n" % (sum(types.values()) + 1)
                + "".join(f'\tObjectType: "{t}" {{\n\t\tCount: {n}\n\t}}\n'
                          for t, n in [("GlobalSettings", 1)] + list(types.items()))
                + "}\n\n; Object properties\n;------------------------------------------------------------------\n\n"
                "Objects:  {\n" + "".join(o) + "}\n\n"
                "; Object connections\n;------------------------------------------------------------------\n\n"
                "Connections:  {\n" + conn + "}\n")
        if with_anim:
            f.write('\n;Takes section\n;----------------------------------------------------\n\n'
                    'Takes:  {\n\tCurrent: "mixamo.com"\n\tTake: "mixamo.com" {\n'
                    f'\t\tFileName: "mixamo_com.tak"\n\t\tLocalTime: 0,{int(KEY_TIMES[-1] * KTIME)}\n'
                    f'\t\tReferenceTime: 0,{int(KEY_TIMES[-1] * KTIME)}\n\t}}\n}}\n')

def write_pose(path, bones, mesh, t, with_anim):
    verts, _, _, weights = mesh
    glob = pose_globals(bones, t) if with_anim else [b["bind"] for b in bones]
    skin = [mul(g, inverse(b["bind"])) for g, b in zip(glob, bones)]
    out = [[0.0, 0.0, 0.0] for _ in verts]
    for i, ws in enumerate(weights):
        for vi, w in ws:
            out[vi] = [o + w * p for o, p in zip(out[vi], apply(skin[i], verts[vi]))]
    pts = [x for p in out for x in p]
    json.dump({"schema": "skinned-points/1", "generator": "fbx_pivots.py (FBX spec)", "t": t,
               "num_bones": len(bones), "duration_s": KEY_TIMES[-1] if with_anim else 0,
               "aabb": {"min": [min(p[k] for p in out) for k in range(3)],
                        "max": [max(p[k] for p in out) for k in range(3)]},
               "meshes": [{"name": "Body", "num_vertices": len(out), "positions": pts}]}, open(path, "w"))

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--variant", choices=("prerotation", "pivots", "offaxis"), default="prerotation")
    ap.add_argument("--no-anim", action="store_true")
    ap.add_argument("--transform-mesh", action="store_true")
    ap.add_argument("--pose", nargs=2, metavar=("T", "JSON"))
    a = ap.parse_args()
    bones = make_bones(a.variant)
    solve_translations(bones)
    mesh = make_mesh(bones)
    write_fbx(a.out, bones, mesh, not a.no_anim, a.transform_mesh)
    if a.pose:
        write_pose(a.pose[1], bones, mesh, float(a.pose[0]), not a.no_anim)

if __name__ == "__main__":
    main()
