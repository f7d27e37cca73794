// tuner.js - the wasm solver (tress.mjs, built from client/web/src/tuner.c) behind a small class.
// Every call that feeds the solver is also written to a script in tuner_trace's format
// (tests/web/tuner_trace.c), so the native solver can be run on exactly the page's inputs.

// The chain settings the page tunes, in the manifest's names and tuner.h's order.
export const SETTINGS = [
  { name: 'damping', min: 0, max: 1, step: 0.005 },
  { name: 'stiffness', min: 0, max: 1, step: 0.005 },
  { name: 'gravity_scale', min: 0, max: 4, step: 0.01 },
  { name: 'wind_scale', min: 0, max: 4, step: 0.01 },
  { name: 'radius', min: 0, max: 0.3, step: 0.005 },
  { name: 'end_length', min: 0, max: 0.5, step: 0.005 },
  { name: 'wind_gust', min: 0, max: 1, step: 0.01 },
  { name: 'wind_frequency', min: 0, max: 4, step: 0.05 },
  { name: 'weight', min: 0, max: 1, step: 0.01 },
  { name: 'enabled', boolean: true },
];

// tuner.h's debug shape layout, and tress/debug_draw.h's kinds and roles.
export const SHAPE_FLOATS = 10;
export const SHAPE = { LINE: 0, POINT: 1, SPHERE: 2, CAPSULE: 3, PLANE: 4 };
export const ROLE = { BONE_ANIMATED: 0, BONE_SIMULATED: 1, STRAND_RADIUS: 2, END_TIP: 3, COLLIDER: 4 };

// A float as the solver sees it, written so that reading it back gives the same float32.
const f32 = (v) => Math.fround(v).toPrecision(9);

export class Tuner {
  constructor(wasm, boneCapacity) {
    this.wasm = wasm;
    this.ptr = wasm._tress_tuner_create(boneCapacity);
    if (!this.ptr) throw new Error('tress: out of memory making the tuner');
    this.xform = wasm._malloc(7 * 4);
    this.text = wasm._malloc(256);
    this.lines = [];
    this.boneCount = 0;
  }

  writeXform(values) {
    this.wasm.HEAPF32.set(values.map(Math.fround), this.xform >> 2);
    return values.map(f32).join(' ');
  }

  addBone(name, parent, rest) {
    // names go to the script as one word; the solver keeps them only for its own messages
    const safe = (name || 'bone').replace(/\s+/g, '_').slice(0, 60);
    const xf = this.writeXform(rest);
    this.wasm.stringToUTF8(safe, this.text, 256);
    const index = this.wasm._tress_tuner_add_bone(this.ptr, this.text, parent, this.xform);
    if (index < 0) throw new Error(`tress: bone ${safe} refused`);
    this.lines.push(`bone ${safe} ${parent} ${xf}`);
    this.boneCount++;
    return index;
  }

  bind() {
    const r = this.wasm._tress_tuner_bind(this.ptr);
    this.lines.push('bind');
    if (r !== 0) throw new Error(`tress: bind failed (result ${r})`);
  }

  setHead(world) {
    this.headLine = this.writeXform(world);
    this.wasm._tress_tuner_set_head(this.ptr, this.xform);
  }

  setWind(x, y, z) {
    this.wasm._tress_tuner_set_wind(this.ptr, x, y, z);
    this.lines.push(`wind ${[x, y, z].map(f32).join(' ')}`);
  }

  settingIndex(name) {
    const i = SETTINGS.findIndex((s) => s.name === name);
    if (i < 0) throw new Error(`tress: no setting ${name}`);
    return i;
  }

  setSetting(name, value) {
    const v = typeof value === 'boolean' ? (value ? 1 : 0) : value;
    const r = this.wasm._tress_tuner_set_setting(this.ptr, this.settingIndex(name), v);
    if (r !== 0) throw new Error(`tress: ${name} = ${value} refused (result ${r})`);
    this.lines.push(`set ${name} ${f32(v)}`);
  }

  getSetting(name) {
    return this.wasm._tress_tuner_get_setting(this.ptr, this.settingIndex(name));
  }

  // One drawn frame of dt seconds (the sim runs its fixed 60 Hz substeps inside).
  step(dt) {
    const r = this.wasm._tress_tuner_step(this.ptr, dt);
    if (r !== 0) throw new Error(`tress: step failed (result ${r})`);
    if (this.recordFrames) this.lines.push(`frame ${this.headLine} ${dt}`);
  }

  // Views into wasm memory: valid until the next call that may grow it.
  boneWorlds() {
    const p = this.wasm._tress_tuner_get_bone_worlds(this.ptr) >> 2;
    return this.wasm.HEAPF32.subarray(p, p + 7 * this.boneCount);
  }

  tips() {
    const n = this.wasm._tress_tuner_get_tip_count(this.ptr);
    const p = this.wasm._tress_tuner_get_tips(this.ptr) >> 2;
    return this.wasm.HEAPF32.subarray(p, p + 3 * n);
  }

  // The sim's debug draw (tress/debug_draw.h) of the last step: SHAPE_FLOATS floats a shape.
  debugShapes() {
    const n = this.wasm._tress_tuner_debug_draw(this.ptr);
    const p = this.wasm._tress_tuner_get_debug_shapes(this.ptr) >> 2;
    return this.wasm.HEAPF32.subarray(p, p + SHAPE_FLOATS * n);
  }

  isAwake() {
    return !!this.wasm._tress_tuner_is_awake(this.ptr);
  }

  script() {
    return this.lines.join('\n') + '\n';
  }

  destroy() {
    this.wasm._tress_tuner_destroy(this.ptr);
    this.wasm._free(this.xform);
    this.wasm._free(this.text);
    this.ptr = 0;
  }
}
