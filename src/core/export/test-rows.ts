/**
 * Generated export rows for the renderers' property tests (not shipped): big ids as text, hostile
 * and unicode text (formula starts, quotes, line breaks, lone surrogates, RTL, ZWJ sequences),
 * numbers that print with an exponent, nulls, nested arrays and objects, odd record shapes (a
 * label family that is not an object, keys no column shows) and annotations.
 */
import fc from 'fast-check';
import type { ExportRow } from '../ports';
import type { BytesTuple } from './rid-rows';
import { LABEL_FIELDS } from './columns';

const HOSTILE = [
  '=HYPERLINK("http://evil.test","click")',
  '+1',
  '-2+3',
  '@SUM(A1:A2)',
  '\t=1',
  '\r=1',
  "'quoted",
  'line one\nline two\r\nthree',
  'she said "hi", then left',
  'مرحبا بالعالم',
  'family 👨‍👩‍👧‍👦 and 🏳️‍🌈',
  '',
  ' ',
  '1234567890123456789',
  '9007199254740993',
  'lone \ud800 and \udc00 halves',
  '-a longer cell with "quotes", ünïcödé, 🏳️‍🌈 and a line\nbreak, past the short-cell path',
];
const text = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.string({ maxLength: 6 }));
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e21, 1.5e21, -1e21, 1e-7, -2.5e-9, 0.000001, 2 ** 53 + 2, 36.5),
);
const leaf = fc.oneof(fc.constant(null), fc.boolean(), number, text);
const value = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'id', 'p', 'label', 'x y'), leaf, { maxKeys: 3 }) },
);
/** an object of some of `keys` (values from `v`) and maybe a key no column shows */
const objOf = (keys: readonly string[], v: fc.Arbitrary<unknown> = value): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.record(Object.fromEntries([...keys, 'unknown_field'].map((k) => [k, v])), { requiredKeys: [] }) },
    { weight: 1, arbitrary: value },
  );
const labels = objOf(
  Object.keys(LABEL_FIELDS),
  fc.oneof({ weight: 1, arbitrary: value }, { weight: 4, arbitrary: objOf(['p', 'label', 'confidence', 'brand', 'score', 'evidence']) }),
);
const record = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        id: text,
        url: text,
        kind: text,
        parent_id: fc.oneof(fc.constant(null), text),
        published_at: fc.oneof(text, fc.constant(null)),
        language: text,
        content: objOf(['text', 'media_urls', 'thumbnail_url', 'duration_seconds']),
        author: objOf(['id', 'username', 'display_name', 'avatar_url', 'verified', 'followers', 'following', 'bio', 'joined_at']),
        engagement: objOf(['views', 'likes', 'comments', 'shares', 'saves']),
        flags: objOf(['nsfw', 'spoiler', 'pinned', 'deleted']),
        ext: fc.oneof(value, objOf(['coauthors', 'music_id'])),
        computed: fc.oneof(
          { weight: 1, arbitrary: value },
          { weight: 5, arbitrary: fc.record({ labels, relevance: objOf(['p', 'sense', 'depth', 'spam']) }, { requiredKeys: [] }) },
        ),
        evidence: value,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: value },
);
const overrides = fc.dictionary(
  fc.constantFrom(...Object.keys(LABEL_FIELDS)),
  fc.dictionary(fc.constantFrom('p', 'label', 'brand', 'buyer'), leaf, { maxKeys: 2 }),
  { maxKeys: 2 },
);
const time = fc.oneof(fc.integer({ min: 0, max: 4102444800000 }), fc.constantFrom(NaN, 1795747477559));
export const row: fc.Arbitrary<ExportRow> = fc.record({
  platform: text,
  kind: text,
  id: fc.oneof(fc.constantFrom('1234567890123456789', '9007199254740993', '-1', '=1'), text),
  record: record as fc.Arbitrary<Record<string, unknown>>,
  firstSeenAt: time,
  lastSeenAt: time,
  checkedAt: fc.oneof(fc.constant(null), time),
  missingSince: fc.oneof(fc.constant(null), time),
  tags: fc.array(text, { maxLength: 3 }),
  note: fc.oneof(fc.constant(null), text),
  overrides: overrides as fc.Arbitrary<ExportRow['overrides']>,
});

const enc = new TextEncoder();

/** a row as a worker reads it: the stored columns, the record's text as bytes */
export function tuple(r: ExportRow, raw: string): BytesTuple {
  const ov = Object.entries(r.overrides).flatMap(([family, fields]) => Object.entries(fields).map(([f, v]) => [family, f, v, 5]));
  const annotated = r.tags.length > 0 || r.note !== null || ov.length > 0;
  const [p, k, id, bytes, first, last] = [r.platform, r.kind, r.id, enc.encode(raw), r.firstSeenAt, r.lastSeenAt];
  const [checked, missing] = [r.checkedAt ?? null, r.missingSince ?? null];
  return annotated
    ? [p, k, id, bytes, first, last, checked, missing, JSON.stringify(r.tags), r.note, JSON.stringify(ov)]
    : [p, k, id, bytes, first, last, checked, missing];
}
