/**
 * Issue 14 #12: `loupe call -o FILE` on a single-object endpoint writes the file and exits 0 (the
 * sink was finished twice: the second rename failed and a success exited 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
let home: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, balance: 5000, freeCalls: 0 });
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-out-'));
});
afterAll(async () => {
  await sb.close();
});

const loupe = (args: string[]) => runCaptured(args, { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });

describe('loupe call -o on a single-object endpoint', () => {
  it('writes the file, leaves no partial file, exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-out-'));
    const file = join(dir, 'profile.jsonl');
    const r = await loupe(['call', 'photo_net/profile', '--param', 'handle=nasa', '--yes', '-o', file]);
    expect(r.err).not.toMatch(/ENOENT|rename/);
    expect(r.code).toBe(0);
    expect(existsSync(file)).toBe(true);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toBeTypeOf('object');
    expect(readdirSync(dir)).toEqual(['profile.jsonl']);
  });
});
