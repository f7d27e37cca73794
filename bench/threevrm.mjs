// bench/threevrm.mjs - what three-vrm's spring bones cost per joint, for bench/solver's ratio:
// CHAINS chains of JOINTS joints (each chain a head moving on its own path, its bones held out
// sideways 0.1 apart, three-vrm's default settings with gravity), VRMSpringBoneManager.update
// at 60 fps after each head moves. Prints one line:
//   THREEVRM version=V chains=N joints=D frames=F ns_per_joint=X ns_per_joint_mean=Y ns_per_joint_best=Z
// X is the median frame's time per joint (robust on a shared machine), after a JIT warm-up; Z the
// fastest frame's (what bench/solver --best sets tress's fastest frame against). FRAMES defaults
// to 600 and the warm-up to 300 frames (fewer keep a 100000-joint scene to seconds).
//
//   node threevrm.mjs NODE_MODULES CHAINS JOINTS [FRAMES [WARMUP]]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modules, chainsArg, jointsArg, framesArg, warmupArg] = process.argv.slice(2);
const chains = Number(chainsArg), joints = Number(jointsArg), frames = Number(framesArg ?? 600);
const warmup = Number(warmupArg ?? 300);
if (!modules || !(chains >= 1) || !(joints >= 1) || !(frames >= 1) || !(warmup >= 0)) {
  console.error('usage: node threevrm.mjs NODE_MODULES CHAINS JOINTS [FRAMES [WARMUP]] (counts >= 1, WARMUP >= 0)');
  process.exit(2);
}
const pkg = join(modules, '@pixiv', 'three-vrm-springbone');
const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
// the same `three` instance the package resolves from its own folder
const THREE = await import(pathToFileURL(join(modules, 'three', 'build', 'three.module.js')).href);
const { VRMSpringBoneJoint, VRMSpringBoneManager } = await import(
  pathToFileURL(join(pkg, 'lib', 'three-vrm-springbone.module.js')).href);

const world = new THREE.Scene();
const manager = new VRMSpringBoneManager();
const heads = [];
for (let c = 0; c < chains; c++) {
  const head = new THREE.Object3D();
  head.position.set((c % 32) * 2, 1.5, Math.floor(c / 32) * 2);
  world.add(head);
  heads.push({ node: head, x: head.position.x, phase: c * 0.37 });
  let parent = head;
  const bones = [];
  for (let k = 0; k <= joints; k++) { // joints bones, each aiming at the next (the last at a tip)
    const b = new THREE.Object3D();
    b.position.set(k === 0 ? 0 : 0.1, k === 0 ? 0.1 : 0, 0);
    parent.add(b);
    bones.push(b);
    parent = b;
  }
  for (let k = 0; k < joints; k++)
    manager.addJoint(new VRMSpringBoneJoint(bones[k], bones[k + 1], { stiffness: 1, dragForce: 0.4, gravityPower: 1 }));
}
world.updateMatrixWorld(true);
manager.setInitState();

const dt = 1 / 60;
let t = 0;
function frame() {
  t += dt;
  for (const h of heads) h.node.position.x = h.x + 0.3 * Math.sin(2 * Math.PI * 1.3 * t + h.phase);
  const t0 = process.hrtime.bigint();
  manager.update(dt);
  return Number(process.hrtime.bigint() - t0);
}
for (let f = 0; f < warmup; f++) frame(); // JIT warm-up
const times = [];
for (let f = 0; f < frames; f++) times.push(frame());
const mean = times.reduce((a, b) => a + b, 0) / times.length;
times.sort((a, b) => a - b);
const n = chains * joints;
console.log(`THREEVRM version=${version} chains=${chains} joints=${joints} frames=${frames} warmup=${warmup} ` +
  `ns_per_joint=${(times[times.length >> 1] / n).toFixed(2)} ns_per_joint_mean=${(mean / n).toFixed(2)} ` +
  `ns_per_joint_best=${(times[0] / n).toFixed(2)}`);
