// main.js - the live tuning page: a rigged .glb skinned by three.js, its bones simulated by the
// tress solver in wasm at the sim's fixed 60 Hz while the head is dragged, a debug draw of the
// solver's bones and tips, one slider per chain setting, and the manifest snippet they make.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import createTress from './tress.mjs';
import { ROLE, SETTINGS, SHAPE, SHAPE_FLOATS, Tuner } from './tuner.js';

const params = new URLSearchParams(location.search);
const testMode = params.has('test'); // the browser test steps frames itself (window.tressTest)
const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };

const canvas = $('canvas');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1d1f24);
const camera = new THREE.PerspectiveCamera(40, 1, 0.05, 100);
camera.position.set(0, -0.6, 5.5);
camera.lookAt(0, -0.8, 0);
scene.add(new THREE.HemisphereLight(0xffffff, 0x404050, 2.0));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(2, 3, 4);
scene.add(sun);
const grid = new THREE.GridHelper(6, 12, 0x444444, 0x333333);
grid.position.y = -2.6;
scene.add(grid);

// The head: what the user drags. The rig hangs from it; the solver's head part follows it.
const head = new THREE.Group();
scene.add(head);
const headBall = new THREE.Mesh(new THREE.SphereGeometry(0.25, 24, 16),
  new THREE.MeshStandardMaterial({ color: 0xc9a27e, roughness: 0.8 }));
head.add(headBall);

// Debug draw: the sim's shapes (tress_sim_debug_draw through the tuner) as coloured lines -
// links where the solver has them and in the animated pose, strand radii as rings - and the
// tips and end tips as points; buffers sized at load.
const debugLines = new THREE.LineSegments(new THREE.BufferGeometry(),
  new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false }));
const debugTips = new THREE.Points(new THREE.BufferGeometry(),
  new THREE.PointsMaterial({ color: 0xff5050, size: 7, sizeAttenuation: false, depthTest: false }));
debugLines.renderOrder = debugTips.renderOrder = 2;
debugLines.frustumCulled = debugTips.frustumCulled = false;
scene.add(debugLines, debugTips);

let wasm = null;
let rig = null; // { tuner, root, bones (three, tuner order), parents, mesh }
let firstFrameMs = null;
let resolveFirstFrame;
const firstFrame = new Promise((r) => { resolveFirstFrame = r; });

function resize() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== w || canvas.height !== h) {
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
  }
}

const tmpMatrix = new THREE.Matrix4(), tmpInverse = new THREE.Matrix4();
const tmpP = new THREE.Vector3(), tmpQ = new THREE.Quaternion(), tmpS = new THREE.Vector3();
const ONE = new THREE.Vector3(1, 1, 1);

function xformOf(matrix) {
  matrix.decompose(tmpP, tmpQ, tmpS); // the solver's bones carry no scale
  return [tmpP.x, tmpP.y, tmpP.z, tmpQ.x, tmpQ.y, tmpQ.z, tmpQ.w];
}

// Skin joints in an order where every parent comes first; parent = tuner index or -1 (hangs
// from something that is not a joint: the head, for the solver).
function jointOrder(joints) {
  const set = new Set(joints), order = [], parents = [], index = new Map();
  const visit = (bone, parent) => {
    index.set(bone, order.length);
    order.push(bone);
    parents.push(parent);
    const me = index.get(bone);
    for (const c of bone.children) if (set.has(c) && !index.has(c)) visit(c, me);
  };
  for (const j of joints) if (!set.has(j.parent) && !index.has(j)) visit(j, -1);
  return { order, parents };
}

function disposeRig() {
  if (!rig) return;
  head.remove(rig.root);
  rig.tuner.destroy();
  rig = null;
}

async function loadGlb(buffer, label) {
  const gltf = await new GLTFLoader().parseAsync(buffer, '');
  let skinned = null;
  gltf.scene.traverse((o) => { if (!skinned && o.isSkinnedMesh) skinned = o; });
  if (!skinned) throw new Error(`${label}: no skinned mesh (rig it first: tress-rig)`);
  disposeRig();
  head.position.set(0, 0, 0);
  head.quaternion.identity();
  head.add(gltf.scene);
  scene.updateMatrixWorld(true);
  skinned.frustumCulled = false;
  gltf.scene.traverse((o) => {
    // hair cards and capes are single sheets: show both faces
    if (o.isMesh) for (const m of [].concat(o.material)) m.side = THREE.DoubleSide;
  });
  const { order, parents } = jointOrder(skinned.skeleton.bones);
  const tuner = new Tuner(wasm, order.length);
  tmpInverse.copy(head.matrixWorld).invert();
  order.forEach((bone, i) => {
    const rest = parents[i] < 0 ? xformOf(tmpMatrix.multiplyMatrices(tmpInverse, bone.matrixWorld))
      : [bone.position.x, bone.position.y, bone.position.z,
        bone.quaternion.x, bone.quaternion.y, bone.quaternion.z, bone.quaternion.w];
    tuner.addBone(bone.name, parents[i], rest);
  });
  tuner.setHead(xformOf(head.matrixWorld));
  tuner.bind();
  for (const s of SETTINGS) if (sliderValues.has(s.name)) tuner.setSetting(s.name, sliderValues.get(s.name));
  tuner.setWind(windValue, 0, 0);
  tuner.recordFrames = testMode;
  rig = { tuner, root: gltf.scene, bones: order, parents, mesh: skinned };
  sizeDebugDraw();
  syncSliders();
  applySolver();
  frameCamera();
  render();
  status(`${label}: ${order.length} bones, ${tuner.tips().length / 3} tips`);
}

// Looks at the rig at rest from the front, far enough to see all of it with room to swing.
function frameCamera() {
  const box = new THREE.Box3();
  const w = rig.tuner.boneWorlds();
  for (let i = 0; i < w.length; i += 7) box.expandByPoint(tmpP.set(w[i], w[i + 1], w[i + 2]));
  box.expandByPoint(head.position);
  const center = box.getCenter(new THREE.Vector3());
  const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.3);
  camera.position.set(center.x, center.y + 0.1 * size, center.z + 2.2 * size);
  camera.lookAt(center);
  grid.position.y = box.min.y - 0.3 * size;
  grid.scale.setScalar(size / 2);
  headBall.scale.setScalar(Math.min(1, size / 2.5));
}

const RING_SEGMENTS = 12;
// per shape at most three rings of RING_SEGMENTS lines; tuner.c's shape capacity
const debugVertexCap = (bones) => (4 * bones + 16) * 3 * RING_SEGMENTS * 2;
const COLOURS = {
  [ROLE.BONE_SIMULATED]: [0.25, 1.0, 0.55], [ROLE.BONE_ANIMATED]: [0.45, 0.45, 0.5],
  [ROLE.STRAND_RADIUS]: [0.3, 0.6, 1.0], [ROLE.COLLIDER]: [1.0, 0.8, 0.2],
};
const ASLEEP = [0.2, 0.35, 0.6];

function sizeDebugDraw() {
  const vertices = debugVertexCap(rig.bones.length);
  debugLines.geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(vertices * 3), 3));
  debugLines.geometry.setAttribute('color', new THREE.BufferAttribute(new Float32Array(vertices * 3), 3));
  debugTips.geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(rig.bones.length * 6), 3));
}

// The shapes into the line and point buffers (no allocation: the buffers are the load's).
function drawDebugShapes() {
  const shapes = rig.tuner.debugShapes();
  const pos = debugLines.geometry.attributes.position.array, col = debugLines.geometry.attributes.color.array;
  const tips = debugTips.geometry.attributes.position.array;
  let v = 0, t = 0;
  const vertex = (x, y, z, c) => {
    if (3 * v + 3 > pos.length) return;
    pos[3 * v] = x; pos[3 * v + 1] = y; pos[3 * v + 2] = z;
    col[3 * v] = c[0]; col[3 * v + 1] = c[1]; col[3 * v + 2] = c[2];
    v++;
  };
  const tipsOf = rig.tuner.tips();
  for (let i = 0; i < tipsOf.length && t + 3 <= tips.length; i++) tips[t++] = tipsOf[i];
  for (let s = 0; s < shapes.length; s += SHAPE_FLOATS) {
    const kind = shapes[s], role = shapes[s + 1], asleep = shapes[s + 9] !== 0;
    const ax = shapes[s + 2], ay = shapes[s + 3], az = shapes[s + 4];
    const c = asleep && role === ROLE.BONE_SIMULATED ? ASLEEP : COLOURS[role] || [1, 1, 1];
    if (kind === SHAPE.LINE) {
      vertex(ax, ay, az, c);
      vertex(shapes[s + 5], shapes[s + 6], shapes[s + 7], c);
    } else if (kind === SHAPE.POINT && t + 3 <= tips.length) {
      tips[t++] = ax; tips[t++] = ay; tips[t++] = az;
    } else if (kind === SHAPE.SPHERE) {
      const r = shapes[s + 8];
      for (let axis = 0; axis < 3; axis++) {
        for (let k = 0; k < RING_SEGMENTS; k++) {
          for (const j of [k, k + 1]) {
            const u = r * Math.cos(2 * Math.PI * j / RING_SEGMENTS), w = r * Math.sin(2 * Math.PI * j / RING_SEGMENTS);
            const d = axis === 0 ? [0, u, w] : axis === 1 ? [u, 0, w] : [u, w, 0];
            vertex(ax + d[0], ay + d[1], az + d[2], c);
          }
        }
      }
    }
  }
  debugLines.geometry.setDrawRange(0, v);
  debugLines.geometry.attributes.position.needsUpdate = true;
  debugLines.geometry.attributes.color.needsUpdate = true;
  debugTips.geometry.setDrawRange(0, t / 3);
  debugTips.geometry.attributes.position.needsUpdate = true;
}

// The solver's drawn poses into three's bones (locals under each bone's parent), and its debug draw.
function applySolver() {
  const worlds = rig.tuner.boneWorlds();
  const bones = rig.bones, parents = rig.parents;
  const worldMats = rig.worldMats || (rig.worldMats = bones.map(() => new THREE.Matrix4()));
  head.updateMatrixWorld(true);
  for (let i = 0; i < bones.length; i++) {
    const w = worlds.subarray(7 * i, 7 * i + 7);
    worldMats[i].compose(tmpP.set(w[0], w[1], w[2]), tmpQ.set(w[3], w[4], w[5], w[6]), ONE);
    const parentWorld = parents[i] >= 0 ? worldMats[parents[i]] : bones[i].parent.matrixWorld;
    tmpMatrix.copy(parentWorld).invert().multiply(worldMats[i]);
    tmpMatrix.decompose(bones[i].position, bones[i].quaternion, bones[i].scale);
  }
  drawDebugShapes();
}

function render() {
  resize();
  debugLines.visible = debugTips.visible = $('debug-draw').checked;
  if (rig) rig.mesh.visible = $('show-mesh').checked;
  renderer.render(scene, camera);
  if (rig && firstFrameMs === null) {
    firstFrameMs = performance.now(); // since navigation start
    resolveFirstFrame(firstFrameMs);
  }
}

// ---- sliders and the manifest snippet
const sliderValues = new Map();
let windValue = 0;

function buildSliders() {
  const box = $('sliders');
  for (const s of SETTINGS) {
    const row = document.createElement('label');
    row.className = 'slider';
    const input = document.createElement('input');
    input.id = `setting-${s.name}`;
    if (s.boolean) {
      input.type = 'checkbox';
      input.checked = true;
    } else {
      Object.assign(input, { type: 'range', min: s.min, max: s.max, step: s.step });
    }
    const out = document.createElement('output');
    row.append(Object.assign(document.createElement('span'), { textContent: s.name }), input, out);
    box.append(row);
    input.addEventListener('input', () => {
      const v = s.boolean ? input.checked : Number(input.value);
      sliderValues.set(s.name, v);
      if (rig) rig.tuner.setSetting(s.name, v);
      out.textContent = s.boolean ? '' : Number(v).toFixed(3);
    });
  }
  const row = document.createElement('label');
  row.className = 'slider';
  const wind = Object.assign(document.createElement('input'), { id: 'wind', type: 'range', min: 0, max: 20, step: 0.1, value: 0 });
  const out = document.createElement('output');
  out.textContent = '0.0';
  row.append(Object.assign(document.createElement('span'), { textContent: 'wind (page only)' }), wind, out);
  box.append(row);
  wind.addEventListener('input', () => {
    windValue = Number(wind.value);
    out.textContent = windValue.toFixed(1);
    if (rig) rig.tuner.setWind(windValue, 0, 0);
  });
}

function syncSliders() {
  for (const s of SETTINGS) {
    const input = $(`setting-${s.name}`);
    const v = rig.tuner.getSetting(s.name);
    if (s.boolean) input.checked = v !== 0;
    else {
      input.value = v;
      input.nextElementSibling.textContent = v.toFixed(3);
    }
  }
}

// The springs section of a character manifest (docs/ENGINES.md, protocol/manifest.schema.json):
// root "" tunes every rigged chain.
function manifestSnippet() {
  const chain = { root: '' };
  for (const s of SETTINGS) {
    const v = rig.tuner.getSetting(s.name);
    chain[s.name] = s.boolean ? v !== 0 : Number(v.toPrecision(6));
  }
  return JSON.stringify({ springs: { chains: [chain] } }, null, 2);
}

// ---- head drag: plain drag moves the head in the view plane, shift+drag turns it
let drag = null;
canvas.addEventListener('pointerdown', (e) => {
  drag = { x: e.clientX, y: e.clientY, turn: e.shiftKey };
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener('pointerup', () => { drag = null; });
canvas.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.x = e.clientX;
  drag.y = e.clientY;
  const scale = 5 / Math.max(canvas.clientHeight, 1);
  if (drag.turn) {
    head.rotateY(dx * 0.01);
    head.rotateX(dy * 0.01);
  } else {
    head.position.x += dx * scale;
    head.position.y -= dy * scale;
  }
});
$('reset-head').addEventListener('click', () => { head.position.set(0, 0, 0); head.quaternion.identity(); });

// ---- loading: the built-in cape, a dropped file, or a server's rig cache
async function loadUrl(url, label, headers) {
  status(`loading ${label}...`);
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${label}: HTTP ${res.status}`);
  await loadGlb(await res.arrayBuffer(), label);
}

const report = (e) => status(`error: ${e.message}`);
const view = $('view');
view.addEventListener('dragover', (e) => e.preventDefault());
view.addEventListener('drop', (e) => {
  e.preventDefault();
  const file = e.dataTransfer.files[0];
  if (file) file.arrayBuffer().then((b) => loadGlb(b, file.name)).catch(report);
});

const authHeaders = () => ($('token').value ? { Authorization: `Bearer ${$('token').value}` } : {});
const serverUrl = () => $('server').value.replace(/\/+$/, '');
$('list-rigs').addEventListener('click', async () => {
  try {
    const res = await fetch(`${serverUrl()}/rigs`, { headers: authHeaders() });
    if (!res.ok) throw new Error(`/rigs: HTTP ${res.status}`);
    const list = await res.json();
    const select = $('rig-list');
    select.length = 1;
    for (const r of list.rigs) select.add(new Option(`${r.id.slice(0, 12)}... (${r.bytes} B)`, r.id));
    status(`${list.rigs.length} rigs on the server`);
  } catch (e) { report(e); }
});
$('rig-list').addEventListener('change', () => {
  const id = $('rig-list').value;
  const done = id ? loadUrl(`${serverUrl()}/rigs/${id}.glb`, id.slice(0, 12), authHeaders())
    : loadUrl('assets/cape_skinned.glb', 'cape_skinned.glb');
  done.catch(report);
});
$('export').addEventListener('click', () => { if (rig) $('snippet').value = manifestSnippet(); });

// ---- the loop: one tress step per drawn frame, at the real frame time (the sim keeps 60 Hz)
let last = null;
let stepNs = 0, stepFrames = 0;
function frame(now) {
  requestAnimationFrame(frame);
  if (rig && !testMode) {
    const dt = last === null ? 0 : Math.min((now - last) / 1000, 0.25);
    rig.tuner.setHead(xformOf(head.matrixWorld));
    const t0 = performance.now();
    rig.tuner.step(dt);
    stepNs += (performance.now() - t0) * 1e6;
    stepFrames++;
    applySolver();
    if (stepFrames === 60) {
      $('perf').textContent = `solver ${(stepNs / stepFrames / 1000).toFixed(1)} us/frame, ` +
        `${(stepNs / stepFrames / rig.bones.length).toFixed(0)} ns/node${rig.tuner.isAwake() ? '' : ' (asleep)'}`;
      stepNs = stepFrames = 0;
    }
  }
  last = now;
  if (!testMode || !rig) render();
}

// ---- the browser test's hook (tests/web): fixed frames with a scripted head motion
function scriptedHead(frameIndex) {
  const t = frameIndex / 60;
  const yaw = 0.5 * Math.sin(2 * Math.PI * 0.5 * t);
  return [0.4 * Math.sin(2 * Math.PI * 0.8 * t), 0.1 * Math.sin(2 * Math.PI * 1.3 * t), 0,
    0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)];
}

let testFrame = 0;
window.tressTest = {
  firstFrame,
  // n frames of 1/60 s; returns the tips after each as arrays of numbers
  step(n) {
    const out = [];
    for (let i = 0; i < n; i++) {
      const h = scriptedHead(testFrame++);
      head.position.set(h[0], h[1], h[2]);
      head.quaternion.set(h[3], h[4], h[5], h[6]);
      head.updateMatrixWorld(true);
      rig.tuner.setHead(xformOf(head.matrixWorld));
      rig.tuner.step(1 / 60);
      out.push(Array.from(rig.tuner.tips()));
    }
    applySolver();
    render();
    return out;
  },
  setSetting(name, value) { rig.tuner.setSetting(name, value); syncSliders(); },
  // the same, through the page's own slider (what a user does)
  dragSlider(name, value) {
    const input = $(`setting-${name}`);
    input.value = value;
    input.dispatchEvent(new Event('input'));
    return rig.tuner.getSetting(name);
  },
  script() { return rig.tuner.script(); },
  manifestSnippet() { $('export').click(); return $('snippet').value; },
  // the hair's on-screen box (CSS pixels) from the solver's bone positions
  hairRect() {
    const w = rig.tuner.boneWorlds(), r = canvas.getBoundingClientRect();
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = 0; i < w.length; i += 7) {
      const p = new THREE.Vector3(w[i], w[i + 1], w[i + 2]).project(camera);
      const x = r.left + (p.x + 1) / 2 * r.width, y = r.top + (1 - p.y) / 2 * r.height;
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
    return { x0, y0, x1, y1 };
  },
  // ns per node per frame of the solver alone, over frames of the scripted motion
  bench(frames) {
    const t0 = performance.now();
    for (let i = 0; i < frames; i++) {
      const h = scriptedHead(testFrame++);
      rig.tuner.setHead(h);
      rig.tuner.step(1 / 60);
    }
    const ms = performance.now() - t0;
    return { ms, frames, nodes: rig.bones.length, nsPerNodeFrame: ms * 1e6 / frames / rig.bones.length };
  },
  boneCount() { return rig.bones.length; },
};

async function start() {
  buildSliders();
  wasm = await createTress();
  const glb = params.get('glb') || 'assets/cape_skinned.glb';
  if (params.get('server')) $('server').value = params.get('server');
  await loadUrl(glb, glb.split('/').pop());
}

requestAnimationFrame(frame);
start().catch((e) => { status(`error: ${e.message}`); console.error(e); });
