/**
 * The compiled CSV renderer (columns.ts csvRenderer: cells joined once) and the compiled `extra`
 * column against references written the way they were before (issue 30): the per-cell getters with
 * csvRecord, the tree walk that computed `extra`, and ISO times by Date — over generated rows with
 * big ids as text, hostile and unicode text, formula starts, nulls, odd shapes and annotations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportRow } from '../ports';
import { cell, csvRecord } from './cells';
import { CSV_COLUMNS, csvBytesRenderer, csvRenderer, extraOf, resolveColumns, rowCells } from './columns';
import { beginBytes, handOffBytes, spareBytes, takeBytes } from './csv-bytes';
import { row } from './test-rows';

type Tree = { [k: string]: Tree | true };
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** the record paths the columns show, as the tree the old `rest` walked */
function tree(): Tree {
  const t: Tree = {};
  for (const c of CSV_COLUMNS) {
    let path: string[] | null = null;
    if (c.startsWith('labels.')) path = ['computed', ...c.split('.')];
    else if (c.startsWith('relevance.')) path = ['computed', ...c.split('.')];
    else if (c === 'post_kind') path = ['kind'];
    else if (
      ![
        'platform',
        'kind',
        'id',
        'coauthors',
        'tags',
        'note',
        'overrides',
        'first_seen_at',
        'last_seen_at',
        'extra',
        'checked_at',
        'missing_since',
      ].includes(c)
    )
      path = c.split('.');
    if (!path) continue;
    let node = t;
    path.forEach((k, i) => {
      if (i === path.length - 1) node[k] = true;
      else if (node[k] !== true) node = (node[k] ??= {}) as Tree;
    });
  }
  t.id = true;
  return t;
}
const TREE = tree();

/** `extra` as it was computed before (columns.ts `rest`, a walk of the tree) */
function oldRest(obj: Record<string, unknown>, t: Tree): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(obj)) {
    const sub = t[k];
    const v = obj[k];
    if (sub === true) continue;
    let keep: unknown = undefined;
    if (sub === undefined) keep = v;
    else if (isObj(v)) keep = oldRest(v, sub);
    else if (v !== undefined) keep = v;
    if (keep !== undefined) (out ??= {})[k] = keep;
  }
  return out;
}

const isoOf = (ms: number | null | undefined): string =>
  typeof ms === 'number' && Number.isFinite(ms) ? cell(new Date(ms).toISOString()) : '';

describe('the compiled CSV renderer against the old rendering', () => {
  const subset = ['extra', 'labels.sponsored.p', 'missing_since', 'id', 'author.followers', 'first_seen_at', 'content.text', 'checked_at'];
  it('writes what the per-cell rendering wrote, for every column and for a subset, row after row', () => {
    const all = resolveColumns();
    const some = resolveColumns(subset);
    const extraAt = CSV_COLUMNS.indexOf('extra');
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), (rows) => {
        for (const r of rows) {
          // the row as the archive hands it (record parsed lazily from its JSON text) renders the same
          const json = r.record === undefined ? null : JSON.stringify(r.record);
          const stored: ExportRow = json === null ? r : { ...r, record: JSON.parse(json) as Record<string, unknown>, recordJson: json };
          for (const x of [r, stored]) {
            const cells = rowCells(x, all);
            expect(csvRenderer(all)(x)).toBe(csvRecord(cells));
            expect(csvRenderer(some)(x)).toBe(csvRecord(rowCells(x, some)));
            const old = isObj(x.record) ? oldRest(x.record, TREE) : undefined;
            expect(extraOf(x)).toEqual(old);
            expect(cells[extraAt]).toBe(cell(old));
            expect(cells[CSV_COLUMNS.indexOf('first_seen_at')]).toBe(isoOf(x.firstSeenAt));
            expect(cells[CSV_COLUMNS.indexOf('last_seen_at')]).toBe(isoOf(x.lastSeenAt));
            expect(cells[CSV_COLUMNS.indexOf('checked_at')]).toBe(isoOf(x.checkedAt));
            expect(cells[CSV_COLUMNS.indexOf('missing_since')]).toBe(isoOf(x.missingSince));
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  it('writes the same bytes straight into the batch buffer (the workers) as the string renderer encoded', () => {
    const enc = new TextEncoder();
    const lists = [resolveColumns(), resolveColumns(subset)];
    // a cell larger than the buffer's first size makes it grow mid-batch
    const big = 'x"'.repeat(90_000) + '\ud83d';
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), fc.nat(9), (rows, grow) => {
        if (grow === 0) rows[0] = { ...rows[0], note: big };
        for (const defs of lists) {
          beginBytes();
          for (const r of rows) csvBytesRenderer(defs)(r);
          const bytes = takeBytes();
          expect(Buffer.from(bytes).equals(Buffer.from(enc.encode(rows.map((r) => csvRenderer(defs)(r)).join(''))))).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('hands each batch off without a copy and writes later batches into the buffers given back, with the same bytes', () => {
    const enc = new TextEncoder();
    const defs = resolveColumns();
    const render = csvBytesRenderer(defs);
    const text = csvRenderer(defs);
    // a cell larger than the buffer's size makes it grow mid-batch: buffers given back are then too small
    const big = 'x"'.repeat(90_000);
    const batch = fc.record({ rows: fc.array(row, { minLength: 1, maxLength: 6 }), back: fc.boolean(), grow: fc.nat(11) });
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 10 }), (batches) => {
        const held: [Uint8Array, Buffer][] = [];
        for (const { rows, back, grow } of batches) {
          if (grow === 0) rows[0] = { ...rows[0], note: big };
          beginBytes();
          for (const r of rows) render(r);
          const out = handOffBytes();
          const want = Buffer.from(enc.encode(rows.map(text).join('')));
          expect(Buffer.from(out).equals(want)).toBe(true);
          expect(out.byteOffset).toBe(0); // its whole ArrayBuffer is the batch's to move
          // given back once written (csv-rids.ts), or still being written: never written over
          if (back) spareBytes(out.buffer);
          else held.push([out, want]);
        }
        for (const [out, want] of held) expect(Buffer.from(out).equals(want)).toBe(true);
      }),
      { numRuns: 80 },
    );
    // a buffer given back is the one a later batch is written into
    const one = (): Uint8Array<ArrayBuffer> => {
      beginBytes();
      render(fc.sample(row, { numRuns: 1, seed: 30 })[0]);
      return handOffBytes();
    };
    const first = one();
    spareBytes(first.buffer);
    one();
    expect(one().buffer).toBe(first.buffer);
  });

  it('keeps record keys named like Object.prototype members in `extra`', () => {
    const rec = JSON.parse(
      '{"id":"1","constructor":{},"toString":{"a":{}},"__proto__":{"x":1},"author":{"id":"2","valueOf":{}}}',
    ) as Record<string, unknown>;
    const r: ExportRow = {
      platform: 'p',
      kind: 'post',
      id: '1',
      record: rec,
      firstSeenAt: 0,
      lastSeenAt: 0,
      tags: [],
      note: null,
      overrides: {},
    };
    expect(JSON.stringify(extraOf(r))).toBe('{"constructor":{},"toString":{"a":{}},"__proto__":{"x":1},"author":{"valueOf":{}}}');
  });
});
