#!/usr/bin/env node
// `npm test`: every check — typecheck, lint, format (Prettier) and structure (scripts/structure.mjs) side by
// side, then in order unit + integration (Vitest,
// inside a D-Bus session with an unlocked gnome-keyring when available, so the OS
// keyring is tested for real), the Electron build, and the browser e2e (Playwright
// driving Debian Chromium through the web host). Prints one closing line
// "N passed, N failed, N skipped" summing Vitest and Playwright.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const reports = join(root, 'test-results');
mkdirSync(reports, { recursive: true });
const only = process.argv.slice(2); // e.g. `npm test -- unit e2e`
const want = (s) => only.length === 0 || only.includes(s);
const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const failedTests = [];

function run(name, cmd, args, opts = {}) {
  const t0 = Date.now();
  console.log(`\n── ${name}: ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env: { ...process.env, ...opts.env } });
  const ok = r.status === 0;
  console.log(`── ${name}: ${ok ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (!ok) failures.push(name);
  return ok;
}

/** Run the steps at most `availableParallelism()` at a time; each one's output is printed when it ends. */
async function runSideBySide(steps) {
  const queue = [...steps];
  const t0 = Date.now();
  const lane = async () => {
    for (let step = queue.shift(); step; step = queue.shift()) {
      const [name, cmd, args] = step;
      const started = Date.now();
      const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (b) => out.push(b));
      child.stderr.on('data', (b) => out.push(b));
      const code = await new Promise((done) => child.on('close', (c, signal) => done(c ?? signal)));
      const ok = code === 0;
      const at = (t) => ((t - t0) / 1000).toFixed(1);
      console.log(`\n── ${name}: ${[cmd, ...args].join(' ')}`);
      process.stdout.write(Buffer.concat(out));
      console.log(
        `── ${name}: ${ok ? 'ok' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s (from ${at(started)} s to ${at(Date.now())} s of the static checks)`,
      );
      if (!ok) failures.push(name);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(availableParallelism(), steps.length)) }, lane));
}

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
const bin = (name) => join(root, 'node_modules', '.bin', name);

// the Node versions the README names (package.json engines): an older Node fails here, with the reason
if (want('node')) run('node', process.execPath, [join(root, 'scripts', 'check-node.mjs')]);
// The four static checks read the sources and write nothing: they run side by side, as many at
// once as the machine has cores (each is one thread), longest first, each one's output printed
// whole when it ends. On 2 cores about 45 s instead of 80 s one after another.
await runSideBySide(
  [
    // tsc is the longest (about 35 s): it starts first and the others share the second core
    ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
    ['lint', bin('eslint'), ['.', '--max-warnings=0']],
    // one layout for all code (Prettier, .prettierrc.json): `npm run format` writes it
    ['format', bin('prettier'), ['--check', '.', '--log-level', 'warn']],
    // no import cycle under src/, no source file over 500 lines beyond its allowlisted ceiling (issue 13)
    ['structure', process.execPath, [join(root, 'scripts', 'structure.mjs')]],
  ].filter(([name]) => want(name)),
);

if (want('unit')) {
  const vitestJson = join(reports, 'vitest.json');
  const vitestArgs = ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`];
  if (has('dbus-run-session') && has('gnome-keyring-daemon')) {
    // A real Secret Service for the keyring tests (see src/core/secrets).
    // Unlock the login keyring, then write and delete one probe entry before the tests start, so
    // the default collection exists: test files run in parallel and would otherwise race to create
    // it (the loser sees "unlock prompt was dismissed").
    const warm = `node -e "const {Entry}=require('@napi-rs/keyring');for(let i=0;i<20;i++){try{const e=new Entry('Loupe-warmup','probe');e.setPassword('x');e.deletePassword();process.exit(0)}catch(err){Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,250)}}console.error('keyring warm-up failed');"`;
    // A fresh keyring folder every run: a login keyring left by an earlier run (another password)
    // would need an interactive unlock prompt, which cannot appear here.
    const inner = `export XDG_DATA_HOME="$(mktemp -d)"; echo -n loupe-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ${warm}; LOUPE_KEYRING_TEST=1 exec "${bin('vitest')}" ${vitestArgs.map((a) => `'${a}'`).join(' ')}`;
    run('unit', 'dbus-run-session', ['--', 'sh', '-c', inner]);
  } else {
    console.log('(no dbus-run-session/gnome-keyring-daemon: keyring tests will report the fallback path only)');
    run('unit', bin('vitest'), vitestArgs);
  }
  if (existsSync(vitestJson)) {
    const j = JSON.parse(readFileSync(vitestJson, 'utf8'));
    totals.passed += j.numPassedTests ?? 0;
    totals.failed += j.numFailedTests ?? 0;
    totals.skipped += (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
    // the failing tests by name, so the last lines of a long log say which one failed
    for (const file of j.testResults ?? []) {
      for (const t of file.assertionResults ?? []) {
        if (t.status === 'failed') failedTests.push(`unit: ${file.name.replace(`${root}/`, '')} › ${t.fullName}`);
      }
      if ((file.assertionResults ?? []).length === 0 && file.status === 'failed') {
        failedTests.push(
          `unit: ${file.name.replace(`${root}/`, '')} (the file failed to load: ${String(file.message ?? '').split('\n')[0]})`,
        );
      }
    }
  }
}

if (want('build')) run('build', bin('electron-vite'), ['build']);

if (want('e2e')) {
  const pwJson = join(reports, 'playwright.json');
  if (!existsSync(join(root, 'playwright.config.ts'))) {
    console.log('── e2e: no playwright.config.ts yet');
  } else {
    run('e2e', bin('playwright'), ['test'], { env: { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson } });
    if (existsSync(pwJson)) {
      const s = JSON.parse(readFileSync(pwJson, 'utf8')).stats ?? {};
      totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
      totals.failed += s.unexpected ?? 0;
      totals.skipped += s.skipped ?? 0;
      const walk = (suite) => {
        for (const spec of suite.specs ?? []) {
          for (const t of spec.tests ?? []) {
            if (t.status === 'unexpected') failedTests.push(`e2e: ${spec.file}:${spec.line} › ${spec.title}`);
          }
        }
        for (const child of suite.suites ?? []) walk(child);
      };
      for (const suite of JSON.parse(readFileSync(pwJson, 'utf8')).suites ?? []) walk(suite);
    }
  }
}

if (failedTests.length) console.log(`\nfailed tests:\n${failedTests.map((t) => `  ${t}`).join('\n')}`);
console.log(`\n${failures.length ? `failed steps: ${failures.join(', ')}` : 'all steps ok'}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length ? 1 : 0);
