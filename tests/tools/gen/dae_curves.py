#!/usr/bin/env python3
"""dae_curves.py OUT_DIR - Collada files whose curves are STEP, BEZIER and
HERMITE (issue #42: both Assimp builds play every Collada curve as LINEAR
between its keys).

A skinned tube along +y (radius 0.2, 0 to 3.5) on a chain of joints Root
(y 0, a <matrix>), J1 (y 1: translate, rotateZ, rotateY, rotateX, scale),
J2 (y 2, a <matrix>) and J3 (y 3, a <matrix>); each vertex blends the two
joints around it. Each node's channels sit in one <animation> of its own
(Seymour's layout), every curve ends at 2 s.

curves.dae (read by ../shared/oracle/dae_spec.py as it is):
  J1 rotateZ.ANGLE  BEZIER, 2-D tangents, control times at 0.15 and 0.55 of
                    each segment and values that overshoot the keys
  J1 rotateY.ANGLE  BEZIER, 2-D tangents, keyed at other times (0, 0.8, 2)
  J1 rotateX.ANGLE  per key BEZIER, STEP, LINEAR, BEZIER
  J1 translate      the whole element (stride 3): STEP, LINEAR, STEP
  J1 scale.Y        BEZIER, 1-D tangents (control values at the thirds)
  J2 transform      the whole <matrix> (stride 16): BEZIER with 2-D
                    tangents (stride 32) between turns about z
  J3 transform(3)(1) its y translation, BEZIER 2-D; transform(3)(0), its x
                    translation, STEP
hermite.dae: HERMITE curves (2-D tangent vectors on J1 rotateZ.ANGLE, 1-D
  on J1 translate.X and J3 transform(3)(0), HERMITE mixed with STEP and
  LINEAR on J1 rotateX.ANGLE); dae_spec.py reads no HERMITE, so
hermite_bezier.dae is the same file with each HERMITE key written as the
  BEZIER the COLLADA spec relates it to (C0 = P0 + T0 / 3, C1 = P1 - T1 / 3),
  for the evaluator (reference_case.sh --oracle-model).
Written at test time."""
import math, os, sys

RADIUS, SIDES, TOP, STEP_Y = 0.2, 8, 3.5, 0.25
JOINTS = ['Root', 'J1', 'J2', 'J3']


def fmt(xs):
    return ' '.join('%.9g' % x for x in xs)


def tube():
    pos, tris, vc, v, weights = [], [], [], [], [1.0]
    rings = int(round(TOP / STEP_Y)) + 1
    for r in range(rings):
        y = r * STEP_Y
        j = min(int(y), 3)
        f = y - j if j < 3 else 0.0
        for s in range(SIDES):
            a = 2 * math.pi * s / SIDES
            pos += [RADIUS * math.cos(a), y, RADIUS * math.sin(a)]
            if f == 0.0:
                vc.append(1)
                v += [j, 0]
            else:
                vc.append(2)
                weights += [1.0 - f, f]
                v += [j, len(weights) - 2, j + 1, len(weights) - 1]
    for r in range(rings - 1):
        for s in range(SIDES):
            a, b = r * SIDES + s, r * SIDES + (s + 1) % SIDES
            c, d = a + SIDES, b + SIDES
            tris += [a, c, b, b, c, d]
    return pos, tris, vc, v, weights


def rot_z(deg, ty):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [c, -s, 0, 0, s, c, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1]


def source(sid, floats=None, names=None, stride=1, param='VALUE'):
    if names is not None:
        return ('<source id="%s"><Name_array id="%s-array" count="%d">%s</Name_array><technique_common>'
                '<accessor source="#%s-array" count="%d" stride="1"><param name="INTERPOLATION" type="name"/>'
                '</accessor></technique_common></source>' % (sid, sid, len(names), ' '.join(names), sid, len(names)))
    return ('<source id="%s"><float_array id="%s-array" count="%d">%s</float_array><technique_common>'
            '<accessor source="#%s-array" count="%d" stride="%d">%s</accessor></technique_common></source>'
            % (sid, sid, len(floats), fmt(floats), sid, len(floats) // stride, stride,
               ''.join('<param name="%s%d" type="float"/>' % (param, i) for i in range(stride))))


class Curve:
    """One channel: keys (times, values of `stride` floats), per key
    interpolation, tangents per key (in, out) of tan_stride floats."""

    def __init__(self, target, times, values, stride, interp, tin=None, tout=None, tan_stride=0):
        self.target, self.times, self.values, self.stride = target, times, values, stride
        self.interp, self.tin, self.tout, self.tan_stride = interp, tin, tout, tan_stride

    def as_bezier(self):
        """HERMITE keys as the BEZIER the spec relates them to."""
        if 'HERMITE' not in self.interp:
            return self
        tin, tout = list(self.tin), list(self.tout)
        w, ts = self.stride, self.tan_stride
        for k, t in enumerate(self.times):
            for a in range(w):
                p = self.values[k * w + a]
                if ts == 2 * w:
                    i, o = k * ts + 2 * a, k * ts + 2 * a
                    tin[i], tin[i + 1] = t - self.tin[i] / 3.0, p - self.tin[i + 1] / 3.0
                    tout[o], tout[o + 1] = t + self.tout[o] / 3.0, p + self.tout[o + 1] / 3.0
                else:
                    tin[k * ts + a] = p - self.tin[k * ts + a] / 3.0
                    tout[k * ts + a] = p + self.tout[k * ts + a] / 3.0
        interp = ['BEZIER' if i == 'HERMITE' else i for i in self.interp]
        return Curve(self.target, self.times, self.values, self.stride, interp, tin, tout, self.tan_stride)

    def xml(self, name):
        out = [source(name + '-input', self.times, param='TIME'),
               source(name + '-output', self.values, stride=self.stride),
               source(name + '-interp', names=self.interp)]
        inputs = ['INPUT', 'OUTPUT', 'INTERPOLATION']
        if self.tin is not None:
            out += [source(name + '-intan', self.tin, stride=self.tan_stride),
                    source(name + '-outtan', self.tout, stride=self.tan_stride)]
            inputs += ['IN_TANGENT', 'OUT_TANGENT']
        suffix = {'INPUT': 'input', 'OUTPUT': 'output', 'INTERPOLATION': 'interp', 'IN_TANGENT': 'intan',
                  'OUT_TANGENT': 'outtan'}
        out.append('<sampler id="%s-sampler">%s</sampler>' % (
            name, ''.join('<input semantic="%s" source="#%s-%s"/>' % (i, name, suffix[i]) for i in inputs)))
        out.append('<channel source="#%s-sampler" target="%s"/>' % (name, self.target))
        return '\n'.join(out)


def bezier2d(target, times, values, interp, fout=0.15, fin=0.45, over=None):
    """A scalar curve with 2-D control points: the out-tangent at fout of
    the segment after the key, the in-tangent at fin before it, values
    pushed by over[k] (out) and -over[k] * 0.6 (in): asymmetric, past the
    keys."""
    over = over or [0.0] * len(times)
    tin, tout = [], []
    for k, (t, v) in enumerate(zip(times, values)):
        before = times[k] - times[k - 1] if k > 0 else 0.5
        after = times[k + 1] - times[k] if k + 1 < len(times) else 0.5
        tin += [t - fin * before, v - 0.6 * over[k]]
        tout += [t + fout * after, v + over[k]]
    return Curve(target, times, values, 1, interp, tin, tout, 2)


def curves_main():
    T = [0.0, 0.5, 1.3, 2.0]
    cs = {'J1': [], 'J2': [], 'J3': []}
    cs['J1'].append(bezier2d('J1/rotateZ.ANGLE', T, [0.0, 40.0, -25.0, 10.0], ['BEZIER'] * 4,
                             over=[30.0, 25.0, -20.0, 5.0]))
    cs['J1'].append(bezier2d('J1/rotateY.ANGLE', [0.0, 0.8, 2.0], [0.0, 50.0, 15.0], ['BEZIER'] * 3,
                             fout=0.3, fin=0.2, over=[20.0, -15.0, 0.0]))
    cs['J1'].append(bezier2d('J1/rotateX.ANGLE', T, [0.0, 20.0, -15.0, 5.0], ['BEZIER', 'STEP', 'LINEAR', 'BEZIER'],
                             over=[15.0, 10.0, 0.0, 0.0]))
    cs['J1'].append(Curve('J1/translate', T, [0, 1, 0, 0.3, 1, 0, 0.3, 1.2, 0.1, -0.2, 1, 0], 3,
                          ['STEP', 'LINEAR', 'STEP', 'LINEAR']))
    sy = [1.0, 1.4, 0.8, 1.0]
    # 1-D tangents: control values, at the thirds of each segment in time.
    cs['J1'].append(Curve('J1/scale.Y', T, sy, 1, ['BEZIER'] * 4, [v - 0.3 for v in sy], [v + 0.5 for v in sy], 1))
    angles = [0.0, -30.0, 20.0, 0.0]
    mats = sum((rot_z(a, 1.0) for a in angles), [])
    tin, tout = [], []
    for k, (t, a) in enumerate(zip(T, angles)):
        before = T[k] - T[k - 1] if k else 0.5
        after = T[k + 1] - T[k] if k + 1 < len(T) else 0.5
        m_in, m_out = rot_z(a + 12.0, 1.0), rot_z(a - 25.0, 1.0)
        for e in range(16):
            tin += [t - 0.4 * before, m_in[e]]
            tout += [t + 0.2 * after, m_out[e]]
    cs['J2'].append(Curve('J2/transform', T, mats, 16, ['BEZIER'] * 4, tin, tout, 32))
    cs['J3'].append(bezier2d('J3/transform(3)(1)', T, [1.0, 1.3, 0.7, 1.0], ['BEZIER'] * 4, over=[0.4, -0.3, 0.2, 0.0]))
    cs['J3'].append(Curve('J3/transform(3)(0)', T, [0.0, 0.25, -0.2, 0.0], 1, ['STEP'] * 4))
    return cs


def curves_hermite():
    T = [0.0, 0.5, 1.3, 2.0]
    cs = {'J1': [], 'J2': [], 'J3': []}
    # 2-D tangent vectors (time, value) by the segment's parameter: time
    # steps of 0.6 and 1.5 segments (asymmetric), values that overshoot.
    z, tin, tout = [0.0, 35.0, -20.0, 10.0], [], []
    slopes = [60.0, -40.0, 30.0, 10.0]
    for k in range(4):
        before = T[k] - T[k - 1] if k else 0.5
        after = T[k + 1] - T[k] if k + 1 < 4 else 0.5
        tin += [1.5 * before, slopes[k] * 1.5 * before * 2.0]
        tout += [0.6 * after, slopes[k] * 0.6 * after * 3.0]
    cs['J1'].append(Curve('J1/rotateZ.ANGLE', T, z, 1, ['HERMITE'] * 4, tin, tout, 2))
    # 1-D: value derivatives by the parameter (time linear in it).
    cs['J1'].append(Curve('J1/translate.X', T, [0.0, 0.3, -0.2, 0.1], 1, ['HERMITE'] * 4,
                          [0.0, 1.2, -0.6, 0.4], [0.8, -0.9, 0.5, 0.0], 1))
    cs['J1'].append(Curve('J1/rotateX.ANGLE', T, [0.0, 25.0, -10.0, 5.0], 1, ['HERMITE', 'STEP', 'HERMITE', 'LINEAR'],
                          [0.0, -30.0, 40.0, 0.0], [50.0, 0.0, -60.0, 0.0], 1))
    cs['J3'].append(Curve('J3/transform(3)(0)', T, [0.0, 0.2, -0.15, 0.0], 1, ['HERMITE'] * 4,
                          [0.0, 0.9, -0.4, 0.2], [0.6, -0.7, 0.3, 0.0], 1))
    return cs


def document(curves):
    pos, tris, vc, v, weights = tube()
    n = len(pos) // 3
    ibm = sum(([1, 0, 0, 0, 0, 1, 0, -float(j), 0, 0, 1, 0, 0, 0, 0, 1] for j in range(4)), [])
    anims = []
    for node in ('J1', 'J2', 'J3'):
        if curves[node]:
            body = '\n'.join(c.xml('%s-c%d' % (node, i)) for i, c in enumerate(curves[node]))
            anims.append('<animation id="%s-anim">\n%s\n</animation>' % (node, body))
    ident = fmt([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
    up = lambda y: fmt([1, 0, 0, 0, 0, 1, 0, y, 0, 0, 1, 0, 0, 0, 0, 1])
    return '''<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_geometries><geometry id="tube-mesh" name="tube"><mesh>
<source id="tube-pos"><float_array id="tube-pos-array" count="%d">%s</float_array><technique_common>
<accessor source="#tube-pos-array" count="%d" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor>
</technique_common></source>
<vertices id="tube-vtx"><input semantic="POSITION" source="#tube-pos"/></vertices>
<triangles count="%d"><input semantic="VERTEX" source="#tube-vtx" offset="0"/><p>%s</p></triangles>
</mesh></geometry></library_geometries>
<library_controllers><controller id="tube-skin"><skin source="#tube-mesh">
<bind_shape_matrix>%s</bind_shape_matrix>
<source id="tube-joints"><Name_array id="tube-joints-array" count="4">%s</Name_array><technique_common>
<accessor source="#tube-joints-array" count="4" stride="1"><param name="JOINT" type="name"/></accessor></technique_common></source>
<source id="tube-ibm"><float_array id="tube-ibm-array" count="64">%s</float_array><technique_common>
<accessor source="#tube-ibm-array" count="4" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
<source id="tube-weights"><float_array id="tube-weights-array" count="%d">%s</float_array><technique_common>
<accessor source="#tube-weights-array" count="%d" stride="1"><param name="WEIGHT" type="float"/></accessor></technique_common></source>
<joints><input semantic="JOINT" source="#tube-joints"/><input semantic="INV_BIND_MATRIX" source="#tube-ibm"/></joints>
<vertex_weights count="%d"><input semantic="JOINT" source="#tube-joints" offset="0"/><input semantic="WEIGHT" source="#tube-weights" offset="1"/>
<vcount>%s</vcount><v>%s</v></vertex_weights>
</skin></controller></library_controllers>
<library_animations>
%s
</library_animations>
<library_visual_scenes><visual_scene id="scene" name="scene">
<node id="Root" sid="Root" name="Root" type="JOINT"><matrix sid="transform">%s</matrix>
<node id="J1" sid="J1" name="J1" type="JOINT"><translate sid="translate">0 1 0</translate><rotate sid="rotateZ">0 0 1 0</rotate><rotate sid="rotateY">0 1 0 0</rotate><rotate sid="rotateX">1 0 0 0</rotate><scale sid="scale">1 1 1</scale>
<node id="J2" sid="J2" name="J2" type="JOINT"><matrix sid="transform">%s</matrix>
<node id="J3" sid="J3" name="J3" type="JOINT"><matrix sid="transform">%s</matrix></node>
</node></node></node>
<node id="Tube" name="Tube"><instance_controller url="#tube-skin"><skeleton>#Root</skeleton></instance_controller></node>
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
''' % (len(pos), fmt(pos), n, len(tris) // 3, ' '.join(map(str, tris)), ident, ' '.join(JOINTS), fmt(ibm),
       len(weights), fmt(weights), len(weights), n, ' '.join(map(str, vc)), ' '.join(map(str, v)), '\n'.join(anims),
       ident, up(1.0), up(1.0))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    hermite = curves_hermite()
    files = {'curves.dae': curves_main(), 'hermite.dae': hermite,
             'hermite_bezier.dae': {k: [c.as_bezier() for c in v] for k, v in hermite.items()}}
    for name, cs in files.items():
        with open(os.path.join(out, name), 'w', encoding='utf-8') as f:
            f.write(document(cs))


if __name__ == '__main__':
    main()
