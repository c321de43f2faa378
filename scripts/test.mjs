#!/usr/bin/env node
// `npm test`: every check in order — lint, format (Prettier), structure (scripts/structure.mjs), typecheck, unit + integration (Vitest,
// inside a D-Bus session with an unlocked gnome-keyring when available, so the OS
// keyring is tested for real), the Electron build, and the browser e2e (Playwright
// driving Debian Chromium through the web host). Prints one closing line
// "N passed, N failed, N skipped" summing Vitest and Playwright.
import { spawnSync } from 'node:child_process';
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

const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
const bin = (name) => join(root, 'node_modules', '.bin', name);

// the Node versions the README names (package.json engines): an older Node fails here, with the reason
if (want('node')) run('node', process.execPath, [join(root, 'scripts', 'check-node.mjs')]);
if (want('lint')) run('lint', bin('eslint'), ['.', '--max-warnings=0']);
// one layout for all code (Prettier, .prettierrc.json): `npm run format` writes it
if (want('format')) run('format', bin('prettier'), ['--check', '.', '--log-level', 'warn']);
// no import cycle under src/, no source file over 500 lines beyond its allowlisted ceiling (issue 13)
if (want('structure')) run('structure', process.execPath, [join(root, 'scripts', 'structure.mjs')]);
if (want('typecheck')) run('typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);

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
