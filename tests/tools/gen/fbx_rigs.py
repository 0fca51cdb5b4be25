#!/usr/bin/env python3
"""fbx_rigs.py OUT_DIR - small ASCII FBX 7.4 files of clips without a mesh,
for which nodes Skinview's stick figure makes joints (skeleton.c,
convert_skeleton_only). Each node: a Model of a type, with its
NodeAttribute (LimbNode, Null, Camera, Light), optionally keyed (one
rotation curve, 0 -> 30 degrees about Z over 1 s).

  limbs.fbx   LimbNodes Hips -> Spine -> Head -> HeadNub, Hips and Spine keyed;
              a keyed Null "Footsteps" under Hips; an unkeyed Camera under
              Head; a keyed Light at the root.
              Joints: Hips, Spine, Head, HeadNub (4; three.js's bones): the
              unkeyed ones below a joint count, the Null holding no joint,
              the camera below a joint and the lone light do not.
  nulls.fbx   Nulls Root -> A -> B -> C, all keyed, and a keyed Camera at the
              root. Joints: the four Nulls (a rig of Nulls keeps them; the
              camera is no bone that would make them helpers).
  holder.fbx  a keyed Null "Character" holding LimbNodes Hips (keyed) ->
              Spine (unkeyed) and Prop (keyed). Joints: all four (the Null
              holds joints: without it Prop would be a lone tree, dropped).
"""
import os
import sys

KTIME = 46186158000  # one second in FBX time


def fbx(nodes):
    """nodes: (name, kind, parent or None, keyed), kind LimbNode|Null|Camera|Light."""
    objects, links = [], []
    model_id = {name: 100 + i for i, (name, _, _, _) in enumerate(nodes)}
    attribute = {
        'LimbNode': 'TypeFlags: "Skeleton"',
        'Null': 'TypeFlags: "Null"',
        'Camera': 'TypeFlags: "Camera"\n\t\tPosition: 0,0,0\n\t\tUp: 0,1,0\n\t\tLookAt: 0,0,-1',
        'Light': 'Properties70:  {\n\t\t\tP: "LightType", "enum", "", "",0\n\t\t}\n\t\tTypeFlags: "Light"',
    }
    for i, (name, kind, parent, keyed) in enumerate(nodes):
        mid, aid = model_id[name], 1000 + i
        objects.append('\tNodeAttribute: %d, "NodeAttribute::%s", "%s" {\n\t\t%s\n\t}\n' % (aid, name, kind, attribute[kind]))
        objects.append('\tModel: %d, "Model::%s", "%s" {\n\t\tVersion: 232\n\t\tProperties70:  {\n'
                       '\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,%d,0\n\t\t}\n\t}\n'
                       % (mid, name, kind, 10 if parent else 0))
        links.append('\tC: "OO",%d,%d\n' % (mid, model_id[parent] if parent else 0))
        links.append('\tC: "OO",%d,%d\n' % (aid, mid))
    objects.append('\tAnimationStack: 50, "AnimStack::take", "" {\n\t\tProperties70:  {\n'
                   '\t\t\tP: "LocalStop", "KTime", "Time", "",%d\n\t\t}\n\t}\n'
                   '\tAnimationLayer: 51, "AnimLayer::BaseLayer", "" {\n\t}\n' % KTIME)
    links.append('\tC: "OO",51,50\n')
    curve_node, curve = 5000, 6000
    for name, _, _, keyed in nodes:
        if not keyed:
            continue
        objects.append('\tAnimationCurveNode: %d, "AnimCurveNode::R", "" {\n\t\tProperties70:  {\n'
                       '\t\t\tP: "d|X", "Number", "", "A",0\n\t\t\tP: "d|Y", "Number", "", "A",0\n'
                       '\t\t\tP: "d|Z", "Number", "", "A",0\n\t\t}\n\t}\n' % curve_node)
        links.append('\tC: "OO",%d,51\n\tC: "OP",%d,%d, "Lcl Rotation"\n' % (curve_node, curve_node, model_id[name]))
        for axis, end in (('X', 0), ('Y', 0), ('Z', 30)):
            objects.append('\tAnimationCurve: %d, "AnimCurve::", "" {\n\t\tDefault: 0\n\t\tKeyVer: 4009\n'
                           '\t\tKeyTime: *2 {\n\t\t\ta: 0,%d\n\t\t}\n\t\tKeyValueFloat: *2 {\n\t\t\ta: 0,%d\n\t\t}\n'
                           '\t\tKeyAttrFlags: *1 {\n\t\t\ta: 24836\n\t\t}\n'
                           '\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,255790911,0\n\t\t}\n'
                           '\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n\t}\n' % (curve, KTIME, end))
            links.append('\tC: "OP",%d,%d, "d|%s"\n' % (curve, curve_node, axis))
            curve += 1
        curve_node += 1
    return ('; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n'
            'GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: "UpAxis", "int", "Integer", "",1\n'
            '\t\tP: "UnitScaleFactor", "double", "Number", "",1\n\t\tP: "TimeMode", "enum", "", "",6\n\t}\n}\n'
            'Definitions:  {\n\tVersion: 100\n}\n'
            'Objects:  {\n' + ''.join(objects) + '}\nConnections:  {\n' + ''.join(links) + '}\n'
            'Takes:  {\n\tCurrent: "take"\n\tTake: "take" {\n\t\tLocalTime: 0,%d\n\t\tReferenceTime: 0,%d\n\t}\n}\n'
            % (KTIME, KTIME))


RIGS = {
    'limbs': [('Hips', 'LimbNode', None, True), ('Spine', 'LimbNode', 'Hips', True),
              ('Head', 'LimbNode', 'Spine', False), ('HeadNub', 'LimbNode', 'Head', False),
              ('Footsteps', 'Null', 'Hips', True), ('HeadCam', 'Camera', 'Head', False),
              ('Lamp', 'Light', None, True)],
    'nulls': [('Root', 'Null', None, True), ('A', 'Null', 'Root', True), ('B', 'Null', 'A', True),
              ('C', 'Null', 'B', True), ('Cam', 'Camera', None, True)],
    'holder': [('Character', 'Null', None, True), ('Hips', 'LimbNode', 'Character', True),
               ('Spine', 'LimbNode', 'Hips', False), ('Prop', 'LimbNode', 'Character', True)],
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, nodes in RIGS.items():
    with open(os.path.join(out, name + '.fbx'), 'w') as f:
        f.write(fbx(nodes))
