/**
 * A frequency table's click-through (the library's `terms` condition) matches exactly the items
 * the table counted, also for texts the full-text index splits otherwise than the tables: a script
 * written without spaces beside Latin words ("Fernwayのnewspaper", FTS5 keeps it as one token), a
 * Japanese term (its words have no space between them in the text), a format character inside a
 * word. Migration 0012 marks such texts of an older archive.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post, UNDO_0013 } from '../archive/test-fixtures';
import { frequencyTable } from './frequency';

const dir = mkdtempSync(join(tmpdir(), 'loupe-term-click-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = [
  'Fernwayのnewspaper arrived today',
  'fernway newspaper is late again',
  '18日使ってみた 使ってみた感想',
  'Wayfarer Airのflight was delayed',
  'wayfarer air flight on time',
  'the zero\u200dwidth joiner inside a word',
  'zerowidth word plain',
  'กาแฟ coffee ร้อน',
  'plain coffee kettle review',
  'ΣΟΦΙΑ and σοφια in Greek',
];

function fill(a: Archive): void {
  a.ingestItems(
    TEXTS.flatMap((text, k) =>
      [0, 1, 2].map((r) => ({
        platform: 'micro_net',
        kind: 'post',
        record: post({ id: String(1000 + k * 10 + r), text: `${text} ${r}`, language: k === 2 ? 'ja' : 'en' }),
      })),
    ),
    { callId: 'seed', source: 'test' },
  );
}

function checkAll(a: Archive): number {
  let rows = 0;
  for (const field of ['words', 'bigrams', 'trigrams'] as const) {
    const t = frequencyTable(a, { field, limit: 10_000 });
    for (const r of t.rows) {
      expect(a.count(r.query), `${field} "${r.term}"`).toBe(r.count);
      rows++;
    }
  }
  return rows;
}

describe('frequency click-through', () => {
  it("counts exactly the table's items for texts the full-text index splits otherwise", () => {
    const a = openArchive(join(dir, 'a.db'));
    fill(a);
    expect(checkAll(a)).toBeGreaterThan(40); // 48: Japanese fragments (み, 使) are no rows since issue 27 #10
    // the cases the review found: a Latin word beside Japanese, a Japanese bigram
    const words = frequencyTable(a, { field: 'words', limit: 10_000 }).rows;
    expect(words.find((r) => r.term === 'fernway')?.count).toBe(6);
    expect(a.count(words.find((r) => r.term === 'fernway')!.query)).toBe(6);
    const bigrams = frequencyTable(a, { field: 'bigrams', limit: 10_000 }).rows;
    const jp = bigrams.find((r) => /って/u.test(r.term));
    expect(jp).toBeDefined();
    expect(a.count(jp!.query)).toBe(jp!.count);
    expect(a.count(bigrams.find((r) => r.term === 'wayfarer air')!.query)).toBe(6);
    a.close();
  });

  it('migration 0012 marks the texts of an older archive', () => {
    const file = join(dir, 'old.db');
    const a0 = openArchive(file);
    fill(a0);
    a0.close();
    const db = new Database(file);
    db.exec(`${UNDO_0013} DROP INDEX items_spaceless; ALTER TABLE items DROP COLUMN spaceless; PRAGMA user_version = 11`);
    db.close();
    const a = openArchive(file);
    const marked = new Database(file, { readonly: true });
    const n = marked.prepare('SELECT count(*) FROM items WHERE spaceless = 1').pluck().get();
    marked.close();
    // two Latin-and-Japanese, one Japanese, one Thai, one with a joiner: 5 texts of the 10, three items each
    expect(n).toBe(5 * 3);
    checkAll(a);
    a.close();
  });
});
