/**
 * docs/export.md's DuckDB recipes (`sql recipe=csv`, `sql recipe=parquet`), copied from the page and
 * run by DuckDB on real CSV and Parquet exports: 19-digit ids and digits-only parent ids stay exact
 * text, empty cells are NULL, text such as `NA`, `null`, `=1+1` or a line break is kept. DuckDB is
 * the one installed in the benchmarks' peers folder (bench/peers.ts; `npm run bench` and `.ci/run`
 * install it there, as parquet-readers.test.ts uses it); where it is not, the test says so and is
 * skipped — or fails, where `.ci/run` requires the tools (recipe-tools.ts).
 * (src/cli/recipes.test.ts runs them on the command line's exports.)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { unneutraliseCell } from './cells';
import { exportParquet } from './parquet';
import { exportRows } from './rows';
import { PEERS, duckdbEntry, duckdbMemory, missingNote, need, skipWithout, sqlStatements } from './recipe-tools';

const md = readFileSync(resolve(import.meta.dirname, '../../../docs/export.md'), 'utf8');
const recipes = Object.fromEntries([...md.matchAll(/```sql recipe=(\w+)\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]));
const duckEntry = duckdbEntry();
const NO_DUCK = `DuckDB is not installed in ${PEERS} (npm run bench and .ci/run install it there)`;
const dir = mkdtempSync(join(tmpdir(), 'loupe-duck-recipes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = ['NA', 'null', '=1+1', "'quoted", 'two\r\nlines', 'None', '-5 #tea', 'عربي 😀, "q"'];
const base = 9_007_199_254_740_993n;
const rows: ExportRow[] = Array.from({ length: 40 }, (_, i) => {
  const id = String(base * 1000n + BigInt(i));
  const parent = i % 3 === 0 && i > 0 ? String(base * 1000n + BigInt(i - 1)) : null;
  return {
    platform: 'photo_net',
    kind: 'post',
    id,
    record: {
      id,
      parent_id: parent,
      published_at: '2024-05-01T12:00:00Z',
      content: { text: TEXTS[i % TEXTS.length] },
      author: { id: String(base + BigInt(i % 5)) },
      engagement: { likes: i % 4 === 0 ? null : i },
    },
    firstSeenAt: 1,
    lastSeenAt: 2,
    tags: [],
    note: null,
    overrides: {},
  };
});

describe('docs/export.md DuckDB recipes', () => {
  it('are on the page, for the CSV and the Parquet export', () => {
    expect(Object.keys(recipes).sort()).toEqual(['csv', 'parquet']);
  });

  for (const format of ['csv', 'parquet'] as const)
    it.skipIf(skipWithout(duckEntry))(
      `DuckDB reads the ${format.toUpperCase()} export with the page's recipe: ids exact, empty is NULL, text as written${missingNote(duckEntry, NO_DUCK)}`,
      async () => {
        const out = join(dir, `export.${format}`);
        if (format === 'csv') await exportRows(rows, { format: 'csv', out });
        else await exportParquet(rows, { out });
        const { c, close } = await duckdbMemory(need(duckEntry, NO_DUCK));
        try {
          for (const stmt of sqlStatements(recipes[format], `export.${format}`, out)) await c.runAndReadAll(stmt);
          const got = (await c.runAndReadAll('SELECT id, parent_id, "author.id", "content.text", "engagement.likes" FROM posts')).getRows();
          const text = (v: unknown): unknown => (format === 'csv' && typeof v === 'string' ? unneutraliseCell(v) : v);
          expect(got.map((r) => [r[0], r[1], r[2], text(r[3]), r[4] === null ? null : Number(r[4])])).toEqual(
            rows.map((r) => {
              const rec = r.record as {
                parent_id: string | null;
                author: { id: string };
                content: { text: string };
                engagement: { likes: number | null };
              };
              return [r.id, rec.parent_id, rec.author.id, rec.content.text, rec.engagement.likes];
            }),
          );
          const types = (
            await c.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT id, parent_id, "author.id" FROM posts)`)
          ).getRows();
          expect(types.map((t) => t[1])).toEqual(['VARCHAR', 'VARCHAR', 'VARCHAR']);
        } finally {
          close();
        }
      },
    );
});
