/**
 * `npm run bench -- --only cli` (issue 26): how long the built command line takes to start, as a
 * cron job sees it — whole processes, start-up included — side by side with the sqlite3 program
 * on the same archive (`sqlite3 loupe.db 'select 1'`), bare Node (`node -e 0`) and the command line
 * run from its TypeScript sources through tsx (how `loupe` ran before it was built).
 *
 * The commands run in turn (A B C … A B C …), so a change in the machine's load touches them all;
 * each figure is the median of the runs' wall times. Target: `loupe --help` and
 * `loupe library --limit 1` under 0.5 s on an idle machine (the load average is in the notes).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive } from '../src/core/archive';
import { post } from '../src/core/archive/test-fixtures';
import { archivePath } from '../src/core/paths';
import { buildCli } from '../scripts/build-cli.mjs';
import type { Bench, BenchContext, Result } from './types';

const root = join(import.meta.dirname, '..');
const median = (a: number[]): number => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** CPU seconds of this process's children that were waited for (Linux: /proc), else null. */
function childCpuMs(): number | null {
  try {
    // fields after the command name: state is 3rd, cutime the 16th and cstime the 17th field
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(f[13]) + Number(f[14])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** One whole process: its wall time and (on Linux) its CPU time, user + system. */
function timeOnce(cmd: string, args: string[], env: NodeJS.ProcessEnv): { wall: number; cpu: number | null } {
  const c0 = childCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const c1 = childCpuMs();
  return { wall, cpu: c0 === null || c1 === null ? null : c1 - c0 };
}

export const name = 'cli';

export async function run(ctx: BenchContext): Promise<Result[]> {
  const built = await buildCli({ quiet: true });
  ctx.log(`built the command line: ${built.files} files, ${(built.bytes / 1024).toFixed(0)} KiB`);
  const dir = mkdtempSync(join(tmpdir(), 'loupe-cli-bench-'));
  try {
    const home = join(dir, 'home');
    mkdirSync(home);
    const n = ctx.quick ? 2_000 : 20_000;
    const a = openArchive(archivePath(home));
    for (let start = 0; start < n; start += 5_000)
      a.ingestItems(
        Array.from({ length: Math.min(5_000, n - start) }, (_, k) => {
          const i = start + k;
          return {
            platform: i % 2 ? 'photo_net' : 'micro_net',
            kind: 'post',
            record: post({ id: String(8_000_000_000_000_000_000n + BigInt(i)), text: `post ${i} about coffee #brew`, likes: i % 500 }),
          };
        }),
        { callId: `seed-${start}`, source: 'bench' },
      );
    a.close();
    const env = { PATH: process.env.PATH, HOME: dir, LOUPE_HOME: home, LOUPE_API_KEY: '' };
    const bin = join(root, 'bin', 'loupe.js');
    const tsx = join(root, 'node_modules', '.bin', 'tsx');
    const hasSqlite = spawnSync('sqlite3', ['-version']).status === 0;
    const commands: Array<[string, string, string[]]> = [
      ['loupe --help', process.execPath, [bin, '--help']],
      ['loupe --version', process.execPath, [bin, '--version']],
      ['loupe library --limit 1', process.execPath, [bin, 'library', '--limit', '1']],
      ['node -e 0', process.execPath, ['-e', '0']],
      ...(hasSqlite ? [["sqlite3 loupe.db 'select 1'", 'sqlite3', [archivePath(home), 'select 1']] as [string, string, string[]]] : []),
      ['tsx src/cli/main.ts --help (before: sources)', tsx, [join(root, 'src', 'cli', 'main.ts'), '--help']],
      ['tsx src/cli/main.ts library --limit 1 (before)', tsx, [join(root, 'src', 'cli', 'main.ts'), 'library', '--limit', '1']],
    ];
    for (const [, cmd, args] of commands) timeOnce(cmd, args, env); // warm the file cache and the archive
    const runs = ctx.quick ? 3 : 11;
    const times = new Map<string, number[]>(commands.map(([label]) => [label, []]));
    const cpu = new Map<string, number[]>(commands.map(([label]) => [label, []]));
    const load0 = loadavg()[0];
    for (let i = 0; i < runs; i++)
      for (const [label, cmd, args] of commands) {
        const t = timeOnce(cmd, args, env);
        times.get(label)?.push(t.wall);
        if (t.cpu !== null) cpu.get(label)?.push(t.cpu);
      }
    const load = `load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; median of ${runs}, interleaved`;
    const m = (label: string): number => median(times.get(label) ?? []);
    // CPU time: what the command itself costs, which a loaded machine inflates less than its wall time
    const cpuNote = (label: string): string => {
      const c = cpu.get(label) ?? [];
      return c.length === runs ? `CPU ${median(c).toFixed(0)} ms; ` : '';
    };
    const sqlite = hasSqlite ? m("sqlite3 loupe.db 'select 1'") : null;
    const out: Result[] = [];
    for (const [label] of commands) {
      const ms = m(label);
      const gated = label === 'loupe --help' || label === 'loupe library --limit 1';
      out.push({
        metric: `${label}: wall time`,
        value: ms,
        unit: 'ms',
        ...(gated ? { target: '< 500 ms (idle machine)', ok: ms < 500 } : {}),
        note: `${cpuNote(label)}${label.startsWith('loupe') && sqlite ? `${(ms / sqlite).toFixed(1)}× sqlite3's ${sqlite.toFixed(0)} ms; ` : ''}${load}; ${n.toLocaleString('en-US')} posts`,
      });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default { name, run } satisfies Bench;
