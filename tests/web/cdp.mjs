// cdp.mjs - just enough of the Chrome DevTools protocol for the browser test: a headless
// Chromium on a debugging port, one page target, commands by id and events by name (ws from
// client/web/node_modules: node 20 has no WebSocket client of its own).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function launchChromium(chromiumPath, WebSocket, { width = 1000, height = 700 } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'tress-web-'));
  const args = ['--headless=new', '--no-sandbox', '--no-first-run', '--no-default-browser-check',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader', `--window-size=${width},${height}`,
    '--remote-debugging-port=0', '--remote-debugging-address=127.0.0.1', `--user-data-dir=${profile}`,
    'about:blank'];
  const proc = spawn(chromiumPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`chromium: no DevTools endpoint in 30 s:\n${text}`)), 30000);
    proc.stderr.on('data', (d) => {
      text += d;
      const m = text.match(/DevTools listening on (ws:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on('exit', (code) => reject(new Error(`chromium exited (${code}):\n${text}`)));
  });
  const port = new URL(endpoint).port;
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const page = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(page.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 256 << 20 });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  const session = new Session(ws);
  session.close = async () => {
    ws.close();
    proc.kill('SIGTERM');
    await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
    // Chromium's helpers may still be writing the profile for a moment after the browser exits
    try { rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }); } catch { /* a tmp dir left */ }
  };
  return session;
}

class Session {
  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Map();
    ws.on('message', (data) => {
      const msg = JSON.parse(data);
      if (msg.id && this.pending.has(msg.id)) {
        const { resolve, reject, method } = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      } else if (msg.method) {
        for (const fn of this.listeners.get(msg.method) || []) fn(msg.params);
      }
    });
  }

  // Every command has a deadline, so a page that never answers fails the test instead of hanging it.
  send(method, params = {}, timeoutMs = 120000) {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => { clearTimeout(timer); resolve(v); },
        reject: (e) => { clearTimeout(timer); reject(e); }, method });
    });
  }

  once(method, fn) {
    const wrapped = (p) => {
      this.listeners.set(method, this.listeners.get(method).filter((f) => f !== wrapped));
      fn(p);
    };
    this.on(method, wrapped);
  }

  on(method, fn) {
    if (!this.listeners.has(method)) this.listeners.set(method, []);
    this.listeners.get(method).push(fn);
  }

  // The value of an expression in the page (a promise is awaited); a thrown error rejects.
  async evaluate(expression) {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error(`page: ${d.exception ? d.exception.description : d.text}`);
    }
    return r.result.value;
  }

  async navigate(url) {
    let done;
    const loaded = new Promise((r) => { done = r; });
    this.once('Page.loadEventFired', done);
    await this.send('Page.navigate', { url });
    await loaded;
  }

  async screenshot() {
    const r = await this.send('Page.captureScreenshot', { format: 'png' });
    return Buffer.from(r.data, 'base64');
  }
}
