/**
 * Where a bundle keeps the service's labels and the analyst's overrides (issue 29: "kept apart";
 * docs/datasets.md "What a bundle holds"): the service's value as it sent it in items.jsonl's
 * record, the override beside it in the line's `overrides` and as an annotation row with its author;
 * the item tables' label columns show the value in effect (the override wins: the export's rule).
 */
import { parquetReadObjects } from 'hyparquet';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { exportBundle, LABELS, setSavedOf, type Manifest } from './bundle';
import { verifyBundle } from './bundle-check';
import { resolveTarget } from './recheck';

const T0 = Date.UTC(2026, 0, 1);
const dir = mkdtempSync(join(tmpdir(), 'loupe-bundle-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** a CSV of Loupe's (BOM, every cell quoted, CRLF, no line break inside these cells) as objects */
function csvObjects(file: string): Array<Record<string, string>> {
  const [head, ...rows] = readFileSync(file, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter(Boolean);
  const cells = (l: string) => l.split(',').map((c) => c.replace(/^"|"$/g, ''));
  const keys = cells(head);
  return rows.map((r) => Object.fromEntries(cells(r).map((v, i) => [keys[i], v])));
}

describe("a bundle's labels and overrides", () => {
  it("keeps the service's value in the records and the override, with its author, beside it", async () => {
    const a = openArchive(':memory:', { author: () => 'ana' });
    const rows = [1, 2].map((id) =>
      post({ id: `${id}`, likes: id, labels: { sponsored: { p: 0.9 } }, published_at: new Date(T0 + id * 3_600_000).toISOString() }),
    );
    a.storeResponse(listResponse('call-1', 'photo_net', 'profile/posts', rows, { fetchedAt: T0 }), 'test', null);
    a.overrideLabel({ platform: 'photo_net', kind: 'post', id: '1' }, 'sponsored', 'p', 0.125);
    const out = join(dir, 'b');
    await exportBundle(a, { out, query: {}, version: '0.1.0', variants: ['judgments-beside'], now: T0 + 86_400_000 });
    a.close();

    const lines = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const line = (id: string) => lines.find((l: { id: string }) => l.id === id);
    expect(line('1').record.computed.labels.sponsored.p).toBe(0.9);
    expect(line('1').overrides).toEqual({ sponsored: { p: 0.125 } });
    expect(line('2').record.computed.labels.sponsored.p).toBe(0.9);
    expect(line('2').overrides).toEqual({});

    expect(csvObjects(join(out, 'items.annotations.csv'))).toEqual([
      expect.objectContaining({ platform: 'photo_net', id: '1', type: 'override', name: 'sponsored.p', value: '0.125', author: 'ana' }),
    ]);

    const byId = (rs: Array<Record<string, unknown>>) => Object.fromEntries(rs.map((r) => [String(r.id), r['labels.sponsored.p']]));
    expect(byId(csvObjects(join(out, 'items.csv')))).toEqual({ '1': '0.125', '2': '0.9' });
    const pq = readFileSync(join(out, 'items.parquet'));
    const pqRows = (await parquetReadObjects({ file: pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) })) as Array<
      Record<string, unknown>
    >;
    expect(byId(pqRows)).toEqual({ '1': 0.125, '2': 0.9 });
  });
});

describe("a bundle of a saved set: the set's author and times", () => {
  it('keeps who saved the set and when, chained into the root hash, and says where the labels are', async () => {
    const a = openArchive(':memory:', { author: () => 'ana', clock: () => T0 + 5_000 });
    a.storeResponse(listResponse('call-1', 'photo_net', 'profile/posts', [post({ id: '1', likes: 1 })], { fetchedAt: T0 }), 'test', null);
    a.saveResultSet('Study', { platforms: ['photo_net'] });
    const t = resolveTarget(a, { set: 'Study' });
    const out = join(dir, 'set');
    const m = await exportBundle(a, {
      out,
      query: t.query,
      set: t.name,
      ...setSavedOf(t),
      version: '0.1.0',
      variants: ['judgments-beside'],
      now: T0 + 86_400_000,
    });
    a.close();
    expect(m.set).toBe('Study');
    expect(m.set_saved).toEqual({
      author: 'ana',
      created_at: new Date(T0 + 5_000).toISOString(),
      updated_at: new Date(T0 + 5_000).toISOString(),
    });
    expect(m.labels).toBe(LABELS);
    expect(await verifyBundle(out)).toMatchObject({ ok: true, root: m.root_sha256 });

    // the author edited in the manifest: the root no longer matches
    const file = join(out, 'manifest.json');
    const edited = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    edited.set_saved = { ...edited.set_saved!, author: 'someone else' };
    writeFileSync(file, JSON.stringify(edited, null, 1));
    const v = await verifyBundle(out);
    expect(v.ok).toBe(false);
    expect(v.problems.join(' ')).toMatch(/root/i);
  });

  it('a bundle of a query carries no set record', () => {
    const a = openArchive(':memory:');
    expect(setSavedOf(resolveTarget(a, { query: {} }))).toEqual({});
    a.close();
  });
});
