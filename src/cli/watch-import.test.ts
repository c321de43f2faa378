/**
 * `loupe watch import FILE --list NAME --endpoint platform/path` (issue 16, bulk watches): the plan
 * and one estimate printed before anything is created; duplicates and malformed lines reported by
 * line; --dry-run creates nothing; without --yes (and no terminal to ask) nothing is created;
 * a CSV from standard input; an existing list keeps its watches and reports the ones it has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
let home: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, balance: 100_000, freeCalls: 0 });
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-import-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(home, { recursive: true, force: true });
});

const loupe = (args: string[], stdin?: string) =>
  runCaptured(args, { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key }, stdin);
const lists = async () =>
  JSON.parse((await loupe(['watch', 'list', '--json'])).out) as Array<{
    name: string;
    firstRunPages: number;
    watches: Array<{ params: Record<string, string>; label: string }>;
  }>;

describe('loupe watch import', () => {
  it('prints the plan and one estimate, creates nothing on --dry-run or without --yes, then imports', async () => {
    const file = join(home, 'accounts.txt');
    writeFileSync(file, 'nasa\n@esa\nNASA\nhttps://photo-net.example/p/99\n\n# done\njaxa\n');
    const charges = sb.admin.charges().length;
    const dry = await loupe([
      'watch',
      'import',
      file,
      '--list',
      'Agencies',
      '--endpoint',
      'photo_net/profile/posts',
      '--backfill',
      '2',
      '--dry-run',
    ]);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain('5 line(s) read: 3 account(s) to add to a new watchlist "Agencies" on photo_net/profile/posts.');
    expect(dry.err).toContain('line 3: NASA — same account as line 1');
    expect(dry.err).toMatch(/line 4: "https:\/\/photo-net\.example\/p\/99" — not an account's address/);
    expect(dry.err).toMatch(
      /Estimate for the whole import \(nothing is spent by importing\): the imported watches' first run, 120–2,040 credits over 6 request\(s\)/,
    );
    expect(dry.err).toContain('Dry run: nothing created.');
    expect(await lists()).toEqual([]);

    const unasked = await loupe(['watch', 'import', file, '--list', 'Agencies', '--endpoint', 'photo_net/profile/posts']);
    expect(unasked.code).toBe(5);
    expect(unasked.err).toContain('Nothing created');
    expect(await lists()).toEqual([]);

    const ok = await loupe([
      'watch',
      'import',
      file,
      '--list',
      'Agencies',
      '--endpoint',
      'photo_net/profile/posts',
      '--backfill',
      '2',
      '--yes',
    ]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.err).toContain('Created watchlist "Agencies" with 3 watch(es) (3 in all). Nothing spent.');
    const l = (await lists()).find((x) => x.name === 'Agencies')!;
    expect(l.watches.map((w) => [w.params.handle, w.label])).toEqual([
      ['nasa', '@nasa'],
      ['esa', '@esa'],
      ['jaxa', '@jaxa'],
    ]);
    expect(l.firstRunPages).toBe(2);
    expect(sb.admin.charges().length).toBe(charges); // importing spends nothing
  });

  it('a CSV on standard input into the existing list: its watches are reported as duplicates, the new ones added', async () => {
    const csv = 'name,Handle,followers\n"NASA, the agency",nasa,10\nKari,kari,5\nNobody,,0\n';
    const r = await loupe(['watch', 'import', '-', '--list', 'Agencies', '--endpoint', 'photo_net/profile/posts', '--yes', '--json'], csv);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('(CSV, column "handle")');
    expect(r.err).toContain('line 2: nasa — already in the watchlist');
    expect(r.err).toContain('line 4: "Nobody,,0" — no handle in this row');
    const j = JSON.parse(r.out) as { added: number; plan: { duplicates: unknown[]; problems: unknown[] } };
    expect(j.added).toBe(1);
    expect(j.plan.duplicates).toHaveLength(1);
    expect(j.plan.problems).toHaveLength(1);
    expect((await lists()).find((x) => x.name === 'Agencies')!.watches.map((w) => w.params.handle)).toEqual([
      'nasa',
      'esa',
      'jaxa',
      'kari',
    ]);
  });

  it('usage errors: nothing to import, a single-answer endpoint, a missing file, --backfill on an existing list', async () => {
    const nothing = await loupe(
      ['watch', 'import', '-', '--list', 'Agencies', '--endpoint', 'photo_net/profile/posts', '--yes'],
      'nasa\n@kari\n',
    );
    expect(nothing.code).toBe(2);
    expect(nothing.err).toContain('Nothing to import');
    const single = await loupe(['watch', 'import', '-', '--list', 'X', '--endpoint', 'photo_net/profile', '--yes'], 'nasa\n');
    expect(single.code).toBe(2);
    expect(single.err).toMatch(/returns a single answer, not a list/);
    const missing = await loupe(['watch', 'import', join(home, 'nope.txt'), '--list', 'X', '--endpoint', 'photo_net/profile/posts']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no such file');
    const depth = await loupe(
      ['watch', 'import', '-', '--list', 'Agencies', '--endpoint', 'photo_net/profile/posts', '--backfill', 'all'],
      'zed\n',
    );
    expect(depth.code).toBe(2);
    expect(depth.err).toContain('--backfill sets a new list');
  });
});
