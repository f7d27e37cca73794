// Validates the manifests in deploy/ and shows that broken copies of them fail.
//   node tests/deploy/validate.mjs [REPO_ROOT]
// - Agones kinds (Fleet, FleetAutoscaler) against the vendored Agones v1.60.0 CRD schemas
//   (deploy/schemas/crds-v1.60.0.json) with ajv, after the three adaptations the schemas need
//   for a JSON Schema validator, made in memory (deploy/schemas/README.md): OpenAPI 3.0 boolean
//   exclusiveMinimum/Maximum to the numeric form, nulls pruned from the manifest (as the API
//   server does), and additionalProperties: false wherever a schema lists properties and does
//   not preserve unknown fields (strict unknown-field checking, like kubectl --validate=strict).
// - The Fleet's pod template, and the core kinds (Deployment, Service), with kubernetes-models
//   (its validators are compiled into the package: nothing is fetched at run time).
// - The allocator request example against the vendored allocation.swagger.json, and the
//   GameServerAllocation example (no CRD: the allocator serves that kind) must say the same as it.
// - With a tress-server binary as the second argument: the Fleet container's TRESS_* environment
//   is a configuration that server accepts (tress-server --print-config under exactly that env).
// Exit 0 when every manifest validates and every broken copy is rejected, 1 otherwise, 77 when
// the npm packages are not installed (scripts/setup installs them).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] || path.join(here, "..", ".."));
const serverBin = process.argv[3];

let Ajv, yaml, models;
try {
  Ajv = (await import("ajv")).default;
  yaml = (await import("js-yaml")).default;
  models = {
    "apps/v1/Deployment": (await import("kubernetes-models/apps/v1/Deployment")).Deployment,
    "v1/Service": (await import("kubernetes-models/v1/Service")).Service,
    PodTemplateSpec: (await import("kubernetes-models/v1/PodTemplateSpec")).PodTemplateSpec,
    ObjectMeta: (await import("@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta")).ObjectMeta,
  };
} catch (e) {
  console.log(`validate: skipped: the npm packages are not installed (${e.code || e.message}); ` +
              `run scripts/setup or: npm ci --prefix tests/deploy`);
  process.exit(77);
}

// ---- the three adaptations (in memory) ----------------------------------------------------

function adaptSchema(node) {
  if (Array.isArray(node)) return node.map(adaptSchema);
  if (!node || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) out[k] = adaptSchema(v);
  for (const [flag, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]]) {
    if (typeof out[flag] !== "boolean") continue;
    if (out[flag] && bound in out) {
      out[flag] = out[bound];
      delete out[bound];
    } else {
      delete out[flag];
    }
  }
  if (out.properties && typeof out.properties === "object" && !out["x-kubernetes-preserve-unknown-fields"] &&
      out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

function pruneNulls(v) {
  if (Array.isArray(v)) return v.filter((x) => x !== null).map(pruneNulls);
  if (v && typeof v === "object") {
    const out = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
    return out;
  }
  return v;
}

// ---- validators ----------------------------------------------------------------------------

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const crds = JSON.parse(fs.readFileSync(path.join(root, "deploy/schemas/crds-v1.60.0.json"), "utf8"));
const crdValidators = new Map();
function crdValidator(key) {
  if (!crdValidators.has(key)) {
    if (!crds[key]) return null;
    const schema = adaptSchema(crds[key]);
    // A CRD's schema covers spec and status; apiVersion, kind and metadata are the API server's
    // (metadata is checked as an ObjectMeta below).
    schema.properties = { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object" },
                          ...schema.properties };
    schema.required = [...new Set([...(schema.required || []), "apiVersion", "kind", "metadata"])];
    crdValidators.set(key, ajv.compile(schema));
  }
  return crdValidators.get(key);
}
const allocationSwagger = adaptSchema(JSON.parse(
  fs.readFileSync(path.join(root, "deploy/schemas/allocation.swagger.json"), "utf8")));
ajv.addSchema({ definitions: allocationSwagger.definitions }, "allocation.swagger.json");
const allocationRequest = ajv.getSchema("allocation.swagger.json#/definitions/allocationAllocationRequest");

function ajvError(validate) {
  const e = validate.errors[0];
  return `${e.instancePath || "/"} ${e.message}${e.params && e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`;
}

function modelError(Model, obj) {
  try {
    new Model(obj).validate();
    return null;
  } catch (e) {
    return e.message.split("\n")[0];
  }
}

// The problems of one Kubernetes object ([] when valid) and what checked it.
function checkObject(obj) {
  const doc = pruneNulls(obj);
  const group = doc.apiVersion && doc.apiVersion.includes("/") ? doc.apiVersion : `core/${doc.apiVersion}`;
  const key = `${group}/${doc.kind}`;
  const problems = [];
  const checked = [];
  const crd = crdValidator(key);
  if (crd) {
    checked.push(`CRD ${key}`);
    if (!crd(doc)) problems.push(`CRD ${key}: ${ajvError(crd)}`);
    checked.push("ObjectMeta");
    const metaErr = modelError(models.ObjectMeta, doc.metadata || {});
    if (metaErr) problems.push(`metadata: ${metaErr}`);
    // The CRD leaves a Fleet's (or GameServer's) pod template to Kubernetes: check it as one.
    const pod = doc.kind === "Fleet" ? doc.spec?.template?.spec?.template : doc.kind === "GameServer" ? doc.spec?.template : null;
    if (pod) {
      checked.push("PodTemplateSpec");
      const err = modelError(models.PodTemplateSpec, pod);
      if (err) problems.push(`pod template: ${err}`);
    }
    if (doc.kind === "Fleet" && serverBin) {
      checked.push("tress-server --print-config");
      const err = serverConfigError(pod?.spec?.containers?.find((c) => c.name === "tress-server"));
      if (err) problems.push(err);
    }
    return { checked, problems };
  }
  const Model = models[`${doc.apiVersion}/${doc.kind}`];
  if (Model) {
    checked.push(`kubernetes-models ${doc.apiVersion} ${doc.kind}`);
    const err = modelError(Model, doc);
    if (err) problems.push(err);
    return { checked, problems };
  }
  if (key === "allocation.agones.dev/v1/GameServerAllocation") return checkAllocation(doc);
  return { checked, problems: [`no schema checks ${key}`] };
}

// The server's own word on the container's TRESS_* environment (null when it accepts it).
function serverConfigError(container) {
  if (!container) return "no tress-server container";
  const env = { PATH: process.env.PATH };
  for (const e of container.env || []) if (e.name.startsWith("TRESS_")) env[e.name] = String(e.value);
  const run = spawnSync(serverBin, ["--print-config"], { env, encoding: "utf8" });
  return run.status === 0 ? null : `tress-server refuses the container's env: ${(run.stderr || "").trim()}`;
}

// GameServerAllocation <-> the allocator's request: the same selectors, priorities, scheduling
// and metadata (the request's enums are upper case for the state).
function checkAllocation(doc) {
  const problems = [];
  const spec = doc.spec || {};
  const known = new Set(["scheduling", "selectors", "priorities", "metadata", "counters", "lists"]);
  for (const k of Object.keys(spec)) if (!known.has(k)) problems.push(`spec.${k}: not a field this example may use`);
  const request = loadJson("deploy/allocation/allocation-request.json");
  const asRequest = {
    namespace: request.namespace,
    gameServerSelectors: (spec.selectors || []).map((s) => {
      const out = { ...s };
      if (s.gameServerState) out.gameServerState = s.gameServerState.toUpperCase();
      if (s.counters)
        out.counters = Object.fromEntries(Object.entries(s.counters).map(([name, c]) =>
          [name, Object.fromEntries(Object.entries(c).map(([k, v]) => [k, String(v)]))]));
      return out;
    }),
    scheduling: spec.scheduling,
    priorities: spec.priorities,
    metadata: spec.metadata,
  };
  if (!allocationRequest(asRequest)) problems.push(`as an allocator request: ${ajvError(allocationRequest)}`);
  if (JSON.stringify(canonical(asRequest)) !== JSON.stringify(canonical(request)))
    problems.push("differs from deploy/allocation/allocation-request.json");
  return { checked: ["allocation.swagger.json allocationAllocationRequest", "allocation-request.json twin"], problems };
}

function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => [k, canonical(v[k])]));
  return v;
}

function loadJson(rel) {
  return JSON.parse(fs.readFileSync(path.join(root, rel), "utf8"));
}

// ---- the shipped manifests ------------------------------------------------------------------

const manifests = ["deploy/fleet.yaml", "deploy/fleetautoscaler.yaml", "deploy/redis.yaml",
                   "deploy/allocation/gameserverallocation.yaml"];
const docs = {}; // "<Kind>/<name>" -> object
let passed = 0, failed = 0;
function report(ok, what) {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
}

for (const rel of manifests) {
  for (const obj of yaml.loadAll(fs.readFileSync(path.join(root, rel), "utf8"))) {
    if (!obj) continue;
    const name = obj.metadata?.name || obj.metadata?.generateName;
    docs[`${obj.kind}/${name}`] = obj;
    const { checked, problems } = checkObject(obj);
    report(problems.length === 0, `${rel}: ${obj.kind} ${name} [${checked.join(", ")}]${problems.length ? ": " + problems.join("; ") : ""}`);
  }
}
{
  const ok = allocationRequest(loadJson("deploy/allocation/allocation-request.json"));
  report(ok, `deploy/allocation/allocation-request.json: allocator request [allocation.swagger.json]${ok ? "" : ": " + ajvError(allocationRequest)}`);
}

// ---- broken copies: each must be rejected ---------------------------------------------------

const broken = [
  ["Fleet/tress", "scheduling: a value outside the enum", (d) => { d.spec.scheduling = "Tight"; }],
  ["Fleet/tress", "a port policy outside the enum", (d) => { d.spec.template.spec.ports[0].portPolicy = "Sometimes"; }],
  ["Fleet/tress", "counter capacity as a string", (d) => { d.spec.template.spec.counters.rooms.capacity = "32"; }],
  ["Fleet/tress", "a misspelt field (helth)", (d) => { d.spec.template.spec.helth = d.spec.template.spec.health; delete d.spec.template.spec.health; }],
  ["Fleet/tress", "replicas negative", (d) => { d.spec.replicas = -1; }],
  ["Fleet/tress", "metadata labels as a list", (d) => { d.metadata.labels = ["tress"]; }],
  ["Fleet/tress", "pod template: containerPort as a string", (d) => { d.spec.template.spec.template.spec.containers[0].ports[0].containerPort = "ops"; }],
  ["Fleet/tress", "pod template: a container without a name", (d) => { delete d.spec.template.spec.template.spec.containers[0].name; }],
  ...(serverBin ? [["Fleet/tress", "a TRESS_ setting the server refuses", (d) => {
    d.spec.template.spec.template.spec.containers[0].env.find((e) => e.name === "TRESS_UDP_PORT").value = "seventy";
  }]] : []),
  ["FleetAutoscaler/tress-rooms", "policy type outside the enum", (d) => { d.spec.policy.type = "Rooms"; }],
  ["FleetAutoscaler/tress-rooms", "maxCapacity 0 (minimum 1)", (d) => { d.spec.policy.counter.maxCapacity = 0; }],
  ["FleetAutoscaler/tress-rooms", "a counter policy without its key", (d) => { delete d.spec.policy.counter.key; }],
  ["FleetAutoscaler/tress-rooms", "sync interval of 0 s (exclusiveMinimum)", (d) => { d.spec.sync.fixedInterval.seconds = 0; }],
  ["FleetAutoscaler/tress-rooms", "no fleetName", (d) => { delete d.spec.fleetName; }],
  ["Deployment/tress-redis", "replicas as a word", (d) => { d.spec.replicas = "one"; }],
  ["Deployment/tress-redis", "no selector", (d) => { delete d.spec.selector; }],
  ["Service/tress-redis", "port as a name", (d) => { d.spec.ports[0].port = "redis"; }],
  ["Service/tress-redis", "a type outside the enum", (d) => { d.spec.type = "Everywhere"; }],
  ["GameServerAllocation/tress-room-", "a state outside the enum", (d) => { d.spec.selectors[1].gameServerState = "Sleeping"; }],
  ["GameServerAllocation/tress-room-", "a selector the request twin does not have", (d) => { d.spec.selectors.pop(); }],
  ["GameServerAllocation/tress-room-", "an unknown spec field", (d) => { d.spec.selecters = d.spec.selectors; }],
];
for (const [key, what, mutate] of broken) {
  const copy = structuredClone(docs[key]);
  if (!copy) {
    report(false, `broken ${key}: no such manifest`);
    continue;
  }
  mutate(copy);
  const { problems } = checkObject(copy);
  report(problems.length > 0, `broken ${key} (${what}) rejected${problems.length ? ": " + problems[0] : ": NOT rejected"}`);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
