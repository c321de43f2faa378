/** The library query's user errors and time bounds (sql-query.ts, growth-sql.ts). */
import { LoupeError } from '../../shared/errors';

export class QueryError extends LoupeError {
  /** a user error (a bad cursor, a malformed query): the doors report it as such (kind validation), never as a failure of Loupe */
  declare readonly kind: 'validation';
  constructor(message: string) {
    super('validation', message);
    this.name = 'QueryError';
  }
}

const DAY = 86_400_000;

/** ISO string / date-only string / ms number → ms. Date-only `until` means the end of that UTC day. */
export function timeBound(v: string | number, end: boolean): number {
  if (typeof v === 'number') return v;
  const s = v.trim();
  if (/^-?\d+$/.test(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    const t = Date.parse(`${s}T00:00:00Z`);
    if (!Number.isFinite(t)) throw new QueryError(`not a date: ${v}`);
    return end ? t + DAY : t;
  }
  const t = Date.parse(s);
  if (!Number.isFinite(t)) throw new QueryError(`not a date: ${v}`);
  return t;
}
