import { afterEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { listResponse, post } from '../archive/test-fixtures';
import { QueryError } from '../archive/sql-query';
import { countTerms } from './frequency';

const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
});

function archiveOf(texts: string[]): Archive {
  const a = openArchive(':memory:');
  open.push(a);
  a.storeResponse(
    listResponse(
      'c1',
      'photo_net',
      'profile/posts',
      texts.map((text, i) => post({ id: String(9_000_000_000_000_000n + BigInt(i)), text })),
    ),
    'cli',
    null,
  );
  return a;
}

describe('counting terms over items', () => {
  it('stops with the way out, not an exhausted heap, when the distinct terms pass the cap', () => {
    const a = archiveOf(Array.from({ length: 40 }, (_, i) => `alpha${i} beta${i} gamma${i} delta${i}`));
    expect(countTerms(a, {}, 'words').size).toBe(160);
    let err: unknown;
    try {
      countTerms(a, {}, 'trigrams', 50);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(QueryError);
    expect((err as QueryError).kind).toBe('validation');
    expect((err as Error).message).toMatch(/more than 50 distinct trigrams.*Narrow the query/);
    // under the cap the count is whole
    expect(countTerms(a, {}, 'trigrams', 80).size).toBe(80);
  });
});
