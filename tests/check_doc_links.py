#!/usr/bin/env python3
"""check_doc_links.py - README and docs link only inside the repository.

Every Markdown file git tracks: each relative link ](target) must name a file or folder that
exists inside the repository, and no text may name a path outside it (an absolute /work/ path
or ../shared). Prints each violation and exits 1 if there is one.

Usage: check_doc_links.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE = re.compile(r"/work/|\.\./shared\b")


def markdown_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True, text=True)
    if out.returncode == 0:
        return out.stdout.split()
    return [os.path.relpath(os.path.join(b, f), root) for b, _, fs in os.walk(root) for f in fs if f.endswith(".md")]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    root = os.path.realpath(sys.argv[1])
    problems = []
    files = markdown_files(root)
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        for n, line in enumerate(lines, 1):
            if OUTSIDE.search(line):
                problems.append(f"{rel}:{n}: names a path outside the repository: {line.strip()[:100]}")
            for target in LINK.findall(line):
                if target.startswith(("http://", "https://", "mailto:", "#")):
                    continue
                path = os.path.realpath(os.path.join(root, os.path.dirname(rel), target.split("#")[0]))
                if not (path == root or path.startswith(root + os.sep)) or not os.path.exists(path):
                    problems.append(f"{rel}:{n}: link {target} does not point at a file in the repository")
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s) in {len(files)} Markdown files")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
