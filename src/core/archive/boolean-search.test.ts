/**
 * Boolean full-text search in the library query (issue 16: "Crumb OR Northpeak" returned
 * nothing): each operator on a known archive, on every query plan (a small set driving the query,
 * a dense set kept a membership test, totals), and a malformed query as a user error at the door.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../bridge';
import { openArchive, QueryError, type Archive } from './index';
import { listResponse, post } from './test-fixtures';

let a: Archive;
const texts: Record<string, string> = {
  p1: 'Crumb cake from the corner bakery',
  p2: 'Northpeak boots on the trail',
  p3: 'crumb topping, vegan recipe',
  p4: 'the cake stand was empty',
  p5: 'Northpeak crumb bars are back',
  p6: 'cake and more cake, then a crumb',
  p7: 'Crème brûlée or crumb? neither',
};

beforeAll(() => {
  a = openArchive(':memory:', { denseAt: 3 }); // small "dense" threshold: the membership plans run too
  a.storeResponse(
    listResponse(
      'c1',
      'photo_net',
      'profile/posts',
      Object.entries(texts).map(([id, text], k) => post({ id, text, likes: k })),
    ),
    'cli',
    null,
  );
});
afterAll(() => a.close());

const ids = (text: string, extra: Record<string, unknown> = {}) =>
  a.query({ text, sort: { field: 'likes', dir: 'asc' }, ...extra }).rows.map((r) => r.id);

describe('boolean search in the library query', () => {
  it('OR, AND (written or implied), NOT, parentheses, phrases, prefixes and NEAR', () => {
    expect(ids('Crumb OR Northpeak')).toEqual(['p1', 'p2', 'p3', 'p5', 'p6', 'p7']);
    expect(ids('crumb or northpeak')).toEqual(ids('Crumb OR Northpeak')); // operators in any case
    expect(ids('crumb northpeak')).toEqual(['p5']);
    expect(ids('crumb AND northpeak')).toEqual(['p5']);
    expect(ids('crumb NOT cake')).toEqual(['p3', 'p5', 'p7']);
    // a minus, as search boxes write it: the same as NOT (before, '-cake' searched for cake)
    expect(ids('crumb -cake')).toEqual(['p3', 'p5', 'p7']);
    expect(ids('(crumb OR northpeak) -(cake OR trail)')).toEqual(['p3', 'p5', 'p7']);
    expect(ids('(crumb OR northpeak) NOT (cake OR trail)')).toEqual(['p3', 'p5', 'p7']);
    expect(ids('cake (crumb OR stand)')).toEqual(['p1', 'p4', 'p6']);
    expect(ids('"crumb cake"')).toEqual(['p1']);
    expect(ids('"cake crumb"')).toEqual([]);
    expect(ids('north*')).toEqual(['p2', 'p5']);
    expect(ids('creme OR brulee')).toEqual(['p7']); // diacritics folded, as before
    expect(ids('crumb NEAR/1 bars')).toEqual(['p5']);
    expect(ids('cake NEAR/1 crumb')).toEqual(['p1']); // p6: its nearest "cake" and "crumb" have two words between them
    expect(ids('cake NEAR/2 crumb')).toEqual(['p1', 'p6']);
    expect(ids('cake NEAR crumb')).toEqual(['p1', 'p6']);
    expect(ids('NEAR(cake crumb, 4)')).toEqual(['p1', 'p6']);
    expect(ids('"or"')).toEqual(['p7']); // the word itself, quoted
  });

  it('counts agree with the rows, first page and keyset pages alike', () => {
    expect(a.count({ text: 'Crumb OR Northpeak' })).toBe(6);
    const first = a.query({ text: 'crumb OR northpeak', limit: 2, sort: { field: 'likes', dir: 'desc' } });
    expect(first.total).toBe(6);
    const seen = [...first.rows.map((r) => r.id)];
    let next = first.next;
    while (next) {
      const p = a.query({ text: 'crumb OR northpeak', limit: 2, sort: { field: 'likes', dir: 'desc' }, after: next });
      seen.push(...p.rows.map((r) => r.id));
      next = p.next;
    }
    expect(seen).toEqual(['p7', 'p6', 'p5', 'p3', 'p2', 'p1']);
  });

  it.each([
    ['(crumb OR northpeak', 'a "(" is not closed'],
    ['crumb OR', '"OR" needs words after it'],
    ['NOT cake', '"NOT" needs words before it'],
    ['crumb)', 'a ")" has no "(" before it'],
  ])('%s is a QueryError that says what to write (%s)', (text, msg) => {
    expect(() => a.query({ text })).toThrow(QueryError);
    expect(() => a.query({ text })).toThrow(msg);
    expect(() => a.count({ text })).toThrow(msg);
  });

  it('through the door a malformed search is a validation error (a user error), not an internal failure', async () => {
    const app = { impl: { 'library.query': async (q: unknown) => a.query(q as never) } as never, secrets: () => [] };
    const bad = await dispatch(app, 'library.query', { text: '(crumb OR northpeak' });
    expect(bad).toEqual({ ok: false, error: { kind: 'validation', message: 'Search: a "(" is not closed: add a ")".' } });
    const good = await dispatch(app, 'library.query', { text: 'Crumb OR Northpeak' });
    expect(good.ok && (good.result as { total: number }).total).toBe(6);
  });
});
