#!/usr/bin/env python3
"""A fake Agones SDK sidecar: the REST API of Agones v1.60.0 as its swagger files document it
(deploy/schemas/sdk.swagger.json, beta.swagger.json), for tests without Kubernetes.

Every request is checked against the swagger: the path and method must be a documented operation,
a body parameter must be JSON that validates against its schema (int64 fields as strings, as
the swagger types them; documented fields only, which is stricter than the gateway, and an empty
message is exactly {}). A POST or PUT or PATCH with an empty body gets 400, as grpc-gateway answers
for body:"*". Requests that break the swagger are answered 400/404/405 and listed as violations.

State follows Agones' SDK server: Ready/Shutdown/Allocated/Reserved states, labels under
agones.dev/sdk-, Counters and Lists with Agones' errors (NOT_FOUND 404, ALREADY_EXISTS 409,
OUT_OF_RANGE 400), and /watch/gameserver streams {"result": GameServer} lines (chunked), the current
GameServer first and then one line per change.

Test-only endpoints (not Agones'): GET /__fake/log -> {"requests": [...], "violations": [...],
"gameserver": {...}, "counters": {...}, "lists": {...}} with request times on CLOCK_MONOTONIC;
POST /__fake/health {"period_seconds": N, "disabled": bool} changes spec.health (a watch event);
POST /__fake/status {"address": "...", "ports": [{"name": ..., "port": N}]} sets status.address and
status.ports as Agones does once the pod is placed (a watch event; they start empty, as while
Scheduled/Creating);
POST /__fake/reset {"period_seconds": N, "refuse_labels": bool} starts over with fresh state.
"""
import argparse
import copy
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCHEMAS = os.path.join(HERE, "..", "..", "deploy", "schemas")
# grpc codes, as googlerpcStatus carries them, and the HTTP status grpc-gateway maps them to.
INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, OUT_OF_RANGE = 3, 5, 6, 11
HTTP_OF_CODE = {INVALID_ARGUMENT: 400, NOT_FOUND: 404, ALREADY_EXISTS: 409, OUT_OF_RANGE: 400}
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")


def deref(node, definitions):
    """The schema with every #/definitions/ reference inlined (the swagger has no cycles)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return deref(definitions[node["$ref"].split("/")[-1]], definitions)
        return {k: deref(v, definitions) for k, v in node.items()}
    if isinstance(node, list):
        return [deref(v, definitions) for v in node]
    return node


def strict(schema):
    """Documented fields only; an object without properties (sdkEmpty) has none."""
    if isinstance(schema, dict):
        out = {k: strict(v) for k, v in schema.items()}
        if out.get("type") == "object":
            if "properties" in out:
                out.setdefault("additionalProperties", False)
            elif "additionalProperties" not in out:
                out["maxProperties"] = 0
        return out
    if isinstance(schema, list):
        return [strict(v) for v in schema]
    return schema


FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("int64")
def _int64(value):
    return not isinstance(value, str) or re.fullmatch(r"-?[0-9]+", value) is not None


class Operation:
    def __init__(self, method, template, op, definitions):
        self.method = method.upper()
        self.template = template
        self.op_id = op.get("operationId", template)
        pattern = re.sub(r"\\\{[^}]+\\\}", "([^/:]+)", re.escape(template))
        self.regex = re.compile("^" + pattern + "$")
        self.body_schema = None
        for p in op.get("parameters", []):
            if p.get("in") == "body":
                self.body_schema = strict(deref(p["schema"], definitions))


def load_operations(schema_dir):
    ops = []
    for name in ("sdk.swagger.json", "beta.swagger.json"):
        with open(os.path.join(schema_dir, name)) as f:
            doc = json.load(f)
        for template, methods in doc["paths"].items():
            for method, op in methods.items():
                ops.append(Operation(method, template, op, doc.get("definitions", {})))
    return ops


class Fake:
    def __init__(self, ops, period, counters, lists, refuse_labels=False):
        self.ops = ops
        self.refuse_labels = refuse_labels
        self.lock = threading.Condition()
        self.requests, self.violations = [], []
        self.version = 0
        self.gameserver = {
            "object_meta": {"name": "tress-fake", "namespace": "default", "uid": "fake-uid",
                            "resource_version": "1", "generation": "1", "creation_timestamp": "0",
                            "labels": {}, "annotations": {}},
            "spec": {"health": {"disabled": False, "period_seconds": period, "failure_threshold": 3,
                                "initial_delay_seconds": 5}},
            "status": {"state": "Scheduled", "address": "", "ports": [],
                       "counters": {}, "lists": {}},
        }
        self.counters = {n: {"count": 0, "capacity": c} for n, c in counters}
        self.lists = {n: {"capacity": c, "values": []} for n, c in lists}
        self._sync_status()

    def _sync_status(self):
        st = self.gameserver["status"]
        st["counters"] = {n: {"count": str(c["count"]), "capacity": str(c["capacity"])} for n, c in self.counters.items()}
        st["lists"] = {n: {"capacity": str(l["capacity"]), "values": list(l["values"])} for n, l in self.lists.items()}

    def changed(self):
        self._sync_status()
        self.version += 1
        self.gameserver["object_meta"]["resource_version"] = str(self.version + 1)
        self.lock.notify_all()

    def route(self, method, path):
        """(operation, path params) or (None, http status) for an undocumented request."""
        path_matched = False
        for op in self.ops:
            m = op.regex.match(path)
            if not m:
                continue
            path_matched = True
            if op.method == method:
                return op, m.groups()
        return None, 405 if path_matched else 404

    # ---- operations: (http status, response object) ----------------------------------------

    def handle(self, op, params, body):
        gs = self.gameserver
        oid = op.op_id
        if oid in ("Ready", "Allocate", "Shutdown"):
            gs["status"]["state"] = {"Ready": "Ready", "Allocate": "Allocated", "Shutdown": "Shutdown"}[oid]
            self.changed()
            return 200, {}
        if oid == "Reserve":
            gs["status"]["state"] = "Reserved"
            self.changed()
            return 200, {}
        if oid == "Health":
            return 200, {}
        if oid in ("SetLabel", "SetAnnotation"):
            key, value = body.get("key", ""), body.get("value", "")
            if oid == "SetLabel" and self.refuse_labels:
                return error(INVALID_ARGUMENT, "labels refused (--refuse-labels)")
            if oid == "SetLabel" and (not LABEL_NAME.match(key) or len(key) > 63 - len("agones.dev/sdk-")
                                      or not LABEL_VALUE.match(value) or len(value) > 63):
                return error(INVALID_ARGUMENT, "invalid label %r=%r" % (key, value))
            where = "labels" if oid == "SetLabel" else "annotations"
            gs["object_meta"][where]["agones.dev/sdk-" + key] = value
            self.changed()
            return 200, {}
        if oid == "GetGameServer":
            return 200, gs
        if oid in ("GetCounter", "UpdateCounter"):
            name = params[0]
            c = self.counters.get(name)
            if c is None:
                return error(NOT_FOUND, "counter not found: " + name)
            if oid == "UpdateCounter":
                count = int(body["count"]) if "count" in body else c["count"]
                capacity = int(body["capacity"]) if "capacity" in body else c["capacity"]
                count += int(body.get("countDiff", "0"))
                if capacity < 0 or count < 0 or count > capacity:
                    return error(OUT_OF_RANGE, "count %d out of range [0,%d]" % (count, capacity))
                c["count"], c["capacity"] = count, capacity
                self.changed()
            return 200, {"name": name, "count": str(c["count"]), "capacity": str(c["capacity"])}
        if oid in ("GetList", "UpdateList", "AddListValue", "RemoveListValue"):
            name = params[0]
            l = self.lists.get(name)
            if l is None:
                return error(NOT_FOUND, "list not found: " + name)
            if oid == "UpdateList":
                if "capacity" in body:
                    l["capacity"] = int(body["capacity"])
                if "values" in body:
                    l["values"] = list(body["values"])
                self.changed()
            elif oid == "AddListValue":
                if body["value"] in l["values"]:
                    return error(ALREADY_EXISTS, "already in list: " + body["value"])
                if len(l["values"]) >= l["capacity"]:
                    return error(OUT_OF_RANGE, "list at capacity %d" % l["capacity"])
                l["values"].append(body["value"])
                self.changed()
            elif oid == "RemoveListValue":
                if body["value"] not in l["values"]:
                    return error(NOT_FOUND, "not in list: " + body["value"])
                l["values"].remove(body["value"])
                self.changed()
            return 200, {"name": name, "capacity": str(l["capacity"]), "values": list(l["values"])}
        return error(INVALID_ARGUMENT, "operation %s is not faked" % oid)

    def snapshot(self):
        return {"requests": self.requests, "violations": self.violations, "gameserver": self.gameserver,
                "counters": self.counters, "lists": self.lists}


def error(code, message):
    return HTTP_OF_CODE[code], {"code": code, "message": message, "details": []}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-agones-sdk/1.60.0"

    def log_message(self, fmt, *args):  # the request log is the JSON one
        pass

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        fake = self.server.fake
        raw = self.read_body()
        path = self.path.split("?", 1)[0]
        if path.startswith("/__fake/"):
            return self.test_endpoint(fake, method, path, raw)
        entry = {"t": time.monotonic(), "method": method, "path": path, "body": raw.decode("utf-8", "replace")}
        with fake.lock:
            fake.requests.append(entry)
            op, params = fake.route(method, path)
            if op is None:
                entry["status"] = params
                fake.violations.append("%s %s: not in the swagger (%d)" % (method, path, params))
                return self.send_json(params, {"code": NOT_FOUND if params == 404 else INVALID_ARGUMENT,
                                               "message": "Not Found" if params == 404 else "Method Not Allowed"})
            body = None
            if op.body_schema is not None:
                problem = None
                if not raw:
                    problem = "empty body"
                else:
                    try:
                        body = json.loads(raw)
                        jsonschema.Draft4Validator(op.body_schema, format_checker=FORMATS).validate(body)
                    except (ValueError, jsonschema.ValidationError) as e:
                        problem = str(e).splitlines()[0]
                if problem:
                    entry["status"] = 400
                    fake.violations.append("%s %s: %s" % (method, path, problem))
                    return self.send_json(400, {"code": INVALID_ARGUMENT, "message": problem, "details": []})
            elif raw:
                entry["status"] = 400
                fake.violations.append("%s %s: a body where the swagger has none" % (method, path))
                return self.send_json(400, {"code": INVALID_ARGUMENT, "message": "unexpected body"})
            if op.op_id == "WatchGameServer":
                entry["status"] = 200
            else:
                status, reply = fake.handle(op, params, body or {})
                entry["status"] = status
                reply = copy.deepcopy(reply)
        if op.op_id == "WatchGameServer":
            return self.stream_watch(fake)
        self.send_json(status, reply)

    def stream_watch(self, fake):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        seen = -1
        try:
            while not self.server.stopping and not getattr(fake, "stale", False):
                with fake.lock:
                    if seen == fake.version:
                        fake.lock.wait(0.2)
                        continue
                    seen = fake.version
                    line = (json.dumps({"result": fake.gameserver}) + "\n").encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def test_endpoint(self, fake, method, path, raw):
        with fake.lock:
            if method == "GET" and path == "/__fake/log":
                snap = json.loads(json.dumps(fake.snapshot()))
                return self.send_json(200, snap)
            if method == "POST" and path == "/__fake/reset":
                # A fresh sidecar for the next test, without a new process (python starts slowly
                # on a loaded machine): {"period_seconds": N, "refuse_labels": bool}.
                opts = json.loads(raw or b"{}")
                self.server.fake = Fake(fake.ops, opts.get("period_seconds", 5),
                                        [(n, c["capacity"]) for n, c in fake.counters.items()],
                                        [(n, l["capacity"]) for n, l in fake.lists.items()],
                                        opts.get("refuse_labels", False))
                fake.changed()  # an old watch stream wakes up and ends
                fake.stale = True
                return self.send_json(200, {})
            if method == "POST" and path == "/__fake/status":
                opts = json.loads(raw or b"{}")
                st = fake.gameserver["status"]
                st["address"] = opts.get("address", st["address"])
                st["ports"] = [{"name": p["name"], "port": int(p["port"])} for p in opts.get("ports", st["ports"])]
                fake.changed()
                return self.send_json(200, {})
            if method == "POST" and path == "/__fake/health":
                fake.gameserver["spec"]["health"].update(json.loads(raw or b"{}"))
                fake.changed()
                return self.send_json(200, {})
        self.send_json(404, {"message": "no such test endpoint"})


def parse_named_caps(items):
    out = []
    for item in items or []:
        name, _, cap = item.partition(":")
        out.append((name, int(cap or "1000")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", help="written with the bound port once listening")
    ap.add_argument("--schemas", default=DEFAULT_SCHEMAS)
    ap.add_argument("--health-period", type=int, default=5, help="spec.health.period_seconds")
    ap.add_argument("--counter", action="append", help="NAME:CAPACITY, a Counter the GameServer declares")
    ap.add_argument("--list", action="append", help="NAME:CAPACITY, a List the GameServer declares")
    ap.add_argument("--refuse-labels", action="store_true", help="answer every SetLabel with INVALID_ARGUMENT")
    args = ap.parse_args()
    fake = Fake(load_operations(args.schemas), args.health_period, parse_named_caps(args.counter),
                parse_named_caps(args.list), args.refuse_labels)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.fake = fake
    server.stopping = False
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % server.server_address[1])
        os.replace(tmp, args.port_file)
    try:
        server.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping = True
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
