#!/usr/bin/env python3
"""Counts tress's public API: the headers under */include/tress/ and the functions they declare.

A public function is a top-level declaration or static inline definition in a public header
whose name starts with tress_ (function-pointer typedefs and struct fields are not counted).
Comments, strings and preprocessor lines are stripped first, brace bodies dropped; then in each
top-level statement that is not a typedef, the first `tress_xxx (` not preceded by `(*` counts,
once per name.

  scripts/dev/count_api.py [--list] [--rev GIT_REV]   # the working tree, or a commit's headers
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def public_headers():
    return sorted(p for p in ROOT.glob("**/include/tress/*.h") if "build" not in p.relative_to(ROOT).parts[0])


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    lines = []
    continuing = False
    for line in text.split("\n"):
        if continuing or line.lstrip().startswith("#"):
            continuing = line.rstrip().endswith("\\")
            continue
        lines.append(line)
    return "\n".join(lines)


def top_level(text):
    """The text outside braces (function bodies, struct and enum bodies are dropped)."""
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
            out.append(";")
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def functions(text):
    # extern "C" { ... } is a brace block too: its contents are what we want.
    text = top_level(re.sub(r'extern\s+""\s*\{', "", strip(text)))
    names = []
    for statement in text.split(";"):
        if re.match(r"\s*typedef\b", statement):
            continue  # a function type or function-pointer typedef names no function
        m = re.search(r"(\(\s*\*\s*)?\b(tress_\w+)\s*\(", statement)
        if m and not m.group(1) and m.group(2) not in names:
            names.append(m.group(2))
    return names


def read_headers(rev):
    """(path, text) of every public header, from the working tree or from a git revision."""
    if not rev:
        return [(p.relative_to(ROOT), p.read_text()) for p in public_headers()]
    listing = subprocess.check_output(["git", "-C", str(ROOT), "ls-tree", "-r", "--name-only", rev], text=True)
    paths = sorted(l for l in listing.split() if re.search(r"(^|/)include/tress/[^/]+\.h$", l))
    return [(l, subprocess.check_output(["git", "-C", str(ROOT), "show", f"{rev}:{l}"], text=True)) for l in paths]


def main():
    rev = None
    if "--rev" in sys.argv:
        rev = sys.argv[sys.argv.index("--rev") + 1]
    headers = read_headers(rev)
    total = 0
    for path, text in headers:
        names = functions(text)
        total += len(names)
        if "--list" in sys.argv:
            for n in names:
                print(f"{path}: {n}")
    print(f"{len(headers)} public headers, {total} public functions")


if __name__ == "__main__":
    main()
