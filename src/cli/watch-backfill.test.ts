/**
 * Issue 14 #8 (command line): `loupe watch add … --backfill all|<pages>|<YYYY-MM-DD>` chooses how
 * deep the first run reads, prints its estimate before anything is spent, and refuses a date on a
 * feed a date cannot bound.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
let home: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, balance: 100_000, freeCalls: 0 });
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-bf-'));
});
afterAll(async () => {
  await sb.close();
});

const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });

describe('loupe watch add --backfill', () => {
  it('N pages: the estimate comes first (nothing spent), the first run reads N pages', async () => {
    const before = sb.admin.charges().length;
    const r = await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=deep_history', '--list', 'deep', '--backfill', '3']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/Next run \(nothing spent yet\): 60–1,020 credits over 3 request\(s\); first run reads 3 page\(s\)/);
    expect(sb.admin.charges().length).toBe(before);
    const run = await loupe(['watch', 'run', 'deep', '--yes', '--json']);
    expect(run.code).toBe(0);
    const pages = (JSON.parse(run.out) as Array<{ watches: Array<{ pages: number }> }>)[0].watches[0].pages;
    expect(pages).toBe(3);
  });

  it('a date bounds a date-ordered feed (since on every page); refused elsewhere; bad values are usage errors', async () => {
    const ok = await loupe([
      'watch',
      'add',
      'photo_net/profile/posts',
      '-p',
      'handle=since_case',
      '--list',
      'since',
      '--backfill',
      '2024-01-01',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.err).toMatch(/everything since 2024-01-01/);
    const list = JSON.parse((await loupe(['watch', 'list', '--json'])).out) as Array<{
      name: string;
      firstRunPages: number;
      watches: Array<{ params: Record<string, string> }>;
    }>;
    const l = list.find((x) => x.name === 'since');
    expect(l?.firstRunPages).toBe(100);
    expect(l?.watches[0].params.since).toBe('2024-01-01');
    const refused = await loupe([
      'watch',
      'add',
      'forum_net/search/comments',
      '-p',
      'query=kettle',
      '--list',
      'x',
      '--backfill',
      '2024-01-01',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/not a date-ordered feed/);
    expect((await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=a', '--list', 'y', '--backfill', '500'])).code).toBe(2);
    expect((await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=a', '--list', 'y', '--backfill', 'lots'])).code).toBe(2);
    const all = await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=all_case', '--list', 'all', '--backfill', 'all']);
    expect(all.err).toMatch(/everything \(up to 100 pages\)/);
  });

  it('adding to an existing list appends: three adds with --backfill all → 3 watches, and only what a flag names changes (issue 24 #1)', async () => {
    const add = (handle: string, ...flags: string[]) =>
      loupe(['watch', 'add', 'photo_net/profile/posts', '-p', `handle=${handle}`, '--list', 'grows', ...flags]);
    const first = await add('one', '--backfill', 'all', '--budget', '900', '--every', '12h');
    expect(first.code).toBe(0);
    expect((await add('two', '--backfill', 'all')).code).toBe(0);
    const third = await add('three', '--backfill', 'all');
    expect(third.code).toBe(0);
    expect(third.err).toMatch(/\(3 watch\(es\), every 12 hours\)/);
    type L = {
      name: string;
      budgetPerRun: number | null;
      budgetPerMonth: number | null;
      schedule: unknown;
      firstRunPages: number;
      watches: Array<{ watchId: string; params: Record<string, string> }>;
    };
    const read = async () => (JSON.parse((await loupe(['watch', 'list', '--json'])).out) as L[]).find((x) => x.name === 'grows')!;
    const l = await read();
    expect(l.watches.map((w) => w.params.handle)).toEqual(['one', 'two', 'three']);
    expect(l).toMatchObject({ budgetPerRun: 900, budgetPerMonth: null, schedule: { everyHours: 12 }, firstRunPages: 100 });
    // a flag changes what it names: the month budget, and nothing else (the watches keep their ids)
    expect((await add('four', '--month-budget', '5000')).code).toBe(0);
    const after = await read();
    expect(after.watches.slice(0, 3)).toEqual(l.watches);
    expect(after).toMatchObject({ budgetPerRun: 900, budgetPerMonth: 5000, schedule: { everyHours: 12 }, firstRunPages: 100 });
  });
});
