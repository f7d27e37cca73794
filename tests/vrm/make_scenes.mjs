// make_scenes.mjs - writes the conformance scenes (.gltf with VRMC_springBone) into a folder:
// chains of several lengths and settings, sphere and capsule colliders, a center, a scaled
// node, and (the "extended" set) a plane and an inside sphere from
// VRMC_springBone_extended_collider. Each scene says in extras.conformance which node is
// driven and on what path, so reference.mjs and tress_trace read the same motion.
//
//   node make_scenes.mjs OUT_DIR
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

function scene() {
  return { asset: { version: '2.0' }, extensionsUsed: ['VRMC_springBone'], scenes: [{ nodes: [0] }], scene: 0, nodes: [] };
}

function node(doc, name, parent, fields = {}) {
  doc.nodes.push({ name, ...fields });
  const i = doc.nodes.length - 1;
  if (parent >= 0) (doc.nodes[parent].children ??= []).push(i);
  return i;
}

// A chain of `n` joints from `parent`, each link `step` metres long; returns the joint indices.
function chain(doc, prefix, parent, start, step, n) {
  const ids = [];
  let p = parent;
  for (let k = 0; k < n; k++) {
    p = node(doc, `${prefix}_${k}`, p, { translation: k === 0 ? start : step });
    ids.push(p);
  }
  return ids;
}

function springBone(doc) {
  doc.extensions ??= {};
  return (doc.extensions.VRMC_springBone ??= { specVersion: '1.0', colliders: [], colliderGroups: [], springs: [] });
}

// joints: node indices; settings: one object for all, or one per joint.
function spring(doc, name, joints, settings, extra = {}) {
  const per = Array.isArray(settings) ? settings : joints.map(() => settings);
  springBone(doc).springs.push({ name, joints: joints.map((n, k) => ({ node: n, ...per[k] })), ...extra });
}

function collider(doc, nodeIndex, shape, extension) {
  const c = { node: nodeIndex, shape };
  if (extension) {
    c.extensions = { VRMC_springBone_extended_collider: { specVersion: '1.0', shape: extension } };
    doc.extensionsUsed.push('VRMC_springBone_extended_collider');
  }
  springBone(doc).colliders.push(c);
  return springBone(doc).colliders.length - 1;
}

function group(doc, colliders) {
  springBone(doc).colliderGroups.push({ colliders });
  return springBone(doc).colliderGroups.length - 1;
}

// The driven node moves by amplitude * sin(2 pi f t) (and yaws by yaw radians * the same) for
// `move` frames, then holds still for `settle` frames, at 60 fps.
function drive(doc, nodeIndex, amplitude, yaw, frequency, move = 120, settle = 240) {
  doc.extras = { conformance: { node: nodeIndex, amplitude, yaw, frequency, move, settle, fps: 60 } };
}

const hair = { stiffness: 1.0, dragForce: 0.4, gravityPower: 1.0, gravityDir: [0, -1, 0], hitRadius: 0.02 };

const scenes = {};

// One 0.5 m chain of five links hanging from the head, swung sideways.
scenes.chain5 = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), head = node(d, 'Head', root, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Hair', head, [0, 0, -0.1], [0, -0.1, 0], 6);
  spring(d, 'hair', j, hair);
  drive(d, root, [0.3, 0, 0], 0, 1.0);
  return d;
})();

// A chain held out sideways: VRM's stiffness pulls toward the rest direction under the parent's
// current rotation, so gravity curls it.
scenes.sideways = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), arm = node(d, 'Arm', root, { translation: [0, 1.4, 0] });
  const j = chain(d, 'Streamer', arm, [0.1, 0, 0], [0.1, 0, 0], 6);
  spring(d, 'streamer', j, { ...hair, stiffness: 0.6, gravityPower: 0.8 });
  drive(d, root, [0, 0.2, 0.2], 0.6, 0.8);
  return d;
})();

// Three springs of 2, 3 and 7 joints with their own per-joint settings, a yawing head.
scenes.mixed = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), head = node(d, 'Head', root, { translation: [0, 1.5, 0] });
  const a = chain(d, 'Short', head, [0.08, 0, 0], [0, -0.08, 0], 2);
  const b = chain(d, 'Mid', head, [-0.08, 0, 0], [0, -0.1, -0.02], 3);
  const c = chain(d, 'Long', head, [0, 0, 0.1], [0, -0.07, 0.01], 7);
  spring(d, 'short', a, { stiffness: 3.0, dragForce: 0.7, gravityPower: 0.2, hitRadius: 0.01 });
  spring(d, 'mid', b, { stiffness: 0.3, dragForce: 0.2, gravityPower: 0.5, gravityDir: [0.3, -0.95, 0], hitRadius: 0.015 });
  spring(d, 'long', c, c.map((_, k) => ({ stiffness: 2.0 - 0.25 * k, dragForce: 0.3 + 0.05 * k, gravityPower: 0.4 + 0.1 * k, hitRadius: 0.01 })));
  drive(d, root, [0.15, 0.05, 0.1], 0.8, 1.3);
  return d;
})();

// A strand in front of a head sphere and beside a shoulder capsule, pushed into both.
scenes.colliders = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), head = node(d, 'Head', root, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Bang', head, [0, 0.12, 0.1], [0, -0.1, 0.02], 6);
  const sphere = collider(d, head, { sphere: { offset: [0, 0.02, 0], radius: 0.1 } });
  const capsule = collider(d, root, { capsule: { offset: [-0.2, 1.3, 0.05], tail: [0.2, 1.3, 0.05], radius: 0.06 } });
  spring(d, 'bang', j, { ...hair, stiffness: 0.8, hitRadius: 0.02 }, { colliderGroups: [group(d, [sphere, capsule])] });
  drive(d, root, [0, 0, -0.35], 0.4, 1.0);
  return d;
})();

// A spring that runs in its character's space: the character node moves 50 cm a frame
// (30 m/s), its hair keeps only the local sway.
scenes.center = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), body = node(d, 'Body', root), head = node(d, 'Head', body, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Tail', head, [0, 0, -0.1], [0, -0.1, -0.02], 5);
  spring(d, 'tail', j, { ...hair, stiffness: 0.7 }, { center: body });
  drive(d, body, [30, 0, 0], 0.3, 0.5);
  return d;
})();

// A character under a node scaled 0.5: every length halves (hit radii stay 0 here, as three-vrm
// does not scale radii while UniVRM does).
scenes.scaled = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), scaled = node(d, 'Scaled', root, { scale: [0.5, 0.5, 0.5] });
  const head = node(d, 'Head', scaled, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Hair', head, [0, 0, -0.2], [0, -0.2, 0], 6);
  spring(d, 'hair', j, { ...hair, hitRadius: 0 });
  drive(d, root, [0.3, 0, 0.1], 0.2, 1.0);
  return d;
})();

// VRM 0.x: bangs in front of the face with a collider between them and the face. UniVRM writes
// VRM 0.x with Unity's z reversed, so the face looks down -z and the collider's Unity offset
// z = +0.03 lands at glTF z = -0.03, in front of the face; read on the wrong axis it would sit
// behind the head and the bangs would never touch it.
scenes.vrm0 = (() => {
  const d = scene();
  d.extensionsUsed = ['VRM'];
  const root = node(d, 'Root', -1), head = node(d, 'Head', root, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Bang', head, [0, 0.1, -0.1], [0, -0.08, 0], 5);
  d.extensions = { VRM: { secondaryAnimation: {
    colliderGroups: [{ node: head, colliders: [{ offset: { x: 0, y: 0, z: 0.03 }, radius: 0.04 }] }],
    boneGroups: [{ stiffiness: 0.8, gravityPower: 1, gravityDir: { x: 0, y: -1, z: 0 }, dragForce: 0.4, hitRadius: 0.02,
      center: -1, bones: [j[0]], colliderGroups: [0] }],
  } } };
  drive(d, root, [0, 0, -0.3], 0, 1.0);
  return d;
})();

// Extended colliders: a plane the chain must stay in front of (fallback: a 10 km sphere
// behind it, as exporters write), an inside sphere the tip must stay within.
const extended = {};
extended.plane = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), back = node(d, 'Back', root, { translation: [0, 1.3, 0] });
  const j = chain(d, 'Cape', back, [0, 0.1, -0.05], [0, -0.1, 0], 6);
  const plane = collider(d, back, { sphere: { offset: [0, 0, -10000.08], radius: 10000 } },
    { plane: { offset: [0, 0, -0.08], normal: [0, 0, 1] } });
  spring(d, 'cape', j, { ...hair, stiffness: 0.5, gravityDir: [0, -0.8, -0.6] }, { colliderGroups: [group(d, [plane])] });
  drive(d, root, [0, 0, 0.3], 0.3, 1.0);
  return d;
})();
extended.inside = (() => {
  const d = scene();
  const root = node(d, 'Root', -1), head = node(d, 'Head', root, { translation: [0, 1.5, 0] });
  const j = chain(d, 'Earring', head, [0.1, 0, 0], [0, -0.06, 0], 4);
  const cage = collider(d, head, { sphere: { offset: [0.1, -0.1, 0], radius: 0.0 } },
    { sphere: { offset: [0.1, -0.1, 0], radius: 0.15, inside: true } });
  spring(d, 'earring', j, { ...hair, stiffness: 0.2, dragForce: 0.1, hitRadius: 0.01 }, { colliderGroups: [group(d, [cage])] });
  drive(d, root, [0.4, 0.2, 0], 0.5, 1.5);
  return d;
})();

const out = process.argv[2];
if (!out) {
  console.error('usage: node make_scenes.mjs OUT_DIR');
  process.exit(2);
}
mkdirSync(join(out, 'extended'), { recursive: true });
for (const [name, doc] of Object.entries(scenes)) writeFileSync(join(out, `${name}.gltf`), JSON.stringify(doc, null, 1));
for (const [name, doc] of Object.entries(extended)) writeFileSync(join(out, 'extended', `${name}.gltf`), JSON.stringify(doc, null, 1));
