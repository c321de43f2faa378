/**
 * The built command line (issue 26): `bin/loupe.js` runs the JavaScript in out/cli (built by
 * scripts/build-cli.mjs: `npm install`'s prepare step, `npm run build`, and vitest's global setup),
 * never tsx; `--help` and `--version` read no core module and no heavy package; a command loads
 * only what it uses; the worker threads run from the build.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOutput, type ChildOutput } from './child-output';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { runCaptured } from './run-captured';

const BIN = resolve('bin/loupe.js');
let dir: string;
let hook: string;

/** Runs the built CLI; `loaded` lists every file module the process read (a module hook). */
async function loupe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildOutput & { loaded: string[] }> {
  const log = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, '');
  const r = await childOutput(process.execPath, ['--import', hook, BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: dir, LOUPE_HOME: join(dir, 'home'), LOUPE_API_KEY: '', LOADED_LOG: log, ...env },
  });
  return { ...r, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** packages from node_modules, and the build's chunks of the core's heavy parts (named after their module) */
const HEAVY =
  /\/node_modules\/(tsx|esbuild|exceljs|undici|graphology[^/]*|hyparquet[^/]*|@xmldom)\/|\/chunks\/(undici|sandbox|xlsx|parquet|network-export|network-source)-/;
const pkgVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

/** the sources the loaded files of the build hold (out/cli/modules.json, written by scripts/build-cli.mjs) */
function sourcesOf(loaded: string[]): string[] {
  const modules = JSON.parse(readFileSync('out/cli/modules.json', 'utf8')) as Record<string, string[]>;
  return loaded.flatMap((f) => modules[f.replace(/^.*\/out\/cli\//, '')] ?? []);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-built-'));
  hook = join(dir, 'hook.mjs');
  // records the URL of every module the process loads (resolve hook, in the loader's thread)
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) appendFileSync(process.env.LOADED_LOG, r.url + '\\n'); return r; }\n`,
  );
  writeFileSync(
    hook,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** a data folder of 5,200 items (past the 5,000 rows after which an export starts workers), made once */
let big: string | null = null;
function bigHome(): string {
  if (big) return big;
  const home = join(dir, 'big');
  mkdirSync(home);
  const a = openArchive(archivePath(home));
  const rows = Array.from({ length: 5_200 }, (_, i) => ({
    platform: 'photo_net',
    kind: 'post',
    record: post({ id: String(9_000_000_000_000_000_000n + BigInt(i)), text: `=cmd|' /C calc'!A0 ${i} "q" , é`, likes: i }),
  }));
  a.ingestItems(rows, { callId: 'seed', source: 'test' });
  a.close();
  return (big = home);
}

/**
 * Each test starts the built CLI one to three times, and the last also seeds 5,200 items and runs
 * the source CLI (tsx) beside it: alone at load ~20 on 2 cores the spawns take 3–7 s and the export
 * test over 30 s (it timed out at vitest's default 30 s beside two other test files), so CI's
 * loaded 2-core machine gets ample margin (time limits, not expectations of speed).
 */
describe('the built command line', { timeout: 90_000 }, () => {
  it('--version and --help: the build alone, no TypeScript, no core, no heavy package', async () => {
    const v = await loupe(['--version']);
    expect(v.code, v.err).toBe(0);
    expect(v.out.trim()).toBe(pkgVersion);
    const h = await loupe(['--help']);
    expect(h.code, h.err).toBe(0);
    expect(h.out).toMatch(/Usage: loupe/);
    expect(h.out).toMatch(/--version/);
    for (const f of [...v.loaded, ...h.loaded]) {
      expect(f, 'a module outside the build').toMatch(/\/(bin\/loupe\.js|out\/cli\/.*\.js)$/);
      expect(f).not.toMatch(/context-runtime|sandbox|\.ts$/);
    }
  });

  it('what --help and library read: no sandbox, no zod locale but English, no GEXF writer (issue 26: start-up)', async () => {
    const h = await loupe(['--help']);
    const l = await loupe(['library', '--limit', '1']);
    expect(h.code, h.err).toBe(0);
    expect(l.code, l.err).toBe(0);
    for (const [what, r] of [
      ['--help', h],
      ['library', l],
    ] as const) {
      const sources = sourcesOf(r.loaded);
      expect(sources.length, what).toBeGreaterThan(0);
      expect(
        sources.filter((f) => f.startsWith('src/sandbox/')),
        what,
      ).toEqual([]);
      expect(
        sources.filter((f) => /zod\/v4\/locales\/(?!en\.js$|index\.js$)/.test(f)),
        what,
      ).toEqual([]);
      expect(
        sources.filter((f) => /node_modules\/(@xmldom|graphology-gexf|xml-writer)\//.test(f)),
        what,
      ).toEqual([]);
    }
  });

  it('a CSV export reads no Parquet writer, no graph library and no bundle writer (issue 30: start-up)', async () => {
    const r = await loupe(['export', '--format', 'csv', '-o', join(dir, 'empty.csv')]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/Exported 0 rows/);
    const sources = sourcesOf(r.loaded);
    expect(sources).toContain('src/core/export/formats.ts');
    expect(
      sources.filter((f) =>
        /node_modules\/(graphology[^/]*|hyparquet[^/]*|@xmldom)\/|src\/core\/export\/(parquet|bundle-|xlsx)|src\/core\/analysis\/network\.ts$/.test(
          f,
        ),
      ),
    ).toEqual([]);
  });

  it('a GEXF network from the build: the same bytes as the sources (graphology-gexf is CommonJS)', async () => {
    const home = join(dir, 'gexf');
    mkdirSync(home);
    const a = openArchive(archivePath(home));
    const texts = ['#coffee #tea', '#coffee #milk', '#tea #milk #coffee'];
    a.ingestItems(
      texts.map((text, i) => ({
        platform: 'photo_net',
        kind: 'post',
        record: post({ id: String(9_100_000_000_000_000_000n + BigInt(i)), text }),
      })),
      { callId: 'seed', source: 'test' },
    );
    a.close();
    const built = join(dir, 'built.gexf');
    // before: "Internal error: t is not a function", exit 1 (the chunk exports only `default`)
    const r = await loupe(['export', '--format', 'gexf', '--network', 'co-hashtag', '-o', built], { LOUPE_HOME: home });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/co-hashtag network of 3 nodes and 3 edges/);
    const src = join(dir, 'sources.gexf');
    const s = await runCaptured(['export', '--format', 'gexf', '--network', 'co-hashtag', '-o', src], {
      LOUPE_HOME: home,
      HOME: dir,
      LOUPE_API_KEY: '',
    });
    expect(s.code, s.err).toBe(0);
    expect(readFileSync(built).equals(readFileSync(src))).toBe(true);
  });

  it('library --limit 1 in a new data folder: loads no writer and no HTTP client', async () => {
    const r = await loupe(['library', '--limit', '1']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/0 matching item/);
    expect(r.loaded.filter((f) => HEAVY.test(f))).toEqual([]);
    expect(r.loaded.some((f) => /\/chunks\/context-runtime-/.test(f))).toBe(true);
    expect(r.loaded.filter((f) => f.endsWith('.ts'))).toEqual([]);
  });

  it(
    'an export past one thread runs its CSV workers from the build, started at once: the same bytes as the sources',
    { timeout: 240_000 },
    async () => {
      const home = bigHome();
      const built = join(dir, 'built.csv');
      const timeline = join(dir, 'built.timeline');
      const r = await loupe(['export', '--format', 'csv', '-o', built], { LOUPE_HOME: home, LOUPE_EXPORT_TIMELINE: timeline });
      expect(r.code, r.err).toBe(0);
      expect(r.loaded.some((f) => f.endsWith('out/cli/csv-worker.js'))).toBe(true);
      expect(r.loaded.filter((f) => /\/(tsx|esbuild)\//.test(f) || f.endsWith('.ts'))).toEqual([]);
      // the workers the command line started before loading its code (early-workers.ts) did the export
      const marks = readFileSync(timeline, 'utf8');
      // (lines `<ms> <thread> <cpu ms> <event>`; the main thread is thread 0)
      const lines = marks.split('\n').map((l) => l.split(' '));
      const main = lines.filter((l) => l[1] === '0').map((l) => l.slice(3).join(' '));
      expect(main.slice(0, 2)).toEqual(['origin', 'workers spawned']);
      expect(main.filter((m) => m.startsWith('workers '))).toEqual(['workers spawned', 'workers claimed']);
      expect(lines.filter((l) => l[1] !== '0' && l[3] === 'in').length).toBeGreaterThan(0);
      const src = join(dir, 'sources.csv');
      const s = await runCaptured(['export', '--format', 'csv', '-o', src], { LOUPE_HOME: home, HOME: dir, LOUPE_API_KEY: '' });
      expect(s.code, s.err).toBe(0);
      expect(readFileSync(built).equals(readFileSync(src))).toBe(true);
    },
  );

  it('an export that fails with its workers started at once: its error, its exit code, no file, no wait', async () => {
    const home = bigHome();
    const timeline = join(dir, 'failed.timeline');
    const missing = join(dir, 'no-such-folder', 'x.csv');
    const t0 = Date.now();
    const bad = await loupe(['export', '--format', 'csv', '-o', missing], { LOUPE_HOME: home, LOUPE_EXPORT_TIMELINE: timeline });
    expect(bad.code, bad.err).toBe(2);
    expect(bad.err).toMatch(/^loupe: The folder for --out does not exist: .*no-such-folder/m);
    expect(existsSync(dirname(missing))).toBe(false);
    const out = join(dir, 'columns.csv');
    const col = await loupe(['export', '--format', 'csv', '--columns', 'id,nope', '-o', out], {
      LOUPE_HOME: home,
      LOUPE_EXPORT_TIMELINE: timeline,
    });
    expect(col.code, col.err).toBe(2);
    expect(col.err).toMatch(/Unknown CSV column\(s\): nope/);
    expect(readdirSync(dir).filter((f) => f.startsWith('columns.') || f.startsWith('.columns.'))).toEqual([]);
    // both started their workers, neither took them: ended with the command, the process not kept
    const marks = readFileSync(timeline, 'utf8');
    expect(marks.match(/ workers spawned$/gm)).toHaveLength(2);
    expect(marks).not.toMatch(/workers claimed/);
    expect(marks.match(/ exit$/gm)).toHaveLength(2);
    // a margin for a loaded CI machine; a process kept alive by its workers would never end
    expect(Date.now() - t0).toBeLessThan(60_000);
  });
});
