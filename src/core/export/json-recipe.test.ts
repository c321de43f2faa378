/**
 * docs/export.md's JSON recipe (pandas), copied from the page and run on a real JSON export: ids past
 * 2^53 stay exact strings, a reply's digits-only parent_id too, text such as `NA` or `=1+1` is kept.
 * (The other formats' recipes run in src/cli/recipes.test.ts.) Skipped with a sentence where no
 * python3 has pandas — failed, where `.ci/run` requires the tools (recipe-tools.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { exportRows } from './rows';
import { missingNote, need, pythonWith, skipWithout } from './recipe-tools';

const md = readFileSync(resolve(import.meta.dirname, '../../../docs/export.md'), 'utf8');
const recipe = /```python recipe=json\n([\s\S]*?)```/.exec(md)?.[1] ?? null;
const PY = pythonWith(['pandas']);
const dir = mkdtempSync(join(tmpdir(), 'loupe-json-recipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TEXTS = ['NA', 'null', '=1+1', "'quoted", 'two\r\nlines', 'None', '', 'عربي 😀'];

describe('docs/export.md JSON recipe', () => {
  it('is on the page', () => {
    expect(recipe).toContain('json.load(f)');
  });

  it.skipIf(skipWithout(PY))(
    `pandas reads the JSON export: ids exact, text as written${missingNote(PY, 'no python3 with pandas')}`,
    async () => {
      const py = need(PY, 'no python3 with pandas');
      const base = 9_007_199_254_740_993n;
      const rows: ExportRow[] = Array.from({ length: 24 }, (_, i) => {
        const id = String(base * 1000n + BigInt(i));
        const parent = i % 3 === 0 && i > 0 ? String(base * 1000n + BigInt(i - 1)) : null;
        return {
          platform: 'photo_net',
          kind: 'post',
          id,
          record: { id, parent_id: parent, content: { text: TEXTS[i % TEXTS.length] }, author: { id: String(base + BigInt(i % 5)) } },
          firstSeenAt: 1,
          lastSeenAt: 2,
          tags: [],
          note: null,
          overrides: {},
        };
      });
      const out = join(dir, 'export.json');
      await exportRows(rows, { format: 'json', out });
      const code = `${recipe!.replaceAll('"export.json"', JSON.stringify(out))}
_v = lambda x: None if pd.isna(x) else x
print(json.dumps({c: [_v(x) for x in df[c]] for c in ["record.id", "record.parent_id", "record.author.id", "record.content.text"]}))
`;
      const f = join(dir, 'recipe.py');
      writeFileSync(f, code);
      const r = spawnSync(py, [f], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const got = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, Array<string | null>>;
      expect(got['record.id']).toEqual(rows.map((x) => x.id));
      expect(got['record.parent_id']).toEqual(rows.map((x) => (x.record as { parent_id: string | null }).parent_id));
      expect(got['record.author.id']).toEqual(rows.map((x) => (x.record as { author: { id: string } }).author.id));
      expect(got['record.content.text']).toEqual(rows.map((_, i) => TEXTS[i % TEXTS.length]));
    },
  );
});
