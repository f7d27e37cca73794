#!/usr/bin/env python3
"""Renames public functions whose spelling broke docs/API.md (getters are get_, questions is_).

Whole-word replacement in every .c/.h/.cpp/.md file of the repository (build folders skipped).
Idempotent: a second run finds nothing. The lead re-runs it after merging branches that still
use an old name:

  scripts/dev/rename_api.py            # rewrite
  scripts/dev/rename_api.py --check    # exit 1 if an old name is still used
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

RENAMES = {
    "tress_client_parts": "tress_client_get_parts",
    "tress_client_attachments": "tress_client_get_attachments",
    "tress_client_attachment_points": "tress_client_get_attachment_points",
    "tress_wire_attachments_equal": "tress_wire_attachments_is_equal",
    "tress_wire_manifest_attachments": "tress_wire_manifest_get_attachments",
}
PATTERN = re.compile(r"\b(" + "|".join(map(re.escape, RENAMES)) + r")\b")


def files():
    for p in sorted(ROOT.rglob("*")):
        rel = p.relative_to(ROOT)
        if any(part.startswith("build") or part in (".git", "_deps") for part in rel.parts):
            continue
        if p.suffix in (".c", ".h", ".cpp", ".md") and p.is_file():
            yield p


def main():
    check = "--check" in sys.argv[1:]
    changed = 0
    for p in files():
        text = p.read_text()
        new = PATTERN.sub(lambda m: RENAMES[m.group(1)], text)
        if new != text:
            changed += 1
            print(f"{p.relative_to(ROOT)}: {len(PATTERN.findall(text))} renamed")
            if not check:
                p.write_text(new)
    print(f"rename_api: {'would change' if check else 'changed'} {changed} files")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
