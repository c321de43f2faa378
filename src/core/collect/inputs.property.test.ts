/**
 * Lists written the way analysts write them, generated (fast-check): accounts as handles with and
 * without `@`, in any case, as addresses with and without a scheme, `www.`, a trailing slash or a
 * tracking parameter; as copied from a page or a chat (invisible characters, non-breaking spaces,
 * typographic quotes, <angle brackets>, a trailing comma); repeats; other networks' addresses; posts' addresses; blank and `#` lines; a
 * byte-order mark; `\n` or `\r\n`; one value a line or a CSV column. Whatever the list, the plan
 * accounts for every line read (input, duplicate of its first line, or problem with its reason),
 * collects each account once, from the line it first appears on, and spends nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectEnvs } from './test-env';

const env = collectEnvs();

const FORMS: Array<(h: string) => string> = [
  (h) => h,
  (h) => `@${h}`,
  (h) => `@${h.toUpperCase()}`,
  (h) => `https://photo-net.example/${h}`,
  (h) => `https://photo-net.example/${h}/`,
  (h) => `photo-net.example/@${h}?utm_source=sheet`,
  (h) => `HTTP://WWW.PHOTO-NET.EXAMPLE/${h.toUpperCase()}`,
  (h) => `http://www.photo-net.example/${h}?ref=share&utm_medium=x`,
  (h) => `  ${h}  `,
  // copied from a page, a chat or a document
  (h) => `\u200B${h}\u200E`, // invisible characters
  (h) => `\u00A0@${h}\u00A0`, // non-breaking spaces
  (h) => `“${h}”`,
  (h) => `‘@${h}’`,
  (h) => `<https://photo-net.example/${h}>`,
  (h) => `@${h},`, // a list copied one to a line
  (h) => `https://photo-net.example/${h};`,
];

type Line =
  | { kind: 'account'; handle: number; form: number }
  | { kind: 'other'; handle: number }
  | { kind: 'post'; id: string }
  | { kind: 'blank' }
  | { kind: 'comment' };

const line: fc.Arbitrary<Line> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('account' as const), handle: fc.nat(7), form: fc.nat(FORMS.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('other' as const), handle: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('post' as const), id: fc.stringMatching(/^[A-Za-z0-9]{4,10}$/) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'blank' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'comment' as const }) },
);

// handles that no reading takes for anything else (no reserved path word starts with x)
const handles = fc.uniqueArray(
  fc.stringMatching(/^[a-z][a-z0-9_]{2,9}$/).map((s) => `x${s}`),
  { minLength: 8, maxLength: 8, selector: (s) => s.toLowerCase() },
);

describe('a list written the way analysts write them (generated)', () => {
  it('every line accounted for, each account collected once from its first line, nothing spent', async () => {
    const e = await env();
    await fc.assert(
      fc.asyncProperty(
        handles,
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        async (hs, lines, bom, crlf, csv) => {
          const texts = lines.map((l) => {
            switch (l.kind) {
              case 'account':
                return FORMS[l.form](hs[l.handle]);
              case 'other':
                return `https://micro-net.example/${hs[l.handle]}`;
              case 'post':
                return `https://photo-net.example/p/${l.id}/`;
              case 'blank':
                return '';
              case 'comment':
                return csv ? '' : '# to check later';
            }
          });
          const body = csv ? ['name,Account', ...texts.map((t, i) => (t === '' ? '' : `row ${i},${t.trim()}`))] : texts;
          const text = (bom ? '\uFEFF' : '') + body.join(crlf ? '\r\n' : '\n');
          const plan = await e.collect.preview(
            e.design({ name: 'generated', source: { type: 'text', text }, do: 'feed', networks: ['photo_net'], pages: 1 }),
          );

          // what the list says, line by line (CSV: the header is line 1)
          const at = (i: number) => i + 1 + (csv ? 1 : 0);
          const first = new Map<string, number>();
          const want = { inputs: [] as Array<[number, string]>, dups: [] as Array<[number, number]>, problems: [] as number[] };
          lines.forEach((l, i) => {
            if (l.kind === 'account') {
              const key = hs[l.handle].toLowerCase();
              const seen = first.get(key);
              if (seen === undefined) {
                first.set(key, at(i));
                want.inputs.push([at(i), key]);
              } else want.dups.push([at(i), seen]);
            } else if (l.kind === 'other' || l.kind === 'post') want.problems.push(at(i));
          });
          if (want.inputs.length === 0) {
            // nothing to collect: the plan says so and spends nothing
            expect(plan.inputs).toBe(0);
          } else {
            expect(plan.inputs).toBe(want.inputs.length);
            expect(plan.sample.map((s) => [s.line, String(s.params.handle).toLowerCase()])).toEqual(
              want.inputs.slice(0, plan.sample.length),
            );
          }
          expect(plan.duplicates.map((d) => [d.line, d.sameAs])).toEqual(want.dups);
          expect(plan.problems.map((p) => p.line)).toEqual(want.problems);
          for (const p of plan.problems) expect(p.reason).toMatch(/another network's \(micro_net\)|a post's address, not an account's/);
          expect(plan.read).toBe(want.inputs.length + want.dups.length + want.problems.length);
          expect(plan.inputs + plan.duplicates.length + plan.problems.length).toBe(plan.read);
          if (csv) expect(plan.column?.toLowerCase()).toBe('account');
        },
      ),
      { numRuns: 40 },
    );
    expect(e.sb.admin.charges()).toEqual([]); // planning spends nothing
    expect(e.collect.list()).toEqual([]); // and saves nothing
  });
});
