#!/usr/bin/env python3
"""Rewrites calls of the old positional instance constructor to the def-based one.

  old: tress_id x = tress_instance_create(scene, TRESS_KIND_PART, "Head", parent);
  new: tress_id x;
       {
         tress_instance_def instance_def = tress_default_instance_def();
         instance_def.kind = TRESS_KIND_PART, instance_def.name = "Head", instance_def.parent = parent;
         tress_scene_create_instance(scene, &instance_def, &x);
       }

Handled statement forms (a call may span lines):
  [tress_id] LVALUE = tress_instance_create(S, K, N, P);   (also as the body of a brace-less if/for/else)
  tress_instance_create(S, K, N, P);                       (result discarded: out is NULL)
  return tress_instance_create(S, K, N, P);                (a statement of its own)
Any other use (inside a ternary, an initializer list, a function argument) is not rewritten: it
is listed on stderr as FILE:LINE and the script exits 1, for a person to rewrite.

Idempotent: the new code no longer names tress_instance_create, so a second run changes nothing.
The lead re-runs it after merging branches that add call sites:

  scripts/dev/rewrite_instance_create.py            # every .c/.h/.cpp/.md file of the repository
  scripts/dev/rewrite_instance_create.py FILE...    # just these
  scripts/dev/rewrite_instance_create.py --check    # exit 1 if anything is left to rewrite
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
OLD = "tress_instance_create"
CALL = re.compile(r"\b" + OLD + r"\s*\(")
SKIP_DIRS = {".git", "build", "build-asan", "third_party", "_deps"}


def find_close(text, open_at):
    """Index of the parenthesis closing the one at open_at, skipping strings, chars and comments."""
    depth = 0
    i = open_at
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            quote = ch
            i += 1
            while i < len(text) and text[i] != quote:
                i += 2 if text[i] == "\\" else 1
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 1
        elif text.startswith("//", i):
            i = text.index("\n", i)
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def split_args(text):
    """Top-level comma-separated arguments of a call's inside."""
    args, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            quote = ch
            i += 1
            while i < len(text) and text[i] != quote:
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i])
            start = i + 1
        i += 1
    args.append(text[start:])
    return [" ".join(a.split()) for a in args]


# What may stand before the call in a statement we can rewrite. Group "lead" is the text that
# ends the previous statement (or opens a brace-less body), kept as it is.
LVALUE = r"[A-Za-z_]\w*(?:->\w+|\.\w+|\[[^\]\n]*\])*"
BEFORE = re.compile(
    r"(?P<lead>(?:[;{}]|\*/|\)|\belse|\bcase\b[^;:?\n]*:|\bdefault\s*:)\s*)"
    r"(?:(?P<ret>return)|(?P<void>\(void\))|(?P<decl>tress_id[ \t]+)?(?P<lhs>" + LVALUE + r")\s*=)?\s*$"
)


def opens_body(text, close_at):
    """True when the ) at close_at ends the head of an if, for or while (a brace-less body follows)."""
    depth = 0
    for i in range(close_at, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return re.search(r"\b(if|for|while)\s*$", text[:i]) is not None
    return False


def line_indent(text, at):
    start = text.rfind("\n", 0, at) + 1
    return re.match(r"[ \t]*", text[start:]).group(0)


def block(indent, scene, kind, name, parent, out):
    inner = indent + "  "
    fields = [f"instance_def.kind = {kind}", f"instance_def.name = {name}", f"instance_def.parent = {parent}"]
    one_line = inner + ", ".join(fields) + ";"
    if len(one_line) > 110:
        one_line = "\n".join(inner + f + ";" for f in fields)
    return (
        "{\n"
        f"{inner}tress_instance_def instance_def = tress_default_instance_def();\n"
        f"{one_line}\n"
        f"{inner}tress_scene_create_instance({scene}, &instance_def, {out});\n"
        f"{indent}}}"
    )


def rewrite(text, path):
    """Returns (new text, [line numbers left alone])."""
    left = []
    pos = 0
    while True:
        m = CALL.search(text, pos)
        if not m:
            break
        open_at = m.end() - 1
        close = find_close(text, open_at)
        line = text.count("\n", 0, m.start()) + 1
        if close < 0:
            left.append(line)
            pos = m.end()
            continue
        args = split_args(text[open_at + 1 : close])
        after = re.match(r"\s*;", text[close + 1 :])
        # the statement start: back to the last ; { } ) : or else before the call
        window_start = max(0, m.start() - 400)
        before = BEFORE.search(text[window_start : m.start()])
        prototype = len(args) == 4 and re.search(r"\btress_scene\s*\*", args[0])
        if prototype or len(args) != 4 or not after or not before:
            if not prototype:
                left.append(line)
            pos = m.end()
            continue
        lead_at = window_start + before.start()
        if before.group("lead").startswith(")") and not opens_body(text, lead_at):
            left.append(line)
            pos = m.end()
            continue
        stmt_start = lead_at + len(before.group("lead"))
        stmt_end = close + 1 + after.end()
        indent = line_indent(text, stmt_start)
        scene, kind, name, parent = args
        lead_text = before.group("lead")
        # a brace-less body: the block is still that one statement; its brace goes up to the head
        body = lead_text.strip() in (")", "else")
        if body and "\n" in lead_text:
            stmt_start = lead_at + len(lead_text.rstrip())
            indent = line_indent(text, lead_at)
            text = text[:stmt_start] + " " + text[stmt_start:]
            stmt_start += 1
            stmt_end += 1
        if before.group("ret"):
            new = (f"tress_id created;\n{indent}" + block(indent, scene, kind, name, parent, "&created")
                   + f"\n{indent}return created;")
            if body:  # `if (x) return CALL;` needs braces around the three statements
                new = "{\n" + indent + "  " + new.replace("\n", "\n  ") + "\n" + indent + "}"
        elif before.group("lhs"):
            lhs = before.group("lhs").strip()
            if before.group("decl"):
                if body:
                    left.append(line)
                    pos = m.end()
                    continue
                new = f"tress_id {lhs};\n{indent}" + block(indent, scene, kind, name, parent, "&" + lhs)
            else:
                new = block(indent, scene, kind, name, parent, "&" + lhs)
        else:
            new = block(indent, scene, kind, name, parent, "NULL")
        text = text[:stmt_start] + new + text[stmt_end:]
        pos = stmt_start + len(new)
    return text, left


def files(argv):
    if argv:
        return [pathlib.Path(a) for a in argv]
    found = []
    for p in ROOT.rglob("*"):
        rel = p.relative_to(ROOT)
        if set(rel.parts) & SKIP_DIRS or any(part.startswith("build") for part in rel.parts):
            continue
        if p.suffix in (".c", ".h", ".cpp", ".md") and p.is_file() and p.name != pathlib.Path(__file__).name:
            found.append(p)
    return sorted(found)


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    changed, left_total = 0, []
    for p in files(args):
        text = p.read_text()
        if OLD not in text:
            continue
        new, left = rewrite(text, p)
        left_total += [f"{p}:{n}" for n in left]
        if new != text:
            changed += 1
            if not check:
                p.write_text(new)
    for where in left_total:
        print(f"{where}: {OLD} in a form this script does not rewrite; rewrite it by hand", file=sys.stderr)
    verb = "would change" if check else "changed"
    print(f"rewrite_instance_create: {verb} {changed} files, {len(left_total)} calls left")
    return 1 if left_total or (check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
