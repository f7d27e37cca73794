// reference.mjs - three-vrm's spring bone (@pixiv/three-vrm-springbone on three), headless: loads
// a scene written by make_scenes.mjs, builds the three.js node tree by hand from the glTF nodes
// (no GLTFLoader: VRMSpringBoneJoint, VRMSpringBoneCollider and VRMSpringBoneManager are made
// directly, as VRMSpringBoneLoaderPlugin would make them), drives the scene's driven node on its
// path at 60 fps and prints every joint's world position each frame as JSON:
//
//   {"scene", "dt", "joints": [names], "frames": [[x, y, z per joint], ...],
//    "colliders": [[{shape, a, b, normal, radius, inside} per collider] per frame],
//    "hits": [{joint, radius, colliders: [i...]}]}
//
// frames[0] is the rest pose; frame f (1..) is after the node was put at path(f) and the
// springs updated by 1/60 s. `hits` says which colliders push which joint with which radius
// (a tail joint is pushed with its upper joint's hitRadius), for the penetration check.
//
//   node reference.mjs SCENE.gltf [--no-extended] [--fixed-length]
//
// --fixed-length: three-vrm measures each joint's length on every update from its child's world
// matrix, which at that point still holds the child's last pose (the child's own joint runs
// later in the same update), so a moving chain's tails are kept at a stretched length (up to 44%
// in the sideways scene). The rotations only see the tail's direction, but the stretched tail is
// the next frame's inertia. This flag fixes each joint's length at its setInitState value (the
// spec's and UniVRM's fixed joint length) and changes nothing else in three-vrm.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as THREE from 'three';
import {
  VRMSpringBoneCollider,
  VRMSpringBoneColliderShapeCapsule,
  VRMSpringBoneColliderShapePlane,
  VRMSpringBoneColliderShapeSphere,
  VRMSpringBoneJoint,
  VRMSpringBoneManager,
} from '@pixiv/three-vrm-springbone';

const path = process.argv[2];
if (!path) {
  console.error('usage: node reference.mjs SCENE.gltf [--no-extended] [--fixed-length]');
  process.exit(2);
}
const useExtended = !process.argv.includes('--no-extended');
const fixedLength = process.argv.includes('--fixed-length');
const gltf = JSON.parse(readFileSync(path, 'utf8'));
const spec = gltf.extensions?.VRMC_springBone;
const vrm0 = gltf.extensions?.VRM?.secondaryAnimation;
const drive = gltf.extras?.conformance;
if ((!spec && !vrm0) || !drive) {
  console.error(`${path}: no VRMC_springBone or VRM secondaryAnimation, or no extras.conformance`);
  process.exit(2);
}

// ---- the node tree ----
const world = new THREE.Scene();
const objects = gltf.nodes.map((n) => {
  const o = new THREE.Object3D();
  o.name = n.name ?? '';
  if (n.matrix) new THREE.Matrix4().fromArray(n.matrix).decompose(o.position, o.quaternion, o.scale);
  if (n.translation) o.position.fromArray(n.translation);
  if (n.rotation) o.quaternion.fromArray(n.rotation);
  if (n.scale) o.scale.fromArray(n.scale);
  return o;
});
const hasParent = new Set();
gltf.nodes.forEach((n, i) => (n.children ?? []).forEach((c) => (objects[i].add(objects[c]), hasParent.add(c))));
objects.forEach((o, i) => hasParent.has(i) || world.add(o));

// ---- colliders, as the loader plugin imports them (extended shape first, fallback otherwise) ----
const vec = (a, d = [0, 0, 0]) => new THREE.Vector3().fromArray(a ?? d);
function shapeOf(c) {
  const ex = c.extensions?.VRMC_springBone_extended_collider;
  const s = useExtended && ex?.specVersion === '1.0' ? ex.shape : c.shape;
  if (s.sphere) return new VRMSpringBoneColliderShapeSphere({ offset: vec(s.sphere.offset), radius: s.sphere.radius ?? 0, inside: s.sphere.inside ?? false });
  if (s.capsule)
    return new VRMSpringBoneColliderShapeCapsule({ offset: vec(s.capsule.offset), tail: vec(s.capsule.tail), radius: s.capsule.radius ?? 0, inside: s.capsule.inside ?? false });
  return new VRMSpringBoneColliderShapePlane({ offset: vec(s.plane.offset), normal: vec(s.plane.normal, [0, 0, 1]) });
}
function addCollider(nodeIndex, shape) {
  const col = new VRMSpringBoneCollider(shape);
  objects[nodeIndex].add(col);
  return col;
}
const colliders = (spec?.colliders ?? []).map((c) => addCollider(c.node, shapeOf(c)));
const groups = (spec?.colliderGroups ?? []).map((g) => ({ colliders: (g.colliders ?? []).map((i) => colliders[i]), name: g.name }));

const manager = new VRMSpringBoneManager();
const jointNodes = [];
const hits = [];

// ---- VRM 0.x, as the loader plugin's _v0Import: spheres at (x, y, -z); every node below a
// listed bone is a joint aiming at its first child (a leaf at a 7 cm tip), the group's settings;
// collider objects are skipped as joints (the loader would make them joints too) ----
const v0GroupColliders = (vrm0?.colliderGroups ?? []).map((g) => {
  const first = colliders.length;
  for (const c of g.colliders ?? []) {
    const o = c.offset ?? {};
    colliders.push(addCollider(g.node, new VRMSpringBoneColliderShapeSphere({ offset: new THREE.Vector3(o.x ?? 0, o.y ?? 0, o.z ? -o.z : 0), radius: c.radius ?? 0 })));
  }
  return { colliders: colliders.slice(first), ids: [...Array(colliders.length - first).keys()].map((k) => first + k) };
});
for (const g of spec ? [] : vrm0.boneGroups ?? []) {
  const springGroups = (g.colliderGroups ?? []).map((i) => v0GroupColliders[i]);
  const colliderIds = springGroups.flatMap((cg) => cg.ids);
  const d = g.gravityDir ?? { x: 0, y: -1, z: 0 };
  const settings = { hitRadius: g.hitRadius, dragForce: g.dragForce, gravityPower: g.gravityPower, stiffness: g.stiffiness,
    gravityDir: new THREE.Vector3(d.x ?? 0, d.y ?? 0, d.z ?? 0) };
  for (const rootIndex of g.bones ?? []) {
    objects[rootIndex].traverse((o) => {
      if (o instanceof VRMSpringBoneCollider) return;
      const child = o.children.find((c) => !(c instanceof VRMSpringBoneCollider)) ?? null;
      const joint = new VRMSpringBoneJoint(o, child, settings, springGroups);
      if (g.center != null && g.center >= 0) joint.center = objects[g.center];
      manager.addJoint(joint);
      jointNodes.push(objects.indexOf(o));
      if (child) hits.push({ joint: child.name, radius: g.hitRadius ?? 0, colliders: colliderIds });
    });
  }
}

// ---- VRM 1.0 joints: joint k turns toward joint k+1 with joint k's settings ----
for (const s of spec?.springs ?? []) {
  const springGroups = (s.colliderGroups ?? []).map((i) => groups[i]);
  const colliderIds = [...new Set((s.colliderGroups ?? []).flatMap((i) => spec.colliderGroups[i].colliders ?? []))];
  s.joints.forEach((j, k) => {
    if (!jointNodes.includes(j.node)) jointNodes.push(j.node);
    if (k === 0) return;
    const up = s.joints[k - 1];
    const joint = new VRMSpringBoneJoint(objects[up.node], objects[j.node], {
      hitRadius: up.hitRadius,
      dragForce: up.dragForce,
      gravityPower: up.gravityPower,
      stiffness: up.stiffness,
      gravityDir: up.gravityDir ? vec(up.gravityDir) : undefined,
    }, springGroups);
    if (s.center != null) joint.center = objects[s.center];
    manager.addJoint(joint);
    hits.push({ joint: gltf.nodes[j.node].name, radius: up.hitRadius ?? 0, colliders: colliderIds });
  });
}

// ---- the driven node's path (tress_trace.c computes the same) ----
const driven = objects[drive.node];
const base = { p: driven.position.clone(), q: driven.quaternion.clone() };
function pose(frame) {
  const f = Math.min(frame, drive.move);
  const w = Math.sin(2 * Math.PI * drive.frequency * (f / drive.fps));
  driven.position.copy(base.p).add(vec(drive.amplitude).multiplyScalar(w));
  driven.quaternion.copy(base.q).multiply(new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), drive.yaw * w));
}

function colliderState() {
  return colliders.map((col) => {
    col.updateWorldMatrix(true, false);
    const m = col.colliderMatrix, s = col.shape;
    const a = new THREE.Vector3().setFromMatrixPosition(m);
    if (s.type === 'plane') {
      const n = s.normal.clone().applyNormalMatrix(new THREE.Matrix3().getNormalMatrix(m)).normalize();
      return { shape: 'plane', a: a.toArray(), normal: n.toArray() };
    }
    const b = s.type === 'capsule' ? new THREE.Vector3().subVectors(s.tail, s.offset).applyMatrix4(m) : a.clone();
    return { shape: s.type, a: a.toArray(), b: b.toArray(), radius: s.radius, inside: s.inside };
  });
}

const at = new THREE.Vector3();
function positions() {
  return jointNodes.flatMap((n) => objects[n].getWorldPosition(at).toArray());
}

const dt = 1 / drive.fps;
pose(0);
world.updateMatrixWorld(true);
manager.setInitState();
if (fixedLength) {
  world.updateMatrixWorld(true); // setInitState updated the joints' matrices, not their tips'
  for (const joint of manager.joints) {
    joint._calcWorldSpaceBoneLength();
    const length = joint._worldSpaceBoneLength;
    joint._calcWorldSpaceBoneLength = () => {
      joint._worldSpaceBoneLength = length;
    };
  }
}
const frames = [positions()], colliderFrames = [colliderState()];
for (let f = 1; f <= drive.move + drive.settle; f++) {
  pose(f);
  world.updateMatrixWorld(true);
  manager.update(dt);
  frames.push(positions());
  colliderFrames.push(colliderState());
}
const round = (v) => Math.round(v * 1e7) / 1e7;
process.stdout.write(JSON.stringify({
  scene: basename(path),
  dt,
  joints: jointNodes.map((n) => gltf.nodes[n].name),
  frames: frames.map((f) => f.map(round)),
  colliders: colliderFrames,
  hits,
}) + '\n');
