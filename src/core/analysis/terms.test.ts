import { describe, expect, it } from 'vitest';
import { hostileTexts } from '../../sandbox/world/index';
import { domainOf, extractTerms, hasTerm, normaliseTerm, stopWords } from './terms';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
/** Intl.Segmenter's word-like segments, lower-cased: what WORD_RE must reproduce */
function segmenterWords(text: string): string[] {
  return [...segmenter.segment(text)].filter((s) => s.isWordLike && /[\p{L}\p{N}]/u.test(s.segment)).map((s) => s.segment.replace(/\p{Cf}/gu, '').toLowerCase());
}

describe('terms', () => {
  it('reads hashtags, mentions, domains and emoji, case-folded', () => {
    const t = extractTerms('Loving #Coffee and #coffee2024 with @Brewly_Co! See https://www.Example.com/a?b=1, http://shop.example.org:8080). Mail me: a.b@mail.com 🙂👍🏽🇧🇷 #123', 'en');
    expect(t.hashtags).toEqual(['#coffee', '#coffee2024']);
    expect(t.mentions).toEqual(['@brewly_co']);
    expect(t.domains).toEqual(['example.com', 'shop.example.org']);
    expect(t.emoji).toEqual(['🙂', '👍🏽', '🇧🇷']);
    expect(t.words).not.toContain('example');
    expect(t.words).not.toContain('brewly_co');
    expect(t.words).toContain('loving');
  });

  it('drops stop words of the item language, English when unknown', () => {
    expect(extractTerms('the cat and the hat', null).words).toEqual(['cat', 'hat']);
    expect(extractTerms('o gato e o chapéu', 'pt-BR').words).toEqual(['gato', 'chapéu']);
    expect(stopWords('xx-YY')).toBe(stopWords('en'));
  });

  it('builds n-grams inside a run, edges never stop words', () => {
    const t = extractTerms('Bank of America raised fees. New York pizza', 'en');
    expect(t.bigrams).toEqual(['america raised', 'raised fees', 'york pizza']);
    expect(t.trigrams).toEqual(['bank of america', 'america raised fees']);
    // "new" is an English stop word in stopwords-iso: no n-gram starts with it
    expect(t.bigrams).not.toContain('fees new');
  });

  it('segments words as Intl.Segmenter does (space-delimited scripts by regex, others by the segmenter)', () => {
    const texts = [
      ...hostileTexts.filter((t) => !/[#@＃＠]|https?:|www\./iu.test(t)),
      "Don't stop: e.g. U.S.A. costs 3.14 or 1,000,000 — rock'n'roll!",
      'Ünïcödé ДОБРЫЙ день Καλημέρα naïve café',
      'שלום עולם «ציטוט» مرحبا بالعالم ١٢٣',
      'नमस्ते दुनिया · Việt Nam xin chào',
      '我爱北京天安门 東京タワー คนไทย',
      'snake_case v1.2.3 12:30 a:b',
    ];
    for (const text of texts) {
      // with stop words and numbers kept: every token
      const t = extractTerms(text, 'zz-none', ['words']);
      const all = segmenterWords(text);
      const sw = stopWords('zz-none');
      expect(t.words, text).toEqual(all.filter((w) => /\p{L}/u.test(w) && !sw.has(w)));
    }
  });

  it('normalises typed terms and tests membership', () => {
    expect(normaliseTerm('hashtags', 'Coffee')).toBe('#coffee');
    expect(normaliseTerm('mentions', '@Brewly')).toBe('@brewly');
    expect(normaliseTerm('domains', 'https://www.Example.com/x')).toBe('example.com');
    expect(normaliseTerm('domains', 'nothing')).toBeNull();
    expect(domainOf('user:pw@host.example.net:99/path')).toBe('host.example.net');
    expect(hasTerm('bigrams', 'raised fees', 'Bank of America raised fees.', 'en')).toBe(true);
    expect(hasTerm('bigrams', 'fees new', 'raised fees. New York', 'en')).toBe(false);
  });
});
