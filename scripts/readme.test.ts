/**
 * The README stays true (issue 26): every command it shows is run here, as written, against the
 * sandbox in a temporary data folder — the "first 30 minutes" blocks, the command line's three
 * lines, the cron line's command, `npm run -s sandbox` (exactly one JSON line on stdout) and the
 * curl lines against that sandbox. Substitutions, and only these: `npx loupe` runs this tree's
 * `bin/loupe.js`; the sandbox's port 8787 is a free one; the cron line's folder is this tree and
 * its base URL the sandbox's. The quick start's `npm install && npm start` and `npm test` are what CI
 * itself runs (.ci/run), so they are not run again from inside the tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));
const bin = `node ${JSON.stringify(join(root, 'bin', 'loupe.js'))}`;

let dir: string;
let sandbox: ChildProcess | null = null;
let sb: { url: string; key: string };
const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, LOUPE_HOME: join(dir, 'data'), LOUPE_API_KEY: '' });

function sh(script: string, extra: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  return spawnSync('sh', ['-e', '-c', script], { cwd: dir, env: { ...env(), ...extra }, encoding: 'utf8', timeout: 120_000 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-readme-'));
  mkdirSync(join(dir, 'data'));
  const block = blocks.find((b) => b.code.includes('npm run -s sandbox'))!;
  const line = block.code.split('\n').find((l) => l.startsWith('npm run -s sandbox'))!;
  // as written, on a free port; npm's own output would come before the JSON line
  const args = line.split('#')[0].trim().replace('--port 8787', '--port 0').split(/\s+/);
  sandbox = spawn(args[0], args.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  sb = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no line from the sandbox: ${out}`)), 60_000);
    sandbox!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(t);
        res(JSON.parse(out.split('\n')[0]) as { url: string; key: string });
      }
    });
  });
  // nothing else on stdout: the JSON line is all a script reads
  await new Promise((r) => setTimeout(r, 300));
  expect(out.trimEnd().split('\n')).toHaveLength(1);
}, 90_000);

afterAll(() => {
  if (sandbox?.pid) process.kill(-sandbox.pid, 'SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('README', () => {
  it('is the front door: under 200 lines, every doc it links exists', () => {
    expect(readme.split('\n').length).toBeLessThan(200);
    for (const m of readme.matchAll(/\]\(((?:docs\/|CONTRIBUTING)[^)#]+)\)/g))
      expect(spawnSync('test', ['-e', join(root, m[1])]).status, m[1]).toBe(0);
  });

  it('`npm run -s sandbox` printed exactly one JSON line (above); npm run of an unknown script says so', () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.key).toMatch(/^sdr_live_/);
    const r = spawnSync('npm', ['run', 'no-such-script-here'], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Missing script: "no-such-script-here"/);
  });

  it("`npm install` shows npm's own progress and errors: the project's .npmrc silences nothing", () => {
    const rc = readFileSync(join(root, '.npmrc'), 'utf8');
    expect(rc).not.toMatch(/^\s*(loglevel\s*=\s*(silent|error)|progress\s*=\s*false)\s*$/m);
    // the level npm runs at in this tree (the user's own ~/.npmrc left out)
    const r = spawnSync('npm', ['config', 'get', 'loglevel'], { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    expect(r.stdout.trim()).toBe('notice');
  });

  const runnable = blocks.filter((b) => b.lang === 'sh' && !b.code.includes('npm install') && !b.code.includes('npm run -s sandbox'));
  it.each(runnable.map((b, i) => [i + 1, b.code.trim().split('\n')[0]] as const))('block %i runs: %s', (i) => {
    const b = runnable[i - 1];
    const script = b.code.replaceAll('npx loupe', bin).replaceAll('http://127.0.0.1:8787', sb.url);
    const r = sh(script);
    expect(r.status, `${script}\n--- stderr:\n${r.stderr}`).toBe(0);
  });

  it('the cron line runs (its folder this tree, its base URL the sandbox)', () => {
    const cron = blocks.find((b) => b.lang === 'cron')!.code.trim();
    const command = cron.split(/\s+/).slice(5).join(' ');
    const script = command.replace('"$HOME/loupe"', JSON.stringify(root)).replace('https://api.example.com', sb.url);
    // the curl block above ran the sandbox low on credits on purpose (120); a cron job runs on a funded account
    expect(sh(`curl -s -X POST "${sb.url}/__admin/balance" -H 'content-type: application/json' -d '{"balance": 10000}'`).status).toBe(0);
    const r = sh(script, { LOUPE_API_KEY: sb.key });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'loupe-watch.log'), 'utf8')).toMatch(/brands: done/);
  });
});
