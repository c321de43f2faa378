/**
 * Issue 30: a command-line query exits once its answer is out. On an archive whose analysis index
 * is not built, `loupe analyze top` answered from the items and then lived until a background
 * build had indexed the whole archive (the index worker was unref()ed before its 'message'
 * listener, which refs it again). The index builds in the app or in `loupe archive index`.
 */
import { childOutput } from './child-output';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { SYNC_BUDGET } from '../core/analysis/analysis-index';

const BIN = join(process.cwd(), 'bin/loupe.js');
const dir = mkdtempSync(join(tmpdir(), 'loupe-analyze-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code, out, err } = await childOutput(process.execPath, [BIN, ...args], { env: { ...process.env, LOUPE_HOME: dir } });
  return { code, stdout: out, stderr: err };
}

/** the index's watermark (items taken in), 0 when it was never started */
function indexed(): number {
  const db = new Database(archivePath(dir), { readonly: true });
  try {
    const t = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'an_state'").get();
    return t ? ((db.prepare("SELECT v FROM an_state WHERE k = 'watermark'").pluck().get() as number | undefined) ?? 0) : 0;
  } finally {
    db.close();
  }
}

describe('a command-line query on an archive without its analysis index', () => {
  const n = SYNC_BUDGET + 1_500; // more than a read takes in: the old code built the rest in the background
  it('answers and exits without building the index; `loupe archive index` builds it with progress', async () => {
    const a = openArchive(archivePath(dir));
    for (let s = 0; s < n; s += 500) {
      const items = Array.from({ length: 500 }, (_, i) => ({
        platform: 'photo_net',
        kind: 'post',
        record: post({ id: String(9_000_000_000_000_000_000n + BigInt(s + i)), text: `kettle review ${s + i} #brew${(s + i) % 7}` }),
      }));
      a.ingestItems(items, { callId: `exit-${s}`, source: 'test' });
    }
    a.close();

    const top = await run(['analyze', 'top', '--field', 'hashtags', '--limit', '3']);
    expect(top.stderr).toBe('');
    expect(top.code).toBe(0);
    // the analysis CSV as exports write it (issue 26): a BOM, every text cell quoted
    expect(top.stdout.split('\r\n')[0]).toMatch(/^\ufeff"term","items",/);
    expect(top.stdout).toMatch(new RegExp(`\r\n"#brew0","?${Math.ceil(n / 7)}"?,`));
    // it exited with its answer: nothing was built behind it
    expect(indexed()).toBe(0);

    const build = await run(['archive', 'index']);
    expect(build.code).toBe(0);
    expect(build.stderr).toMatch(/Building the analysis index: \d+ %/);
    expect(build.stdout).toMatch(new RegExp(`^Built the analysis index of ${n.toLocaleString('en-US')} items in`));
    expect(indexed()).toBe(n);
    const again = await run(['archive', 'index']);
    expect(again.stdout).toBe(`The analysis index is current (${n.toLocaleString('en-US')} items).\n`);
  }, 180_000);
});
