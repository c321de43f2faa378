/**
 * A library page's keyset cursor (`after`): where the last page stopped in the query's order, and
 * the hash of the query it belongs to, so a cursor is refused for another query. The SQL that
 * walks from it is sql-query.ts's (sortPlan) and library.ts's.
 */
import { createHash } from 'node:crypto';
import type { LibraryQuery } from '../../shared/query';
import { QueryError } from './query-error';

/** Keyset position: phase 0 walks non-null sort values, phase 1 the nulls (always last). */
export interface Cursor {
  h: string; // query hash
  p: 0 | 1;
  v: string | number | null;
  r: number; // rid of the last row returned
}

/** Hash of everything that shapes the ordered result (not limit/after). */
export function queryHash(q: LibraryQuery): string {
  const { limit: _l, after: _a, ...rest } = q;
  return createHash('sha1').update(stableStringify(rest)).digest('base64url').slice(0, 12);
}

export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

export function decodeCursor(s: string, hash: string): Cursor {
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    throw new QueryError('invalid cursor');
  }
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof (c as Cursor).h !== 'string' ||
    ((c as Cursor).p !== 0 && (c as Cursor).p !== 1) ||
    typeof (c as Cursor).r !== 'number' ||
    (!['string', 'number'].includes(typeof (c as Cursor).v) && (c as Cursor).v !== null)
  ) {
    throw new QueryError('invalid cursor');
  }
  if ((c as Cursor).h !== hash) throw new QueryError('this cursor belongs to another query');
  return c as Cursor;
}
