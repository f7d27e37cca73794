#!/usr/bin/env python3
"""conformance.py - the VRM conformance test: writes the scenes (make_scenes.mjs), runs each
through three-vrm (reference.mjs) and through tress (tress_trace), and compares them
(compare.py). Skips (exit 77) with a message only when node is missing.

  conformance.py TRESS_TRACE WORK_DIR [--extended] [--scenes a,b,...] [--fixed-length]

--scenes runs only the named scenes (file names without .gltf, "extended/NAME" for the extended
set; default: every scene of the set --extended picks);
--fixed-length runs three-vrm with each joint's length fixed at its initial value (see
reference.mjs) instead of the length it re-measures from a stale child matrix each update.

three-vrm is taken from tests/vrm/node_modules when it is installed there, else installed
into WORK_DIR/node with `npm ci` from the committed package.json + package-lock.json."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def node_dir(work):
    """A folder holding the .mjs scripts beside an installed three-vrm-springbone."""
    if os.path.isdir(os.path.join(HERE, "node_modules", "@pixiv", "three-vrm-springbone")):
        return HERE
    d = os.path.join(work, "node")
    os.makedirs(d, exist_ok=True)
    for f in ("package.json", "package-lock.json", "make_scenes.mjs", "reference.mjs"):
        shutil.copy(os.path.join(HERE, f), d)
    if not os.path.isdir(os.path.join(d, "node_modules", "@pixiv", "three-vrm-springbone")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=d, check=True)
    return d


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    trace, work = sys.argv[1], sys.argv[2]
    extended = "--extended" in sys.argv
    only = None
    if "--scenes" in sys.argv:
        only = set(sys.argv[sys.argv.index("--scenes") + 1].split(","))
    ref_flags = ["--fixed-length"] if "--fixed-length" in sys.argv else []
    if not shutil.which("node"):
        print("SKIP: node is missing, so three-vrm (the reference) cannot run; install nodejs and npm")
        return SKIP
    os.makedirs(work, exist_ok=True)
    nd = node_dir(work)
    scenes = os.path.join(work, "scenes")
    subprocess.run(["node", os.path.join(nd, "make_scenes.mjs"), scenes], check=True)
    failed = 0
    plain = sorted(f for f in os.listdir(scenes) if f.endswith(".gltf"))
    ext = sorted("extended/" + f for f in os.listdir(os.path.join(scenes, "extended")) if f.endswith(".gltf"))
    names = ext if extended else plain
    if only is not None:  # names: "chain5", or "extended/plane" for the extended set
        missing = only - {n[:-5] for n in plain + ext}
        if missing:
            print(f"no such scene(s): {', '.join(sorted(missing))}")
            return 2
        names = [n for n in plain + ext if n[:-5] in only]
    tag = ".fixed" if ref_flags else ""
    for name in names:
        scene = os.path.join(scenes, name)
        base = name.replace("/", "_")
        ref_json = os.path.join(work, base + tag + ".reference.json")
        run_json = os.path.join(work, base + ".tress.json")
        with open(ref_json, "w") as out:
            subprocess.run(["node", os.path.join(nd, "reference.mjs"), scene] + ref_flags, stdout=out, check=True)
        with open(run_json, "w") as out:
            subprocess.run([trace, scene], stdout=out, check=True)
        failed += subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), ref_json, run_json]).returncode != 0
    print(f"{failed} scene(s) missed the goals" if failed else "every scene within the goals")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
