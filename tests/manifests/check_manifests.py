#!/usr/bin/env python3
"""The manifest schema and the manifest parser agree: every sample character validates against
protocol/manifest.schema.json and loads with `tress-bot --check`; every file under
tests/manifests/bad/ fails both. Usage: check_manifests.py TRESS_BOT [SOURCE_DIR]"""
import glob
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed: skipped")
    sys.exit(77)

bot = sys.argv[1]
src = sys.argv[2] if len(sys.argv) > 2 else "."
schema = json.load(open(os.path.join(src, "protocol", "manifest.schema.json")))
validator = jsonschema.Draft202012Validator(schema)
jsonschema.Draft202012Validator.check_schema(schema)

good = sorted(glob.glob(os.path.join(src, "assets", "characters", "*.json")))
bad = sorted(glob.glob(os.path.join(src, "tests", "manifests", "bad", "*.json")))
failures = 0


def schema_errors(path):
    try:
        doc = json.load(open(path))
    except json.JSONDecodeError as e:
        return [f"not JSON: {e}"]
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def parser_accepts(path):
    r = subprocess.run([bot, "--check", path], capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


for path in good:
    errs = schema_errors(path)
    ok, out = parser_accepts(path)
    if errs or not ok:
        failures += 1
        print(f"FAIL good {path}: schema {errs[:2]} parser: {out}")
    else:
        print(f"ok   good {os.path.basename(path)}: {out.split(': ok: ')[-1]}")
for path in bad:
    errs = schema_errors(path)
    ok, out = parser_accepts(path)
    if not errs or ok:
        failures += 1
        print(f"FAIL bad  {path}: schema errors {len(errs)}, parser {'accepted' if ok else 'refused'}: {out}")
    else:
        print(f"ok   bad  {os.path.basename(path)}: {out.split(': ', 1)[-1]}")
print(f"{len(good) + len(bad) - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
