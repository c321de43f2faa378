#!/usr/bin/env node
// `npm start`: the desktop app when Electron's binary is installed; otherwise the same app in the
// browser through the web host (scripts/serve.mjs), with a clear note saying why.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));

function electronBinary() {
  try {
    const p = require('electron'); // the path of the binary, or throws when it was never downloaded
    return typeof p === 'string' && existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

function newest(dir) {
  let n = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n = Math.max(n, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return n;
}

const bin = electronBinary();
if (bin) {
  const built = join(root, 'out', 'main', 'index.js');
  if (!existsSync(built) || newest(join(root, 'src')) > statSync(built).mtimeMs) {
    console.error('Building Loupe (electron-vite build)…');
    const r = spawnSync(join(root, 'node_modules', '.bin', 'electron-vite'), ['build'], { stdio: 'inherit', cwd: root });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
  const child = spawn(bin, ['.', ...process.argv.slice(2)], { stdio: 'inherit', cwd: root, env: process.env });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.error(
    "Electron's binary is not installed here (it cannot be downloaded on this machine). Starting the web host instead — " +
      'the same app in your browser: npm run serve. To install Electron where downloads work: node node_modules/electron/install.js',
  );
  const child = spawn(process.execPath, [join(root, 'scripts', 'serve.mjs'), ...process.argv.slice(2)], { stdio: 'inherit', cwd: root, env: process.env });
  process.on('SIGINT', () => child.kill('SIGINT'));
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code) => process.exit(code ?? 0));
}
