// browser_test.mjs - the live tuning page in headless Chromium (ctest label `browser`):
//   node tests/web/browser_test.mjs --page DIR --trace TUNER_TRACE [--chromium PATH] [--glb FILE]
// DIR is scripts/build-web's output; the page is served from it on loopback and driven through
// its test hook (window.tressTest, client/web/page/main.js). Checks:
//  1. the page loads and draws with no console error or uncaught exception;
//  2. the wasm solver's tips equal the native solver's (tuner_trace on the page's recorded
//     inputs) within 1e-5 on every frame, a settings change included;
//  3. a slider change alters the motion (same frames, stiffness dragged);
//  4. two screenshots taken frames apart differ where the hair is, and little elsewhere;
//  5. the exported manifest snippet carries the slider's value in the manifest's names.
// Prints figures (wasm vs native ns per node per frame, load to first frame) and
// "N passed, M failed". Exit 0 all passed, 1 a failure, 77 when Chromium is not installed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, copyFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './cdp.mjs';
import { decodePng } from './png.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const pageDir = resolve(args.page || join(root, 'build-web'));
const tracePath = args.trace;
const chromium = args.chromium || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
if (!chromium) {
  console.log('SKIPPED: Chromium is not installed (apt-get install chromium, or bash scripts/setup)');
  process.exit(77);
}
if (!tracePath || !existsSync(join(pageDir, 'index.html'))) {
  console.error(`usage: browser_test.mjs --page DIR --trace TUNER_TRACE (no index.html in ${pageDir}?)`);
  process.exit(2);
}
const WebSocket = createRequire(join(root, 'client/web/package.json'))('ws');

const TOLERANCE = 1e-5;
const work = mkdtempSync(join(tmpdir(), 'tress-web-test-'));
let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'ok' : 'FAILED'}: ${name}${detail ? ` (${detail})` : ''}`);
}

// ---- a static server for the built page (and the test asset), loopback only
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.glb': 'model/gltf-binary' };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = resolve(pageDir, `.${path === '/' ? '/index.html' : path}`);
  if (!file.startsWith(pageDir) || !existsSync(file)) { res.writeHead(404).end(); return; }
  res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
let glbParam = '';
if (args.glb) {
  copyFileSync(args.glb, join(pageDir, 'assets', basename(args.glb)));
  glbParam = `&glb=assets/${basename(args.glb)}`;
}
const pageUrl = `http://127.0.0.1:${server.address().port}/index.html?test=1${glbParam}`;

const browser = await launchChromium(chromium, WebSocket);
const errors = [];
browser.on('Runtime.consoleAPICalled', (e) => {
  if (e.type === 'error' || e.type === 'assert') errors.push(`console.${e.type}: ${e.args.map((a) => a.value ?? a.description).join(' ')}`);
});
browser.on('Runtime.exceptionThrown', (e) => errors.push(`exception: ${e.exceptionDetails.exception?.description ?? e.exceptionDetails.text}`));
browser.on('Log.entryAdded', (e) => { if (e.entry.level === 'error') errors.push(`log: ${e.entry.text} ${e.entry.url || ''}`); });
await browser.send('Runtime.enable');
await browser.send('Log.enable');
await browser.send('Page.enable');

async function freshPage() {
  await browser.navigate(pageUrl);
  return browser.evaluate('window.tressTest.firstFrame');
}

const maxDiff = (a, b) => {
  let m = 0;
  for (let f = 0; f < a.length; f++) for (let i = 0; i < a[f].length; i++) m = Math.max(m, Math.abs(a[f][i] - b[f][i]));
  return m;
};

function nativeTips(script) {
  const file = join(work, 'scene.txt');
  writeFileSync(file, script);
  const out = execFileSync(tracePath, [file], { encoding: 'utf8', maxBuffer: 256 << 20 });
  return out.trim().split('\n').map((l) => l.split(' ').map(Number));
}

// Changed pixels of two screenshots, counted inside and outside a box (CSS px = device px here).
function pixelChange(a, b, box, margin) {
  let inside = 0, outside = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) {
    const i = 4 * (y * a.width + x);
    const d = Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) + Math.abs(a.rgba[i + 2] - b.rgba[i + 2]);
    if (d <= 24) continue;
    const inBox = x >= box.x0 - margin && x <= box.x1 + margin && y >= box.y0 - margin && y <= box.y1 + margin;
    if (inBox) inside++; else outside++;
  }
  return { inside, outside };
}

try {
  // 1 + 4: load, frames, two screenshots apart, a settings change mid-run
  const firstFrameMs = await freshPage();
  const bones = await browser.evaluate('window.tressTest.boneCount()');
  const framesA = await browser.evaluate('window.tressTest.step(30)');
  const shotA = decodePng(await browser.screenshot());
  const boxA = await browser.evaluate('window.tressTest.hairRect()');
  const framesB = await browser.evaluate('window.tressTest.step(20)');
  const shotB = decodePng(await browser.screenshot());
  const boxB = await browser.evaluate('window.tressTest.hairRect()');
  const box = { x0: Math.min(boxA.x0, boxB.x0), y0: Math.min(boxA.y0, boxB.y0),
    x1: Math.max(boxA.x1, boxB.x1), y1: Math.max(boxA.y1, boxB.y1) };
  const change = pixelChange(shotA, shotB, box, 30);
  check('screenshots 20 frames apart differ where the hair is', change.inside > 500 && change.outside < 0.1 * change.inside,
    `${change.inside} px changed around the hair, ${change.outside} elsewhere; hair box ${Math.round(box.x0)},${Math.round(box.y0)}-${Math.round(box.x1)},${Math.round(box.y1)}`);
  await browser.evaluate("window.tressTest.setSetting('gravity_scale', 2.5)");
  const framesC = await browser.evaluate('window.tressTest.step(40)');
  const pageTips = [...framesA, ...framesB, ...framesC];

  // 2: the same inputs natively
  const script = await browser.evaluate('window.tressTest.script()');
  writeFileSync(join(work, 'page_script.txt'), script);
  const native = nativeTips(script);
  const sameShape = native.length === pageTips.length && native.every((f, i) => f.length === pageTips[i].length);
  const diff = sameShape ? maxDiff(pageTips, native) : Infinity;
  check(`wasm tips equal native tips within ${TOLERANCE} (${pageTips.length} frames, ${pageTips[0].length / 3} tips, ${bones} bones)`,
    sameShape && diff <= TOLERANCE, sameShape ? `max |diff| ${diff.toExponential(2)}` : `native ${native.length} frames, page ${pageTips.length}`);
  const moved = maxDiff([pageTips[0]], [pageTips[pageTips.length - 1]]);
  check('the tips move under the scripted head motion', moved > 0.01, `${moved.toFixed(3)} from first to last frame`);

  // 3: a slider dragged before the same frames changes them
  await freshPage();
  const base = await browser.evaluate('window.tressTest.step(60)');
  await freshPage();
  const setTo = await browser.evaluate("window.tressTest.dragSlider('stiffness', 0.6)");
  const tuned = await browser.evaluate('window.tressTest.step(60)');
  const motion = maxDiff(base, tuned);
  check('dragging the stiffness slider alters the motion', Math.abs(setTo - 0.6) < 1e-6 && motion > 0.01,
    `stiffness ${setTo.toFixed(3)}, tips differ by up to ${motion.toFixed(3)}`);
  const tunedNative = nativeTips(await browser.evaluate('window.tressTest.script()'));
  check('the tuned run matches native too', tunedNative.length === tuned.length && maxDiff(tuned, tunedNative) <= TOLERANCE,
    `max |diff| ${maxDiff(tuned, tunedNative).toExponential(2)}`);

  // 5: the manifest snippet
  const snippet = JSON.parse(await browser.evaluate('window.tressTest.manifestSnippet()'));
  const schema = JSON.parse(readFileSync(join(root, 'protocol/manifest.schema.json'), 'utf8'));
  const allowed = Object.keys(schema.$defs.spring_chain.properties);
  const chain = snippet?.springs?.chains?.[0] ?? {};
  const unknown = Object.keys(chain).filter((k) => !allowed.includes(k));
  check('the exported snippet is a manifest springs section with the slider value',
    chain.root === '' && Math.abs(chain.stiffness - 0.6) < 1e-6 && unknown.length === 0 && 'damping' in chain && chain.enabled === true,
    unknown.length ? `not in the schema: ${unknown.join(', ')}` : JSON.stringify(chain));

  check('no console errors', errors.length === 0, errors.slice(0, 5).join(' | '));

  // figures: the solver alone, wasm in the page vs native on the same recorded frames
  await freshPage();
  const bench = await browser.evaluate('window.tressTest.bench(3000)');
  writeFileSync(join(work, 'bench.txt'), await browser.evaluate('window.tressTest.script()'));
  const nativeBench = execFileSync(tracePath, ['--time', join(work, 'bench.txt')], { encoding: 'utf8' }).trim();
  const nativeNs = Number(nativeBench.split(' ').pop());
  console.log(`figure: solver ns/node/frame: wasm ${bench.nsPerNodeFrame.toFixed(1)}, native ${nativeNs.toFixed(1)} ` +
    `(${bench.nodes} nodes, ${bench.frames} frames, ratio ${(bench.nsPerNodeFrame / nativeNs).toFixed(2)})`);
  console.log(`figure: page load to first frame: ${firstFrameMs.toFixed(0)} ms`);
} catch (e) {
  check('the test ran to the end', false, e.stack);
} finally {
  await browser.close();
  server.close();
  if (args.glb) rmSync(join(pageDir, 'assets', basename(args.glb)), { force: true });
  if (args.keep) console.log(`kept: ${work}`); else rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
