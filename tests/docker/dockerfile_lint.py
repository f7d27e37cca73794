#!/usr/bin/env python3
"""dockerfile_lint.py SOURCE_DIR BUILD_DIR - checks docker/Dockerfile and docker/compose.yaml
against the tree they are built from, without a container engine:

  1. every file or directory a COPY takes from the build context exists and is not excluded by
     .dockerignore; every directory the top-level CMakeLists.txt adds (and the Dockerfile's cmake
     line does not switch off) is copied into the build stage;
  2. every binary the image runs (ENTRYPOINT, HEALTHCHECK, compose entrypoints and healthchecks)
     is installed by `cmake --install` into the bin/ the image's PATH names, and every TRESS_*
     variable the files set is a setting `tress-server --help` knows;
  3. every image path a compose command names (manifests, asset dirs) maps through a COPY to a
     file that exists, and every tress-bot there is given the image's asset store (--assets),
     without which it cannot check the server's rigs against its own meshes;
  4. the install tree alone (a temporary prefix, cwd outside the source and build trees) starts
     the server with the sample assets, answers /healthz, passes `tress-server --health-check`
     (also with ephemeral ports, through the port file), lets a tress-bot spawn and bind, drains
     on SIGTERM with exit 0, and fails the health check once stopped.
Exit 0 when all hold, 1 with every problem listed otherwise."""
import fnmatch
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC, BUILD = (os.path.abspath(p) for p in sys.argv[1:3])
DOCKERFILE = os.path.join(SRC, "docker", "Dockerfile")
COMPOSE = os.path.join(SRC, "docker", "compose.yaml")
problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL: " + msg)


def instructions(path):
    """(KEYWORD, rest) per Dockerfile instruction, continuation lines joined, comments dropped."""
    out, pending = [], ""
    for line in open(path):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        full = pending + stripped
        pending = ""
        keyword, _, rest = full.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    return out


def exec_form(rest):
    """The argv of an exec-form (JSON array) or shell-form instruction argument."""
    rest = rest.strip()
    if rest.startswith("["):
        return json.loads(rest)
    return shlex.split(rest)


def dockerignored(rel, patterns):
    parts = rel.strip("/").split("/")
    for pattern in patterns:
        pattern = pattern.strip().rstrip("/")
        if not pattern or pattern.startswith("#"):
            continue
        for i in range(1, len(parts) + 1):
            if fnmatch.fnmatch("/".join(parts[:i]), pattern.lstrip("/")):
                return True
    return False


# ---- 1. COPY sources and the build stage's directories -------------------------------------------
df = instructions(DOCKERFILE)
ignore = open(os.path.join(SRC, ".dockerignore")).read().splitlines() if os.path.exists(
    os.path.join(SRC, ".dockerignore")) else []
copies = []  # (source relative to the context, destination) for COPY from the context
stage = -1
build_stage_copies = set()
for keyword, rest in df:
    if keyword == "FROM":
        stage += 1
    if keyword not in ("COPY", "ADD"):
        continue
    args = exec_form(rest)
    if any(a.startswith("--from") for a in args):
        continue
    args = [a for a in args if not a.startswith("--")]
    for source in args[:-1]:
        rel = os.path.normpath(source).lstrip("/")
        copies.append((rel, args[-1]))
        if stage == 0:
            build_stage_copies.add(rel)
        if not os.path.exists(os.path.join(SRC, rel)):
            problem(f"Dockerfile: {keyword} {source}: no such file or directory in the build context")
        elif dockerignored(rel, ignore):
            problem(f"Dockerfile: {keyword} {source}: excluded by .dockerignore")

cmake_line = " ".join(rest for k, rest in df if k == "RUN" and "cmake -S" in rest)
switched_off = set(re.findall(r"-D(\w+)=OFF", cmake_line))
guard = []
for line in open(os.path.join(SRC, "CMakeLists.txt")):
    line = line.split("#")[0].strip()
    m = re.match(r"if\s*\(\s*(\w+)\s*\)", line)
    if m:
        guard.append(m.group(1))
    elif re.match(r"endif\s*\(", line) and guard:
        guard.pop()
    m = re.match(r"add_subdirectory\s*\(\s*([\w./-]+)", line)
    if m and not (set(guard) & switched_off) and m.group(1) not in build_stage_copies:
        problem(f"Dockerfile: the build stage does not COPY {m.group(1)}/, which CMakeLists.txt adds")

install_prefix = re.search(r"-DCMAKE_INSTALL_PREFIX=(\S+)", cmake_line)
if not install_prefix:
    problem("Dockerfile: the build stage's cmake line sets no CMAKE_INSTALL_PREFIX")
image_bin = (install_prefix.group(1) if install_prefix else "/usr/local") + "/bin"
env_path = " ".join(rest for k, rest in df if k == "ENV")
if image_bin not in env_path and image_bin not in ("/usr/local/bin", "/usr/bin"):
    problem(f"Dockerfile: ENV PATH does not include {image_bin}, where the binaries are installed")

# ---- the compose file, read line by line (no YAML module on a fresh Debian) -----------------------
services = {}  # name -> {"entrypoint": [...], "command": [...], "healthcheck": [...], "environment": [...]}
service = None
key = None
buffer = ""
for raw in open(COMPOSE):
    line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
    if not line.strip():
        continue
    indent = len(line) - len(line.lstrip())
    if indent == 0:
        section = line.strip().rstrip(":")
        service = None
        continue
    if section == "services" and indent == 2 and line.strip().endswith(":"):
        service = services.setdefault(line.strip()[:-1], {"environment": []})
        key = None
        continue
    if service is None:
        continue
    text = line.strip()
    if buffer:  # a flow sequence spread over several lines
        buffer += " " + text
        if buffer.count("[") == buffer.count("]"):
            service[key] = json.loads(buffer)
            buffer = ""
        continue
    m = re.match(r"(entrypoint|command|test):\s*(.*)$", text)
    if m:
        key = m.group(1) if m.group(1) != "test" else "healthcheck"
        value = m.group(2)
        if value.startswith("[") and value.count("[") != value.count("]"):
            buffer = value
        elif value.startswith("["):
            service[key] = json.loads(value)
        else:
            service[key] = shlex.split(value)
        continue
    if text.startswith("environment:"):
        key = "environment"
        continue
    m = re.match(r"-?\s*(TRESS_\w+)\s*[:=]", text)
    if m and key == "environment":
        service["environment"].append(m.group(1))

# ---- 2. binaries and settings ---------------------------------------------------------------------
runs = []  # (where, binary)
for keyword, rest in df:
    if keyword == "ENTRYPOINT":
        runs.append(("Dockerfile ENTRYPOINT", exec_form(rest)[0]))
    if keyword == "HEALTHCHECK":
        cmd = re.split(r"\bCMD\b", rest, maxsplit=1)
        if len(cmd) == 2:
            runs.append(("Dockerfile HEALTHCHECK", exec_form(cmd[1])[0]))
for name, s in services.items():
    if s.get("entrypoint"):
        runs.append((f"compose {name} entrypoint", s["entrypoint"][0]))
    test = s.get("healthcheck")
    if test:
        argv = test[1:] if test[0] == "CMD" else shlex.split(test[1]) if test[0] == "CMD-SHELL" else test
        runs.append((f"compose {name} healthcheck", argv[0]))
if not runs:
    problem("Dockerfile: no ENTRYPOINT or HEALTHCHECK found to check")

work = tempfile.mkdtemp(prefix="tress-docker-lint-")
prefix = os.path.join(work, "prefix")
install = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], capture_output=True, text=True)
if install.returncode != 0:
    problem("cmake --install failed: " + install.stderr.strip())
bin_dir = os.path.join(prefix, "bin")
for where, binary in runs:
    path = os.path.join(bin_dir, os.path.basename(binary))
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        problem(f"{where} runs {binary}, which cmake --install does not put in bin/")
    elif "/" in binary and os.path.dirname(binary) != image_bin:
        problem(f"{where} runs {binary}, but the binaries are installed in {image_bin}")

server = os.path.join(bin_dir, "tress-server")
bot = os.path.join(bin_dir, "tress-bot")
if os.path.exists(server):
    help_text = subprocess.run([server, "--help"], capture_output=True, text=True).stdout
    known = set(re.findall(r"\bTRESS_\w+", help_text))
    dockerfile_env = set(re.findall(r"\b(TRESS_\w+)=", env_path))
    for var in sorted(dockerfile_env - known):
        problem(f"Dockerfile ENV {var} is not a tress-server setting (tress-server --help)")
    for name, s in services.items():
        for var in s["environment"]:
            if var not in known:
                problem(f"compose {name} environment {var} is not a tress-server setting")
for path in (server, bot):
    if os.path.exists(path):
        ldd = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        for lib in re.findall(r"=> (\S+)", ldd):
            if lib.startswith(BUILD) or lib.startswith(SRC):
                problem(f"{os.path.basename(path)} loads {lib} from the build or source tree")

# ---- 3. paths the compose commands name inside the image ------------------------------------------
def image_to_context(path):
    for source, dest in copies:
        dest = dest.rstrip("/")
        if path == dest or path.startswith(dest + "/"):
            return os.path.join(SRC, source, path[len(dest):].lstrip("/"))
    return None


for name, s in services.items():
    argv = (s.get("entrypoint") or []) + (s.get("command") or [])
    for arg in argv:
        if arg.startswith("/"):
            local = image_to_context(arg)
            if local is None or not os.path.exists(local):
                problem(f"compose {name}: {arg} is not in the image (no COPY puts it there)")
    if argv and os.path.basename(argv[0]) == "tress-bot" and "--assets" not in argv:
        problem(f"compose {name}: tress-bot without --assets cannot verify rigs against the image's meshes")

# ---- 4. the install tree alone ----------------------------------------------------------------------
def health_check(env):
    return subprocess.run([server, "--health-check"], env=env, capture_output=True, timeout=10).returncode


if os.path.exists(server) and os.path.exists(bot):
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    port_file = os.path.join(run_dir, "ports")
    env = dict(os.environ, TRESS_ASSETS_DIR=os.path.join(SRC, "assets"), TRESS_CACHE_DIR=os.path.join(run_dir, "cache"),
               TRESS_UDP_PORT="0", TRESS_HTTP_PORT="0", TRESS_PORT_FILE=port_file)
    log = open(os.path.join(run_dir, "server.log"), "w")
    proc = subprocess.Popen([server], cwd=run_dir, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not (os.path.exists(port_file) and os.path.getsize(port_file)):
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        ports = dict(kv.split("=") for kv in open(port_file).read().split()) if os.path.exists(port_file) else {}
        if "http" not in ports:
            problem("the installed tress-server did not start: " + open(log.name).read()[-2000:])
        else:
            with urllib.request.urlopen(f"http://127.0.0.1:{ports['http']}/healthz", timeout=5) as r:
                if r.status != 200:
                    problem(f"installed server: /healthz answered {r.status}")
            if health_check(env) != 0:
                problem("installed tress-server --health-check (ephemeral ports, through the port file) failed")
            if health_check(dict(env, TRESS_HTTP_PORT=ports["http"], TRESS_PORT_FILE="")) != 0:
                problem("installed tress-server --health-check (TRESS_HTTP_PORT) failed")
            spawn = subprocess.run([bot, "--server", f"127.0.0.1:{ports['udp']}", "--room", "lint", "--manifest",
                                    os.path.join(SRC, "assets/characters/ava.json"), "--assets",
                                    os.path.join(SRC, "assets"), "--duration", "1.5", "--json"],
                                   cwd=run_dir, capture_output=True, text=True, timeout=60)
            report = json.loads(spawn.stdout) if spawn.stdout.strip().startswith("{") else {}
            b = (report.get("bots") or [{}])[0]
            if spawn.returncode != 0 or b.get("rigs_applied", 0) < 1 or b.get("rigs_fallback", 1) != 0:
                problem(f"installed tress-bot did not spawn and bind against the installed server "
                        f"(exit {spawn.returncode}): {spawn.stdout[-1500:]} {spawn.stderr[-1500:]}")
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        if rc != 0:
            problem(f"installed tress-server exited {rc} on SIGTERM")
        if "http" in ports and health_check(env) == 0:
            problem("tress-server --health-check passed with the server stopped")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()

subprocess.run(["rm", "-rf", work])
if problems:
    print(f"{len(problems)} problem(s)")
    sys.exit(1)
print("dockerfile lint: ok (COPY sources, build-stage dirs, installed binaries, TRESS_* names, "
      "compose image paths, install tree serves /healthz and a bot)")
