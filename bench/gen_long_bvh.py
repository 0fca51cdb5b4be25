#!/usr/bin/env python3
"""gen_long_bvh.py - a long mocap-like BVH clip for the seek benchmarks.

    bench/gen_long_bvh.py SECONDS OUT.bvh [--joints 32] [--hz 30]

32 joints by default (a root with position and rotation, then four
chains), keyed at 30 Hz for SECONDS, every channel a sum of two sines with
its own phase, written to two decimals as mocap exports are: every key
differs from the last, so nothing is constant and nothing compresses away.
Deterministic (no random state), so two runs give the same file."""
import math
import sys


def main():
    args = sys.argv[1:]
    joints, hz = 32, 30
    if "--joints" in args:
        i = args.index("--joints")
        joints = int(args[i + 1])
        del args[i:i + 2]
    if "--hz" in args:
        i = args.index("--hz")
        hz = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    seconds, out = float(args[0]), args[1]
    frames = int(round(seconds * hz)) + 1
    chains = 4
    per = (joints - 1 + chains - 1) // chains
    lines = ["HIERARCHY", "ROOT J0", "{", "\tOFFSET 0.00 0.00 0.00",
             "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"]
    made = 1
    for c in range(chains):
        depth = 0
        while depth < per and made < joints:
            ind = "\t" * (depth + 1)
            lines += [ind + "JOINT J%d" % made, ind + "{",
                      ind + "\tOFFSET %.2f %.2f %.2f" % (c - 1.5, 5.0 + depth, 0.25 * c),
                      ind + "\tCHANNELS 3 Zrotation Xrotation Yrotation"]
            made += 1
            depth += 1
        for d in range(depth, 0, -1):
            ind = "\t" * d
            if d == depth:
                lines += [ind + "\tEnd Site", ind + "\t{", ind + "\t\tOFFSET 0.00 1.00 0.00", ind + "\t}"]
            lines.append(ind + "}")
    lines += ["}", "MOTION", "Frames: %d" % frames, "Frame Time: %.8f" % (1.0 / hz)]
    nch = 6 + 3 * (joints - 1)
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
        for f in range(frames):
            t = f / hz
            vals = []
            for ch in range(nch):
                a = 0.7 + 0.13 * ch
                v = 20.0 * math.sin(a * t + ch) + 5.0 * math.sin(3.1 * a * t + 0.5 * ch)
                vals.append("%.2f" % v)
            fh.write(" ".join(vals) + "\n")


if __name__ == "__main__":
    main()
