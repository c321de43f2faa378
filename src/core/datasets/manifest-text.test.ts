/**
 * Issue 29: a bundle's manifest written in pieces (manifest-text.ts) is, byte for byte, the text
 * `JSON.stringify(manifest, null, 1) + '\n'` it replaces — over generated manifests: items as the
 * pass gives them (bundle-facts.ts factItemText) and of any shape (stringified a slice at a time),
 * slices of a few elements, strings with quotes, escapes, non-ASCII and lone surrogates, a nested
 * `items` key elsewhere, no items at all.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { factItemText, type FactItem } from './bundle-facts';
import { writeJsonInPieces } from './manifest-text';

const dir = mkdtempSync(join(tmpdir(), 'loupe-manifest-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('"', '\\', '\n', '\u2028', '\ud800'),
);
const factItem: fc.Arbitrary<FactItem> = fc.record({
  platform: text,
  kind: text,
  id: text,
  calls: fc.array(text, { maxLength: 4 }),
  csv_sha256: text,
  jsonl_sha256: text,
});
const head = fc.record({ format: text, format_version: fc.constant(1), query: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })) });
const tail = fc.record({ rehydration_quote: fc.option(fc.record({ credits_min: fc.integer() })), root_sha256: text });

/** the file's bytes equal the one-string text's UTF-8 (what writeFile wrote) */
async function same(v: Record<string, unknown>, element?: (e: never) => string, slice?: number, buffer?: number): Promise<boolean> {
  const path = join(dir, `m${n++}.json`);
  await writeJsonInPieces(path, v, 'items', element, slice, buffer);
  return readFileSync(path).equals(Buffer.from(JSON.stringify(v, null, 1) + '\n'));
}

describe('the manifest written in pieces', () => {
  it('is JSON.stringify(manifest, null, 1) + newline, items of the pass and of any shape', async () => {
    await fc.assert(
      fc.asyncProperty(
        head,
        fc.array(factItem, { maxLength: 12 }),
        fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 12 }),
        tail,
        fc.integer({ min: 1, max: 5 }),
        // the buffer written out when full: as small as a few bytes (pieces larger than it grow it)
        fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        async (h, facts, any, t, slice, buffer) => {
          const a = { ...h, items: facts, ...t };
          expect(await same(a, factItemText as (e: never) => string, slice, buffer)).toBe(true);
          const b = { ...h, items: any, ...t };
          expect(await same(b, undefined, slice, buffer)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds the manifest’s own items beside a nested one', async () => {
    const v = { query: { items: [] as unknown[], x: { items: [1] } }, items: [{ a: 1 }, { items: [] }], root: 'r' };
    expect(await same(v, undefined, 1)).toBe(true);
  });
});
