/**
 * `loupe resume` spends like `loupe call` and is approved like it (docs/cli.md "Budget rule"):
 * without --pages the resumed walk runs to the end of the list, so without a terminal it needs
 * --yes or --max-credits — before, it spent with no approval at all (and had no --yes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
let home: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 9, balance: 100_000, freeCalls: 0 });
  home = mkdtempSync(join(tmpdir(), 'loupe-resume-yes-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(home, { recursive: true, force: true });
});
const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });
const pages = (handle: string) => sb.admin.charges().filter((c) => c.params.handle === handle && c.params.dry_run === undefined).length;

describe('loupe resume asks before it spends', () => {
  it('open-ended or above the threshold: refused without --yes (exit 5, nothing sent); --yes, --max-credits or a small --pages go on', async () => {
    const first = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=resume_yes', '--pages', '1', '--yes']);
    expect(first.code, first.err).toBe(0);
    const listed = JSON.parse((await loupe(['walks', '--json'])).out) as Array<{ walkId: string; params: unknown }>;
    // the walk's parameters as an object, not JSON text inside JSON
    expect(listed[0].params).toEqual({ handle: 'resume_yes' });
    const walkId = listed[0].walkId;
    expect(pages('resume_yes')).toBe(1);

    const refused = await loupe(['resume', walkId]);
    expect(refused.code, refused.err).toBe(5);
    expect(refused.err).toMatch(/open-ended .*Not approved: re-run with --yes or bound it with --max-credits N\. Nothing was spent\./);
    const big = await loupe(['resume', walkId, '--pages', '8']);
    expect(big.code, big.err).toBe(5);
    expect(pages('resume_yes')).toBe(1); // nothing sent

    const small = await loupe(['resume', walkId, '--pages', '1', '--max-credits', '400']); // bounded by its own ceiling (20–340 a page)
    expect(small.code, small.err).toBe(0);
    expect(pages('resume_yes')).toBe(2);
    const yes = await loupe(['resume', walkId, '--pages', '8', '--yes']);
    expect(yes.code, yes.err).toBe(0);
    expect(pages('resume_yes')).toBeGreaterThan(2);
  }, 60_000);
});
