#!/usr/bin/env python3
"""Rewrites calls of the old def-less scene constructor to the def-based one.

  old: tress_scene *scene = tress_scene_create();
  new, in tests/ (but tests/install and tests/vrm, programs that do not link tests/support):
       tress_scene *scene = th_scene();              (tests/support/scene_build.h)
  new, in bench/:
       tress_scene *scene = bench_scene();           (bench/bench_scene.h)
  new, anywhere else (product code, the install consumers, .md examples):
       tress_scene_def scene_def = tress_default_scene_def();
       tress_scene *scene = tress_scene_create(&scene_def);

The helpers create the scene from tress_default_scene_def(); the header they live in is included
when the file does not include it yet. Elsewhere the def line goes before the statement that makes
the call, at its indentation; a call that is the body of a brace-less if/for/while/else, or a
second call in the same file, is not rewritten: it is listed on stderr as FILE:LINE and the script
exits 1, for a person to rewrite.

Idempotent: the new code no longer calls tress_scene_create with no argument, so a second run
changes nothing. The lead re-runs it after merging branches that add call sites:

  scripts/dev/rewrite_scene_create.py            # every .c/.h/.cpp/.md file of the repository
  scripts/dev/rewrite_scene_create.py FILE...    # just these
  scripts/dev/rewrite_scene_create.py --check    # exit 1 if anything is left to rewrite
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CALL = re.compile(r"\btress_scene_create\s*\(\s*(void)?\s*\)")
SKIP_DIRS = {".git", "build", "build-asan", "third_party", "_deps"}
SUFFIXES = {".c", ".h", ".cpp", ".md"}
HELPERS = {  # folder -> (helper call, header, include line)
    "tests": ("th_scene()", "support/scene_build.h", '#include "support/scene_build.h"'),
    "bench": ("bench_scene()", "bench_scene.h", '#include "bench_scene.h"'),
}
BRACELESS = re.compile(r"^\s*(}\s*)?(if|for|while|else)\b[^;{]*$")


def helper_for(path):
    rel = path.resolve().relative_to(ROOT).parts
    if not rel or rel[0] not in HELPERS or (rel[0] == "tests" and rel[1:2] in (("install",), ("vrm",))):
        return None
    if path.name in ("scene_build.h", "bench_scene.h"):
        return None  # the helpers themselves
    return HELPERS[rel[0]]


def add_include(text, header, line):
    if header in text:
        return text
    includes = list(re.finditer(r'^#include "[^"]+"[^\n]*\n', text, re.M))
    if includes:
        at = includes[-1].end()
    else:
        last = list(re.finditer(r"^#include <[^>]+>[^\n]*\n", text, re.M))
        at = last[-1].end() if last else 0
    return text[:at] + line + "\n" + text[at:]


def rewrite_with_def(path, text, problems):
    lines = text.split("\n")
    done = 0
    for i, line in enumerate(lines):
        if not CALL.search(line):
            continue
        prev = lines[i - 1] if i else ""
        if done or BRACELESS.match(prev):
            problems.append(f"{path}:{i + 1}")
            continue
        indent = re.match(r"\s*", line).group(0)
        lines[i] = CALL.sub("tress_scene_create(&scene_def)", line)
        lines[i] = indent + "tress_scene_def scene_def = tress_default_scene_def();\n" + lines[i]
        done += 1
    return "\n".join(lines)


def rewrite(path, problems):
    text = path.read_text()
    if not CALL.search(text) or "tress_scene *tress_scene_create(" in text:
        return False
    helper = helper_for(path)
    if helper:
        call, header, include = helper
        new = add_include(CALL.sub(call, text), header, include)
    else:
        new = rewrite_with_def(path, text, problems)
    if new == text:
        return False
    path.write_text(new)
    return True


def files(args):
    if args:
        return [pathlib.Path(a) for a in args]
    return [p for p in ROOT.rglob("*")
            if p.suffix in SUFFIXES and p.is_file() and not SKIP_DIRS & set(p.relative_to(ROOT).parts)]


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    problems, changed = [], []
    for path in files(args):
        text = path.read_text(errors="replace")
        if not CALL.search(text) or "tress_scene *tress_scene_create(" in text:
            continue
        if check:
            problems.append(str(path))
        elif rewrite(path, problems):
            changed.append(str(path))
    for c in changed:
        print("rewrote", c)
    for p in problems:
        print(("left to rewrite: " if check else "not rewritten: ") + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
