/**
 * The analysis index built by its worker thread (AnalysisIndex.warm with `worker`): the same index
 * as a build on the thread, also when the app ingests new posts and re-fetches indexed ones while
 * the worker builds (each slice reads its items under the write lock and re-checks the watermark);
 * the app's connection answers from the items meanwhile and writes nothing to the index; on Linux
 * the worker thread runs at a lower CPU priority; stop() ends it with the archive intact.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { mulberry32 } from '../../shared/random';
import { AnalysisIndex } from './analysis-index';
import { frequencyTable } from './frequency';
import { NICE } from './index-wire';

const dir = mkdtempSync(join(tmpdir(), 'loupe-index-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WORDS = ['kettle', 'coffee', 'morning', 'review', 'price', 'launch', 'bank', 'america', 'travel', 'paris', 'the', 'of'];

function batch(from: number, n: number, seed: number, likes = 0) {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 8 }, () => WORDS[Math.floor(r() * WORDS.length)]);
    const k = from + i;
    return {
      platform: k % 2 ? 'photo_net' : 'micro_net',
      kind: 'post',
      record: post({
        id: String(9_000_000_000_000_000_000n + BigInt(k)),
        text: `${words.join(' ')} #${WORDS[k % 7]} @user${k % 13}`,
        likes: likes + (k % 5),
        author: { id: `a${k % 17}`, username: `user${k % 17}`, display_name: null },
        published_at: new Date(Date.UTC(2024, 0, 1) + (k % 90) * 86_400_000).toISOString(),
      }),
    };
  });
}

const dump = (a: Archive): unknown => [
  testDb(a)
    .prepare(
      'SELECT field, term, docs, occ, first, last, views, likes, comments, shares, saves, engagement FROM an_terms ORDER BY field, term',
    )
    .all(),
  testDb(a).prepare('SELECT ff, day, platform, kind, value, n FROM an_daily ORDER BY ff, day, platform, kind, value').all(),
  testDb(a).prepare('SELECT field, day, rid, hex(data) AS d FROM an_item_terms ORDER BY field, day, rid').all(),
  testDb(a)
    .prepare(
      'SELECT k.platform, k.akey, t.kind, t.n, t.first, t.last, t.views, t.likes, t.engagement FROM an_author_totals t JOIN an_author_keys k ON k.id = t.ak ORDER BY 1, 2, 3',
    )
    .all(),
];

/** threads of this process and their nice values (Linux) */
function niceValues(): number[] {
  return readdirSync('/proc/self/task').map((t) => Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ')[16]));
}

const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
});
let files = 0;
function fileArchive(): Archive {
  const a = openArchive(join(dir, `a${++files}.db`));
  open.push(a);
  return a;
}

describe('analysis index worker', () => {
  it('builds in a worker the index a build on the thread makes, while the app ingests and re-fetches', async () => {
    const a = fileArchive();
    a.ingestItems(batch(0, 2_000, 1), { callId: 'seed', source: 'test' });
    const index = new AnalysisIndex(a, { worker: true, nice: 0 });
    const building = index.warm();
    // the app's connection answers from the items and leaves the index to the worker
    const table = frequencyTable(a, { query: { platforms: ['photo_net'] }, field: 'hashtags', limit: 5 }, index);
    expect(table.rows.length).toBeGreaterThan(0);
    expect(index.catchUp(Infinity)).toBe(false);
    // new posts and a re-fetch of indexed ones (more likes) while the worker builds
    for (let k = 0; k < 4; k++) {
      a.ingestItems(batch(2_000 + k * 100, 100, 2 + k), { callId: `more-${k}`, source: 'test' });
      a.ingestItems(batch(k * 300, 50, 1, 1_000), { callId: `again-${k}`, source: 'test' });
      await new Promise((r) => setTimeout(r, 30));
    }
    await building;
    expect(index.catchUp(Infinity)).toBe(true);
    expect(index.current() && index.authorsCurrent()).toBe(true);

    const whole = fileArchive();
    const ids = (testDb(a).prepare('SELECT raw FROM items ORDER BY rid').all() as Array<{ raw: string }>).map(
      (r) => JSON.parse(r.raw) as Record<string, unknown>,
    );
    whole.ingestItems(
      ids.map((record) => ({ platform: BigInt(record.id as string) % 2n ? 'photo_net' : 'micro_net', kind: 'post', record })),
      { callId: 'whole', source: 'test' },
    );
    const one = new AnalysisIndex(whole);
    expect(one.catchUp(Infinity)).toBe(true);
    expect(dump(a)).toEqual(dump(whole));
  }, 120_000);

  it.runIf(process.platform === 'linux')(
    'runs at a lower CPU priority on Linux, and stops with the archive intact',
    async () => {
      const a = fileArchive();
      a.ingestItems(batch(0, 3_000, 7), { callId: 'seed', source: 'test' });
      const index = new AnalysisIndex(a, { worker: true });
      // relative to this thread's own nice value: the same test under `nice -n 5 npm test`
      const lowered = Math.min(19, getPriority() + NICE);
      expect(niceValues()).not.toContain(lowered);
      const building = index.warm();
      let seen = false;
      for (let k = 0; k < 600 && !seen; k++) {
        seen = niceValues().includes(lowered);
        if (!seen) await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen).toBe(true);
      await index.stop();
      await building;
      expect(niceValues()).not.toContain(lowered);
      expect(a.count({})).toBe(3_000);
      // a later build (on the thread here: the worker was stopped, not failed) finishes the index
      const again = new AnalysisIndex(a, { worker: true, nice: 0 });
      await again.warm();
      expect(again.current() && again.authorsCurrent()).toBe(true);
    },
    120_000,
  );

  it('does not hold a process open: one that started a build and has nothing else to do exits, the build unfinished (issue 30)', () => {
    const a = fileArchive();
    a.ingestItems(batch(0, 3_000, 9), { callId: 'seed', source: 'test' });
    const file = a.path;
    a.close();
    open.splice(open.indexOf(a), 1);
    const script = join(dir, 'start-builder.ts');
    const builder = join(import.meta.dirname, 'index-builder.ts');
    writeFileSync(
      script,
      `import { startIndexBuilder } from ${JSON.stringify(builder)};\nconst b = startIndexBuilder({ file: ${JSON.stringify(file)}, nice: 0 });\nif (!b) process.exit(3);\nb.done.then((ok) => console.log(ok ? 'built' : 'stopped'));\n`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 100_000 });
    expect(r.status).toBe(0);
    // it exited without waiting for the build (it would have printed 'built')
    expect(r.stdout).toBe('');
    const b = openArchive(file);
    open.push(b);
    expect(new AnalysisIndex(b).current()).toBe(false);
  }, 120_000);
});
