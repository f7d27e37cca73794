#!/usr/bin/env python3
"""check_private_includes.py - bench/ and tests/ use public headers only (docs/API.md, Headers).

A private header is one under a component's src/ folder (shared/<component>/src, protocol/src,
client/src, server/src). A file under bench/ or tests/ that includes one must be a white-box test:
its opening comment says "White-box" and names every private header it includes, which is where
it says why. A bench is never white-box. The tests tests/CMakeLists.txt lists in
TRESS_WHITE_BOX_SIM_TESTS (the only unit tests that get the sim's src/ on their include path)
must each include a private header. Prints every violation and exits 1 if there is one.

Usage: check_private_includes.py SOURCE_DIR
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
SOURCE_ENDINGS = (".c", ".h", ".cc", ".cpp")


def private_dirs(root):
    """The src/ folders of the product components."""
    dirs = [os.path.join(root, top, "src") for top in ("protocol", "client", "server")]
    shared = os.path.join(root, "shared")
    if os.path.isdir(shared):
        dirs += [os.path.join(shared, c, "src") for c in sorted(os.listdir(shared))]
    return [os.path.realpath(d) for d in dirs if os.path.isdir(d)]


def private_headers(dirs):
    """Basename -> path of every header in a private folder."""
    names = {}
    for d in dirs:
        for base, _, files in os.walk(d):
            for f in files:
                if f.endswith(".h"):
                    names[f] = os.path.join(base, f)
    return names


def inside(path, dirs):
    real = os.path.realpath(path)
    return any(real == d or real.startswith(d + os.sep) for d in dirs)


def private_includes(path, text, root, dirs, names):
    """The private headers a file includes: by a path into a src/ folder, or by a quoted name
    that only a private folder holds (what a private include directory would resolve)."""
    found = []
    here = os.path.dirname(path)
    public_roots = [here, os.path.join(root, "tests"), os.path.join(root, "bench")]
    for kind, name in INCLUDE.findall(text):
        near = os.path.join(here, name)
        if os.path.exists(near):
            if inside(near, dirs):
                found.append(os.path.basename(name))
            continue
        if kind != '"':
            continue
        if any(os.path.exists(os.path.join(r, name)) for r in public_roots):
            continue
        if name.startswith("tress/"):
            continue
        if os.path.basename(name) in names:
            found.append(os.path.basename(name))
    return found


def opening_comment(text):
    """The comment the file starts with (a /* */ block or a run of // lines), else ""."""
    stripped = text.lstrip()
    if stripped.startswith("/*"):
        end = stripped.find("*/")
        return stripped[: end + 2] if end >= 0 else stripped
    lines = []
    for line in stripped.splitlines():
        if not line.lstrip().startswith("//"):
            break
        lines.append(line)
    return "\n".join(lines)


def scanned_files(root):
    for top in ("bench", "tests"):
        for base, subdirs, files in os.walk(os.path.join(root, top)):
            subdirs[:] = sorted(s for s in subdirs if s not in ("corpus", "seeds"))
            for f in sorted(files):
                if f.endswith(SOURCE_ENDINGS):
                    yield os.path.join(base, f)


def white_box_list(root):
    path = os.path.join(root, "tests", "CMakeLists.txt")
    with open(path, encoding="utf-8") as f:
        m = re.search(r"set\(TRESS_WHITE_BOX_SIM_TESTS([^)]*)\)", f.read())
    return m.group(1).split() if m else []


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    root = os.path.realpath(sys.argv[1])
    dirs = private_dirs(root)
    names = private_headers(dirs)
    problems = []
    including = set()
    for path in scanned_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        found = private_includes(path, text, root, dirs, names)
        if not found:
            continue
        including.add(os.path.splitext(os.path.basename(path))[0])
        if rel.startswith("bench" + os.sep):
            problems.append(f"{rel}: a bench includes private {', '.join(found)}; use a public header")
            continue
        head = opening_comment(text)
        if "White-box" not in head:
            problems.append(f"{rel}: includes private {', '.join(found)} but its opening comment does not say "
                            "\"White-box\" and why")
            continue
        unnamed = [h for h in found if h not in head]
        if unnamed:
            problems.append(f"{rel}: its White-box reason does not name {', '.join(unnamed)}")
    for name in white_box_list(root):
        if name not in including:
            problems.append(f"tests/CMakeLists.txt: {name} is in TRESS_WHITE_BOX_SIM_TESTS but includes no "
                            "private header; take it off the list")
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in bench/ and tests/ ({len(names)} private headers known)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
