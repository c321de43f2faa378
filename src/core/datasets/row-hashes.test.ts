/**
 * The byte-level row hashes (row-hashes.ts) against the text parser (bundle.ts csvRecords, the
 * reading verify used before): generated CSV and JSON Lines files — quotes, commas and line ends
 * inside cells, CRLF and LF, a BOM, empty lines, non-ASCII text, rows that are not JSON — give the
 * same keys, hashes and line numbers.
 */
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { csvRecord, unneutraliseCell } from '../export';
import { csvRecords } from './bundle';
import { csvRowHashes, jsonlRowHashes } from './row-hashes';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const cell = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('a,b', 'say "hi"', 'two\r\nlines', 'one\nline', '"', '=1+2', 'éß漢字', ''),
);

describe('row hashes from bytes', () => {
  it('items.csv: the same keys, SHA-256s and lines as the text parser', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cell, cell, cell, cell), { maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (rows, bom, lf, emptyLines) => {
          const end = lf ? '\n' : '\r\n';
          let text = (bom ? '\uFEFF' : '') + csvRecord(['note', 'platform', 'kind', 'id']).replace(/\r\n$/, end);
          for (const r of rows) text += csvRecord(r).replace(/\r\n$/, end) + (emptyLines ? end : '');
          const it = csvRecords(text);
          it.next();
          const [p, k, d] = [1, 2, 3].map((n) => (r: { cells: string[] }) => unneutraliseCell(r.cells[n] ?? ''));
          const want = [...it].map((r) => ({ key: `${p(r)}/${k(r)}/${d(r)}`, sha: sha(r.raw), line: r.line }));
          const got = csvRowHashes(Buffer.from(text, 'utf8'));
          expect(got.header).toEqual(['note', 'platform', 'kind', 'id']);
          expect(got.rows).toEqual(want);
        },
      ),
    );
  });

  it('JSON Lines: the key of each parsable line, the SHA-256 of every non-empty line, its number', () => {
    const line = fc.oneof(
      fc
        .record({ platform: fc.string({ maxLength: 6 }), kind: fc.string({ maxLength: 6 }), id: fc.string({ maxLength: 6 }) })
        .map((o) => JSON.stringify({ ...o, record: { text: 'x"y' } })),
      fc.record({ id: fc.string(), platform: fc.string(), kind: fc.string() }).map((o) => JSON.stringify(o)),
      fc.constantFrom('', 'not json', '{"platform":"a","kind":"b","id":"c",broken', '{"platform":1}'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 10 }), (lines) => {
        const text = lines.join('\n') + '\n';
        const want = text
          .split('\n')
          .map((l, n) => ({ l, n: n + 1 }))
          .filter(({ l }) => l.length > 0)
          .map(({ l, n }) => {
            let key: string | null = null;
            try {
              const o = JSON.parse(l) as Record<string, unknown>;
              if (typeof o.platform === 'string' && typeof o.kind === 'string' && typeof o.id === 'string')
                key = `${o.platform}/${o.kind}/${o.id}`;
            } catch {
              // a line edited into invalid JSON still names its key when its start is intact
              const m = /^\{"platform":"(\w*)","kind":"(\w*)","id":"(\w*)",/.exec(l);
              key = m ? `${m[1]}/${m[2]}/${m[3]}` : null;
            }
            return { key, sha: sha(l), line: n };
          });
        expect(jsonlRowHashes(Buffer.from(text, 'utf8'))).toEqual(want);
      }),
    );
  });
});
