/** The search syntax → FTS5 expression (search-syntax.ts): each operator, quoting, malformed input. */
import { describe, expect, it } from 'vitest';
import { parseSearch, SearchSyntaxError } from './search-syntax';

describe('parseSearch', () => {
  it.each([
    ['crumb cake', '"crumb" "cake"'],
    ['Crumb OR Northpeak', '"Crumb" OR "Northpeak"'],
    ['crumb or northpeak', '"crumb" OR "northpeak"'],
    ['crumb AND cake', '"crumb" "cake"'],
    ['cake NOT vegan', '"cake" NOT "vegan"'],
    ['cake not vegan or pie', '("cake" NOT "vegan") OR "pie"'],
    ['a OR b c', '"a" OR ("b" "c")'],
    ['(crumb OR crust) cake', '("crumb" OR "crust") AND "cake"'],
    ['cake (crumb OR (crust NOT burnt))', '"cake" AND ("crumb" OR ("crust" NOT "burnt"))'],
    ['"crumb cake"', '"crumb cake"'],
    ['"crumb ca"*', '"crumb ca"*'],
    ['crum*', '"crum"*'],
    ['crumb NEAR cake', 'NEAR("crumb" "cake", 10)'],
    ['crumb near/3 cake', 'NEAR("crumb" "cake", 3)'],
    ['a NEAR/2 b NEAR/4 c', 'NEAR("a" "b" "c", 4)'],
    ['NEAR(crumb "cake stand" x*, 5)', 'NEAR("crumb" "cake stand" "x"*, 5)'],
    ['NEAR(crumb cake)', 'NEAR("crumb" "cake", 10)'],
    ['"or"', '"or"'],
    ['"NEAR" "NOT"', '"NEAR" "NOT"'],
    ['cake -travel', '"cake" NOT "travel"'],
    ['cake pie -"road trip" -(beach OR sea)', '"cake" AND (("pie" NOT "road trip") NOT ("beach" OR "sea"))'],
    ['e-mail co-op -5', '"e-mail" AND ("co-op" NOT "5")'],
  ])('%s → %s', (q, fts) => expect(parseSearch(q)).toBe(fts));

  it('never passes user text through unquoted: column filters, quotes and FTS5 syntax are words', () => {
    expect(parseSearch('author_username:crumb')).toBe('"author_username:crumb"');
    expect(parseSearch('he"llo')).toBe('"he" "llo"');
    // a leading minus is a NOT Loupe writes itself (cake -travel); the word after it is quoted as any other
    expect(parseSearch('^start + plus -minus {x}')).toBe('"^start" AND ("plus" NOT "minus") AND "{x}"');
    expect(parseSearch('a,b')).toBe('"a" "b"');
  });

  it('nothing searchable is null (the caller falls back to a substring match)', () => {
    expect(parseSearch('')).toBeNull();
    expect(parseSearch('   ')).toBeNull();
    expect(parseSearch('💩 !!')).toBeNull();
    expect(parseSearch('💩 cake')).toBe('"cake"');
  });

  it.each([
    ['(crumb OR crust', 'a "(" is not closed'],
    ['crumb)', 'a ")" has no "(" before it'],
    ['()', 'empty parentheses'],
    ['OR crumb', '"OR" needs words before it'],
    ['crumb OR', '"OR" needs words after it'],
    ['crumb OR OR cake', '"OR" needs words after it'],
    ['NOT vegan', '"NOT" needs words before it'],
    ['cake NOT', '"NOT" needs words after it'],
    ['AND cake', '"AND" needs words before it'],
    ['cake AND', '"AND" needs words after it'],
    ['NEAR cake', '"NEAR" needs words before it'],
    ['crumb NEAR', '"NEAR" needs a word or phrase after it'],
    ['(a OR b) NEAR c', '"NEAR" joins words or phrases'],
    ['-travel cake', '"-travel" leaves words out of others: put the words to keep first, e.g. cake -travel.'],
    ['a NEAR/ b', 'needs a number of words after the slash'],
    ['cake NEAR/x coffee', '"NEAR/x" needs a number of words after the slash'],
    ['cake NEAR/3.5 coffee', '"NEAR/3.5" needs a number of words after the slash'],
    ['a NEAR/5000 b', 'a NEAR distance is a number of words up to 1000'],
    ['NEAR(a b, x)', 'takes a number of words after the comma'],
    ['NEAR(a)', 'needs at least two words'],
    ['NEAR(a OR b)', 'holds words and phrases only'],
    ['NEAR(a b', 'NEAR( is not closed'],
    ['cake OR 💩', '"OR" needs words after it'],
  ])('%s is refused: %s', (q, msg) => {
    let err: unknown;
    try {
      parseSearch(q);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SearchSyntaxError);
    expect((err as SearchSyntaxError).kind).toBe('validation');
    expect((err as Error).message).toContain(msg);
    expect((err as Error).message).toMatch(/^Search: /);
  });
});
