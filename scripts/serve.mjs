#!/usr/bin/env node
// `npm run serve -- [--port N] [--data-dir DIR] [--base-url URL]`: the web door.
// Builds the renderer when out/renderer is missing or older than its sources, and the host
// (src/host/main.ts, bundled into out/host by scripts/build-host.mjs) when out/host is, then runs
// the built host with node, forwarding the arguments (through tsx it compiled the whole core at
// every start: 5-7 s before it served on a loaded machine; issue 30). The host prints one line on
// stdout: the URL (with the session token) to open in a browser.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { firstViewPreload } from './first-view-preload.mjs';

const root = resolve(import.meta.dirname, '..');
const outIndex = join(root, 'out', 'renderer', 'index.html');

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (!/\.test\.tsx?$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

export function rendererIsStale() {
  if (!existsSync(outIndex)) return true;
  const built = statSync(outIndex).mtimeMs;
  const sources = Math.max(
    newestMtime(join(root, 'src', 'renderer')),
    newestMtime(join(root, 'src', 'shared')),
    statSync(join(root, 'electron.vite.config.ts')).mtimeMs,
  );
  return sources > built;
}

/** The renderer alone, with the same settings electron-vite uses for it (root, base './', React). */
export async function buildRenderer() {
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  await build({
    configFile: false,
    root: join(root, 'src', 'renderer'),
    base: './',
    plugins: [react(), firstViewPreload()],
    logLevel: 'warn',
    build: {
      outDir: join(root, 'out', 'renderer'),
      emptyOutDir: true,
      rollupOptions: { input: { index: join(root, 'src', 'renderer', 'index.html') } },
    },
  });
}

async function main() {
  if (rendererIsStale()) {
    process.stderr.write('Building the user interface (out/renderer)…\n');
    try {
      await buildRenderer();
    } catch (e) {
      process.stderr.write(`The user interface failed to build: ${e instanceof Error ? e.message : e}\n`);
      process.exit(1);
    }
  }
  const { buildHost, hostIsStale } = await import('./build-host.mjs');
  if (hostIsStale()) {
    try {
      await buildHost();
    } catch (e) {
      process.stderr.write(`The web host failed to build: ${e instanceof Error ? e.message : e}\n`);
      process.exit(1);
    }
  }
  const child = spawn(process.execPath, [join(root, 'out', 'host', 'main.js'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
    env: process.env,
  });
  const forward = (sig) => () => child.kill(sig);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('serve.mjs')) await main();
