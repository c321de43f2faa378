/**
 * Issue 24 #1, the analyst's annotations: tag, untag, note and label override each change the
 * items and the annotation they name, and nothing else. Random sequences through the doors'
 * `dispatch`, checked after every step against a small model of every item's tags, note and
 * overrides.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ItemDetail, LibraryQueryAnswer } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';

type Ref = { platform: string; kind: string; id: string };
let t: TestApp;
let refs: Ref[];
beforeAll(async () => {
  t = await startTestApp({ seed: 11, balance: 100_000 }, 'loupe-annot-');
  await t.call('api.call', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } }, source: 'test' });
  const page = await t.call<LibraryQueryAnswer>('library.query', { limit: 5, lean: true });
  refs = page.rows.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id }));
});
afterAll(async () => {
  await t?.close();
});

const TAGS = ['Brand', 'brand', 'rival', 'later'];
const OVERRIDES = [
  { family: 'sentiment', field: 'label', value: 'negative' },
  { family: 'sentiment', field: 'label', value: 'positive' },
  { family: 'intent', field: 'label', value: 'complaining' },
  { family: 'intent', field: 'label', value: null },
  { family: 'sponsored', field: 'p', value: 0.9 },
];

interface Model {
  tags: Set<string>;
  note: string | null;
  overrides: Map<string, unknown>;
}

describe('annotations: each change touches what it names', () => {
  it('any sequence of tag / untag / note / override / clear', async () => {
    expect(refs.length).toBeGreaterThanOrEqual(3);
    const item = fc.integer({ min: 0, max: refs.length - 1 });
    const op = fc.oneof(
      fc.record({
        op: fc.constant('tag' as const),
        items: fc.uniqueArray(item, { minLength: 1, maxLength: 3 }),
        tag: fc.constantFrom(...TAGS),
        remove: fc.boolean(),
      }),
      fc.record({
        op: fc.constant('note' as const),
        item,
        note: fc.option(fc.constantFrom('check the label', 'ad?', '  '), { nil: null }),
      }),
      fc.record({ op: fc.constant('override' as const), item, o: fc.constantFrom(...OVERRIDES) }),
      fc.record({ op: fc.constant('clear' as const), item, o: fc.constantFrom(...OVERRIDES) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), async (ops) => {
        // the start: no annotation on any item
        for (const r of refs) {
          const d = (await t.call<ItemDetail>('library.item', r))!;
          if (d.tags.length) for (const tag of d.tags) await t.call('library.tag', { items: [r], tag, remove: true });
          await t.call('library.note', { item: r, note: null });
          for (const [family, fields] of Object.entries(d.overrides))
            for (const field of Object.keys(fields)) await t.call('library.override', { item: r, family, field, value: null, clear: true });
        }
        const model: Model[] = refs.map(() => ({ tags: new Set(), note: null, overrides: new Map() }));
        for (const o of ops) {
          if (o.op === 'tag') {
            await t.call('library.tag', { items: o.items.map((i) => refs[i]), tag: o.tag, remove: o.remove });
            for (const i of o.items) {
              if (o.remove) model[i].tags.delete(o.tag.toLowerCase());
              else model[i].tags.add(o.tag.toLowerCase());
            }
          } else if (o.op === 'note') {
            await t.call('library.note', { item: refs[o.item], note: o.note });
            model[o.item].note = o.note && o.note.trim() ? o.note : null;
          } else if (o.op === 'override') {
            await t.call('library.override', { item: refs[o.item], family: o.o.family, field: o.o.field, value: o.o.value });
            model[o.item].overrides.set(`${o.o.family}.${o.o.field}`, o.o.value);
          } else {
            await t.call('library.override', { item: refs[o.item], family: o.o.family, field: o.o.field, value: null, clear: true });
            model[o.item].overrides.delete(`${o.o.family}.${o.o.field}`);
          }
          for (const [i, r] of refs.entries()) {
            const d = (await t.call<ItemDetail>('library.item', r))!;
            expect(new Set(d.tags.map((x) => x.toLowerCase())), `tags of item ${i}`).toEqual(model[i].tags);
            expect(d.note, `note of item ${i}`).toBe(model[i].note);
            const have = new Map(
              Object.entries(d.overrides).flatMap(([family, fields]) =>
                Object.entries(fields).map(([field, v]) => [`${family}.${field}`, v] as const),
              ),
            );
            expect(have, `overrides of item ${i}`).toEqual(model[i].overrides);
          }
        }
      }),
      { numRuns: 12 },
    );
  });
});
