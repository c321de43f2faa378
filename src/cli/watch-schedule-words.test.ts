/**
 * Issue 27 #20: a schedule reads in words ("every minute", not "every 0.016666666666666666 h"), and
 * a list scheduled without a per-run budget says, when the schedule is set, that its scheduled runs
 * are skipped as needing approval — and how to let them run.
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
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-words-'));
});
afterAll(async () => {
  await sb.close();
});

const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });

describe('schedules in words (issue 27 #20)', () => {
  it('every 1m reads "every minute"; without a budget the add and the list say scheduled runs are skipped; a budget clears it', async () => {
    const add = await loupe(['watch', 'add', 'micro_net/search/tweets', '-p', 'query=kettle', '--list', 'minutely', '--every', '1m']);
    expect(add.code).toBe(0);
    expect(add.err).toMatch(/every minute/);
    expect(add.err).toMatch(/budget per run/);
    expect(add.err).toMatch(/skipped as needing approval/);
    const list = await loupe(['watch', 'list']);
    expect(list.out).toMatch(/minutely .*every minute/);
    expect(list.out).not.toMatch(/0\.0166|\d\.\d+ h/);
    expect(list.out).toMatch(/note: .*skipped as needing approval/);

    const budgeted = await loupe([
      'watch',
      'add',
      'micro_net/search/tweets',
      '-p',
      'query=teapot',
      '--list',
      'minutely',
      '--budget',
      '500',
    ]);
    expect(budgeted.code).toBe(0);
    expect(budgeted.err).not.toMatch(/skipped as needing approval/);
    const after = await loupe(['watch', 'list']);
    expect(after.out).not.toMatch(/note:/);
    const json = JSON.parse((await loupe(['watch', 'list', '--json'])).out) as Array<{ name: string; scheduleNote: string | null }>;
    expect(json.find((w) => w.name === 'minutely')?.scheduleNote).toBeNull();
  });
});
