#!/usr/bin/env python3
"""Counts tress's public API: the headers under */include/tress/ and the functions they declare.

A public function is a top-level declaration or static inline definition in a public header
whose name starts with tress_ (function-pointer typedefs and struct fields are not counted).
Comments, strings and preprocessor lines are stripped first; then every `tress_xxx (` at brace
depth 0 that is not preceded by `(*` counts once per name.

  scripts/dev/count_api.py [--list]      # from the repository root
"""
import pathlib
import re
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


def functions(header):
    text = top_level(strip(header.read_text()))
    # extern "C" { ... } is a brace block too: its contents are what we want.
    text_c = top_level(re.sub(r'extern\s+""\s*\{', "", strip(header.read_text())))
    names = []
    for m in re.finditer(r"(\(\s*\*\s*)?\b(tress_\w+)\s*\(", text_c):
        if m.group(1):
            continue  # a function-pointer typedef
        if m.group(2) not in names:
            names.append(m.group(2))
    return names


def main():
    headers = public_headers()
    total = 0
    for h in headers:
        names = functions(h)
        total += len(names)
        if "--list" in sys.argv:
            for n in names:
                print(f"{h.relative_to(ROOT)}: {n}")
    print(f"{len(headers)} public headers, {total} public functions")


if __name__ == "__main__":
    main()
