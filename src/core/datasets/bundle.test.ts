/**
 * Dataset bundles (bundle.ts, bundle-check.ts): export → import into another archive keeps every
 * item once, every answer once, the metric history and the annotations with their authors
 * (generated archives); verify names each kind of tampering — an edited cell, a dropped row, an
 * added row, an edited answer, an edited manifest, a missing or an added file — and checks the
 * answers against the archive that holds them.
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { exportBundle } from './bundle';
import { importBundle, verifyBundle } from './bundle-check';

const T0 = Date.UTC(2026, 0, 1);
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const EOL = '\r\n';
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'loupe-bundle-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Page = { platform: 'photo_net' | 'micro_net'; ids: number[]; likes: number };
function archiveOf(pages: Page[], author: string, file = ':memory:'): Archive {
  const a = openArchive(file, { author: () => author });
  pages.forEach((p, n) => {
    const rows = p.ids.map((id) => post({ id: `${id}`, likes: p.likes + id, published_at: new Date(T0 + id * 3_600_000).toISOString() }));
    a.storeResponse(listResponse(`call-${n}`, p.platform, 'profile/posts', rows, { fetchedAt: T0 + n * 60_000 }), 'test', null);
  });
  return a;
}
const opts = (out: string) => ({ out, query: {}, version: '0.1.0', variants: ['judgments-beside'], now: T0 + 86_400_000 });
const records = (a: Archive) =>
  a
    .listQuery({ limit: 1000 })
    .rows.map((r) => `${r.platform}/${r.kind}/${r.id}`)
    .sort();

describe('export → import round trip (generated archives)', () => {
  it('every item once, every answer once, history and annotations kept; a second import stores nothing', async () => {
    const page = fc.record({
      platform: fc.constantFrom('photo_net' as const, 'micro_net' as const),
      ids: fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 5 }),
      likes: fc.integer({ min: 0, max: 50 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(page, { minLength: 1, maxLength: 5 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 3 }),
        async (pages, tagged) => {
          const a = archiveOf(pages, 'ana');
          const keys = records(a);
          for (const k of tagged) {
            const [platform, kind, id] = keys[k % keys.length].split('/');
            a.addTag({ platform, kind, id }, `t${k % 3}`);
          }
          const out = join(tmp(), 'b');
          const m = await exportBundle(a, opts(out));
          expect(m.items.length).toBe(keys.length);
          expect((await verifyBundle(out, { archive: a })).problems).toEqual([]);
          const b = openArchive(':memory:', { author: () => 'bo' });
          const r = await importBundle(out, b, T0 + 2 * 86_400_000);
          expect(records(b)).toEqual(keys);
          expect(r.calls.stored).toBe(pages.length);
          for (const k of keys) {
            const [platform, kind, id] = k.split('/');
            const x = a.getItem(platform, kind, id)!;
            const y = b.getItem(platform, kind, id)!;
            expect(y.history).toEqual(x.history);
            expect(y.tags.sort()).toEqual(x.tags.sort());
            expect(y.annotationLog.map((l) => l.author)).toEqual(x.annotationLog.map((l) => l.author));
          }
          const again = await importBundle(out, b, T0 + 3 * 86_400_000);
          expect(again.calls).toEqual({ stored: 0, alreadyHeld: pages.length });
          expect(records(b)).toEqual(keys);
          a.close();
          b.close();
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);
});

// in memory: the rows on this thread, the manifest's items and the history scanned; in a file:
// the export workers' pass (groups of 2 rows) gives them (bundle-facts.ts)
describe.each([
  ['in memory', null],
  ['through the export workers', { threads: 1, groupSize: 2 }],
] as const)('verify names what was changed (%s)', (_, workers) => {
  let clean = '';
  const fresh = () => {
    const d = join(tmp(), 'copy');
    cpSync(clean, d, { recursive: true });
    return d;
  };
  it('finds an edited cell, a dropped row, an added row, an edited answer or manifest, a missing or an added file', async () => {
    const a = archiveOf(
      [
        { platform: 'photo_net', ids: [1, 2, 3], likes: 5 },
        { platform: 'micro_net', ids: [4, 5], likes: 9 },
      ],
      'ana',
      workers ? join(tmp(), 'a.db') : ':memory:',
    );
    a.setNote({ platform: 'photo_net', kind: 'post', id: '2' }, 'looks sponsored');
    clean = join(tmp(), 'clean');
    const m = await exportBundle(a, { ...opts(clean), ...workers });
    expect(await verifyBundle(clean)).toMatchObject({ ok: true, root: m.root_sha256 });

    const csvLines = (d: string) => readFileSync(join(d, 'items.csv'), 'utf8').split(EOL);
    const edit = fresh();
    writeFileSync(
      join(edit, 'items.csv'),
      csvLines(edit)
        .map((l, i) => (i === 2 ? l.replace(/"post (\d+)"/, '"post $1$1"') : l))
        .join(EOL),
    );
    const e = await verifyBundle(edit);
    expect(e.ok).toBe(false);
    expect(e.problems).toContain("items.csv: its SHA-256 differs from the manifest's: changed.");
    expect(e.problems.some((p) => /^items\.csv: line 3 \(\w+_net\/post\/\d\) differs from the row exported: edited\.$/.test(p))).toBe(true);

    const drop = fresh();
    const dl = csvLines(drop);
    const gone = dl.splice(3, 1)[0];
    writeFileSync(join(drop, 'items.csv'), dl.join(EOL));
    const d = await verifyBundle(drop);
    expect(d.problems.filter((p) => p.endsWith('dropped.'))).toHaveLength(1);
    expect(gone).toContain(d.problems.find((p) => p.endsWith('dropped.'))!.match(/the row of \w+\/post\/(\d+)/)![1]);

    const add = fresh();
    const al = csvLines(add);
    al.splice(2, 0, al[1].replace(/"1"/g, '"99"'));
    writeFileSync(join(add, 'items.csv'), al.join(EOL));
    expect(
      (await verifyBundle(add)).problems.some((p) =>
        /^items\.csv: line \d+ (is a row the manifest does not list|repeats).*added\.$/.test(p),
      ),
    ).toBe(true);

    const ans = fresh();
    const lines = readFileSync(join(ans, 'answers.jsonl'), 'utf8').split('\n');
    lines[1] = lines[1].replace('"likes":13', '"likes":1300');
    writeFileSync(join(ans, 'answers.jsonl'), lines.join('\n'));
    expect((await verifyBundle(ans)).problems).toContain(
      'answers.jsonl: line 2, the answer of call call-1 (micro_net/profile/posts), differs: edited.',
    );

    const man = fresh();
    const mj = JSON.parse(readFileSync(join(man, 'manifest.json'), 'utf8'));
    mj.calls[0].credits_used = 0;
    writeFileSync(join(man, 'manifest.json'), JSON.stringify(mj));
    expect((await verifyBundle(man)).problems).toContain(
      'manifest.json: its root hash does not match its contents: the manifest was edited.',
    );

    const miss = fresh();
    rmSync(join(miss, 'items.parquet'));
    appendFileSync(join(miss, 'extra.txt'), 'x');
    expect((await verifyBundle(miss)).problems).toEqual(
      expect.arrayContaining(['items.parquet: missing.', 'extra.txt: a file the manifest does not list: added.']),
    );

    // the root a methods section cites; the archive that holds the answers
    expect((await verifyBundle(clean, { root: 'f'.repeat(64) })).ok).toBe(false);
    const other = archiveOf([{ platform: 'photo_net', ids: [1, 2, 3], likes: 6 }], 'x');
    const vs = await verifyBundle(clean, { archive: other });
    expect(vs.problems).toContain("call call-0 (photo_net/profile/posts): the archive's answer differs from the bundle's.");
    expect(vs.problems.some((p) => p.startsWith('micro_net/post/4: not in the archive'))).toBe(true);
    // a bundle that does not verify is not imported
    const b = openArchive(':memory:');
    await expect(importBundle(edit, b, T0)).rejects.toThrow(/does not verify; nothing was imported/);
    expect(b.count({})).toBe(0);
    a.close();
  }, 60_000);

  it('import lists conflicting annotations and keeps this archive’s', async () => {
    const a = archiveOf([{ platform: 'photo_net', ids: [1, 2], likes: 5 }], 'ana');
    a.setNote({ platform: 'photo_net', kind: 'post', id: '1' }, 'theirs');
    const out = join(tmp(), 'n');
    await exportBundle(a, opts(out));
    const b = archiveOf([{ platform: 'photo_net', ids: [1], likes: 5 }], 'bo');
    b.setNote({ platform: 'photo_net', kind: 'post', id: '1' }, 'mine');
    const r = await importBundle(out, b, T0);
    expect(r.conflicts).toHaveLength(1);
    expect(r.conflicts[0]).toMatch(
      /^photo_net\/post\/1: note note: this archive has another value; the bundle's \("theirs", by ana\) was not written\.$/,
    );
    expect(b.getItem('photo_net', 'post', '1')!.note).toBe('mine');
    expect(r.calls.alreadyHeld).toBe(1); // the same call id: its answer is held, not stored twice
  });
});

describe('answers.jsonl', () => {
  it('each stored answer byte for byte as kept, its line and the file hashed as written (generated text)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 4 }), async (texts) => {
        const a = openArchive(':memory:', { author: () => 'ana' });
        texts.forEach((text, n) =>
          a.storeResponse(
            listResponse(`call-${n}`, 'photo_net', 'profile/posts', [post({ id: `${n + 1}`, text })], { fetchedAt: T0 + n }),
            'test',
            null,
          ),
        );
        const out = join(tmp(), 'b');
        const m = await exportBundle(a, opts(out));
        const file = readFileSync(join(out, 'answers.jsonl'));
        expect(m.files.find((f) => f.path === 'answers.jsonl')).toEqual({ path: 'answers.jsonl', sha256: sha(file), bytes: file.length });
        const lines = file.toString('utf8').split('\n').slice(0, -1);
        expect(lines).toEqual(m.calls.map((c) => a.datasets.storedAnswer(c.call_id)));
        expect(m.calls.map((c) => c.answer_sha256)).toEqual(lines.map((l) => sha(Buffer.from(l))));
        a.close();
      }),
      { numRuns: 8 },
    );
  });
});
