/**
 * The Library's language filter (issue 27 #9): a tag matches itself and its subtags, case and
 * `_` / `-` ignored; `und` matches items whose language is not known. Generated archives and
 * queries against a model (the command line's --language: src/cli/language-flag.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { libraryQuerySchema } from '../../shared/query';
import { openArchive } from './index';
import { post } from './test-fixtures';

const dir = mkdtempSync(join(tmpdir(), 'loupe-lang-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STORED = ['en', 'EN', 'en-GB', 'pt', 'pt-BR', 'pt_PT', 'ja', 'zh-Hant', 'und', '', null] as const;
const ASKED = ['en', 'EN', 'en-gb', 'pt', 'pt-BR', 'PT_pt', 'ja', 'zh', 'zh-Hant', 'und', 'de'] as const;

/** the model: what the filter means */
function matches(stored: string | null, asked: readonly string[]): boolean {
  const s = (stored ?? '').toLowerCase().replace(/_/g, '-');
  return asked.some((a0) => {
    const a = a0.toLowerCase().replace(/_/g, '-');
    if (a === 'und') return s === '' || s === 'und';
    return s === a || s.startsWith(`${a}-`);
  });
}

describe('the language filter', () => {
  it('counts and lists exactly the items of the languages asked for, subtags included', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...STORED), { minLength: 1, maxLength: 25 }),
        fc.uniqueArray(fc.constantFrom(...ASKED), { minLength: 1, maxLength: 4 }),
        (langs, asked) => {
          const a = openArchive(join(dir, `a${n++}.db`));
          try {
            a.ingestItems(
              langs.map((language, k) => ({ platform: 'micro_net', kind: 'post', record: post({ id: String(5000 + k), language }) })),
              { callId: 'seed', source: 'test' },
            );
            const q = libraryQuerySchema.parse({ languages: asked });
            const want = langs.map((l, k) => (matches(l, asked) ? String(5000 + k) : null)).filter((x): x is string => x !== null);
            expect(a.count(q)).toBe(want.length);
            expect(
              a
                .query({ ...q, limit: 100 })
                .rows.map((r) => r.id)
                .sort(),
            ).toEqual(want.sort());
          } finally {
            a.close();
          }
        },
      ),
      { numRuns: 15, seed: 27 },
    );
  });

  it('refuses what is not a language tag', () => {
    for (const bad of ['%', 'en%', "x' OR 1=1", '', 'a'.repeat(40)])
      expect(libraryQuerySchema.safeParse({ languages: [bad] }).success, bad).toBe(false);
  });
});
