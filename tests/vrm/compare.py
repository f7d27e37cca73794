#!/usr/bin/env python3
"""compare.py - tress's trace of a conformance scene against three-vrm's (reference.mjs): the
largest deviation of any joint in any frame, the deviation of the settled pose (the last frame),
and how deep any joint gets inside a collider in each (from the reference's collider poses and
hit radii; the colliders hang from driven nodes, so both runs share them).

  compare.py REFERENCE.json TRESS.json [--max-dev M] [--settled M]

Prints one line per scene; exits 1 when a goal is missed: max deviation > --max-dev (0.01 m),
settled deviation > --settled (0.002 m), or a joint deeper inside a collider than the
reference's deepest (plus 0.1 mm of float slack)."""
import argparse
import json
import math
import sys


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def norm(a):
    return math.sqrt(dot(a, a))


def depth(c, p, r):
    """How far a sphere of radius r at p is inside collider c (0 when clear), as three-vrm
    measures it."""
    if c["shape"] == "plane":
        return max(0.0, r - dot(sub(p, c["a"]), c["normal"]))
    a, b = c["a"], c["b"]
    ab, ap = sub(b, a), sub(p, a)
    ab2 = dot(ab, ab)
    t = 0.0 if ab2 <= 0 else max(0.0, min(1.0, dot(ap, ab) / ab2))
    d = norm(sub(p, [a[0] + ab[0] * t, a[1] + ab[1] * t, a[2] + ab[2] * t]))
    if c.get("inside"):
        return max(0.0, d + r - c["radius"])
    return max(0.0, c["radius"] + r - d)


def joint(frame, k):
    return frame[3 * k:3 * k + 3]


def deepest(run, ref):
    worst = 0.0
    index = {n: k for k, n in enumerate(run["joints"])}
    for f, frame in enumerate(run["frames"]):
        for h in ref["hits"]:
            p = joint(frame, index[h["joint"]])
            for ci in h["colliders"]:
                worst = max(worst, depth(ref["colliders"][f][ci], p, h["radius"]))
    return worst


def compare(ref, run):
    if ref["joints"] != run["joints"]:
        raise SystemExit(f"joints differ: reference {ref['joints']} tress {run['joints']}")
    if len(ref["frames"]) != len(run["frames"]):
        raise SystemExit(f"frame counts differ: {len(ref['frames'])} vs {len(run['frames'])}")
    worst, at = 0.0, (0, "")
    for f, (a, b) in enumerate(zip(ref["frames"], run["frames"])):
        for k, name in enumerate(ref["joints"]):
            d = norm(sub(joint(a, k), joint(b, k)))
            if d > worst:
                worst, at = d, (f, name)
    last_a, last_b = ref["frames"][-1], run["frames"][-1]
    settled = max(norm(sub(joint(last_a, k), joint(last_b, k))) for k in range(len(ref["joints"])))
    return {"max": worst, "at": at, "settled": settled, "depth_ref": deepest(ref, ref), "depth_tress": deepest(run, ref)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reference")
    ap.add_argument("tress")
    ap.add_argument("--max-dev", type=float, default=0.01)
    ap.add_argument("--settled", type=float, default=0.002)
    args = ap.parse_args()
    with open(args.reference) as f:
        ref = json.load(f)
    with open(args.tress) as f:
        run = json.load(f)
    r = compare(ref, run)
    missed = []
    if r["max"] > args.max_dev:
        missed.append(f"max deviation > {args.max_dev * 100:g} cm")
    if r["settled"] > args.settled:
        missed.append(f"settled > {args.settled * 1000:g} mm")
    if r["depth_tress"] > r["depth_ref"] + 1e-4:
        missed.append("deeper in a collider than the reference")
    print(f"{ref['scene']:<16} max {r['max'] * 100:8.3f} cm (frame {r['at'][0]}, {r['at'][1]})  "
          f"settled {r['settled'] * 1000:8.3f} mm  collider depth tress {r['depth_tress'] * 1000:7.3f} mm "
          f"ref {r['depth_ref'] * 1000:7.3f} mm  {'ok' if not missed else 'MISSED: ' + ', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
