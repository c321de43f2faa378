import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hostileTexts } from '../../sandbox/world/index';
import {
  domainOf,
  extractTerms,
  extractTermsPaired,
  hasTerm,
  normaliseTerm,
  stopWords,
  TERM_FIELDS,
  wanted,
  type TermField,
} from './terms';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
/** Intl.Segmenter's word-like segments, lower-cased: what WORD_RE must reproduce */
function segmenterWords(text: string): string[] {
  return [...segmenter.segment(text)]
    .filter((s) => s.isWordLike && /[\p{L}\p{N}]/u.test(s.segment))
    .map((s) => s.segment.replace(/\p{Cf}/gu, '').toLowerCase());
}

describe('terms', () => {
  it('reads hashtags, mentions, domains and emoji, case-folded', () => {
    const t = extractTerms(
      'Loving #Coffee and #coffee2024 with @Brewly_Co! See https://www.Example.com/a?b=1, http://shop.example.org:8080). Mail me: a.b@mail.com 🙂👍🏽🇧🇷 #123',
      'en',
    );
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

  it("takes a language tag from the API as data: an object's own names are unknown languages", () => {
    for (const tag of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf-XX'])
      expect(stopWords(tag), tag).toBe(stopWords('en'));
    expect(extractTerms('the cat and the hat', 'constructor').words).toEqual(['cat', 'hat']);
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
    // Japanese and Chinese are checked against a hand-made expectation below (their own stop words, kanji stems joined)
    for (const text of texts.filter((t) => !/[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]/u.test(t))) {
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

  it('top words of a mixed corpus: Japanese verbs whole, no particles or endings, each language its stop words (issue 27 #10)', () => {
    const corpus: Array<[string, string | null]> = [
      ['この新しいスニーカーを使ってみたけど、本当に走りやすいって感じです。', 'ja'],
      ['スニーカーを使ってみた！東京マラソンで使いたい', 'ja'],
      ['このスニーカー、履き心地が最高です', null],
      ['新しいシューズを買いました！走りやすくて最高', 'ja'],
      ['猫がスニーカーを噛んでる笑', 'ja'],
      ['跑步鞋很舒服，我很喜欢这双鞋', 'zh'],
      ['我们今天去跑步了，鞋很舒服', 'zh'],
      ['These sneakers are great for the marathon', 'en'],
      ['The marathon sneakers arrived today', 'en'],
    ];
    const items = new Map<string, number>();
    for (const [text, lang] of corpus)
      for (const w of new Set(extractTerms(text, lang, ['words']).words)) items.set(w, (items.get(w) ?? 0) + 1);
    const top = [...items].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    expect(Object.fromEntries(top)).toEqual({
      スニーカー: 4,
      marathon: 2,
      sneakers: 2,
      使って: 2,
      新しい: 2,
      最高: 2,
      舒服: 2,
      跑步: 2,
      走り: 2,
      鞋: 2,
    });
    // fragments, particles and endings the segmenter leaves are never words
    for (const bad of ['って', 'み', '使', 'た', 'を', 'が', 'です', 'けど', 'たい', 'ました', '很', '我', '了', 'the', 'are'])
      expect(items.has(bad), bad).toBe(false);
    // a lone kanji before a particle stays itself: 猫|が
    expect(extractTerms('猫が好きです', 'ja').words).toEqual(['猫', '好き']);
  });

  it('gives the bigrams as the places of their words (extractTermsPaired) exactly as extractTerms writes them', () => {
    const pieces = [
      ...hostileTexts.filter((t) => t.length < 1000),
      'the',
      'of',
      'new',
      'bank',
      'america',
      'fees',
      '#tag',
      '@who',
      'https://x.example.com/a',
      '🙂',
      '.',
      ',',
      ' ',
      '  ',
      '\n',
      '42',
      'café',
      'ünïcode',
      '\u200d',
      '\ud800',
      '\udc00x',
      '\ufffd',
      'スニーカー',
      '使って',
      '猫が好き',
      '舒服',
      'a\u00a0b',
      'x_y',
    ];
    const fields = [TERM_FIELDS, ['words', 'bigrams'] as const, ['hashtags', 'words', 'emoji', 'bigrams'] as const];
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...pieces),
            fc.string(),
            fc.string({ unit: 'binary', maxLength: 6 }),
            fc.string({ unit: 'grapheme', maxLength: 8 }),
          ),
          { maxLength: 24 },
        ),
        fc.array(fc.constantFrom(' ', '', '. ', ' - ', '\n', '\t', '! '), { minLength: 24, maxLength: 24 }),
        fc.constantFrom(null, 'en', 'pt', 'ja', 'zh', 'de'),
        fc.constantFrom(...fields),
        (parts, gaps, lang, want) => {
          const text = parts.map((p, k) => p + gaps[k]).join('');
          const pairs: number[] = [];
          const paired = extractTermsPaired(text, lang, want, pairs);
          const plain = extractTerms(text, lang, want);
          expect(paired.bigrams).toEqual([]);
          expect(pairs.map((k) => `${paired.words[k]} ${paired.words[k + 1]}`)).toEqual(plain.bigrams);
          expect({ ...paired, bigrams: plain.bigrams }).toEqual(plain);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('reads the fields asked for exactly as a read of every field does, in any order, from a new array each call', () => {
    const pieces = [
      ...hostileTexts.filter((t) => t.length < 1000),
      '#tag',
      '＃タグ',
      '#a@b.example',
      'x@y.example',
      '@who',
      '＠誰',
      'https://x.example/#frag',
      '🙂',
      'bank of america',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string(), fc.string({ unit: 'grapheme', maxLength: 8 })), { maxLength: 16 }),
        fc.constantFrom(null, 'en', 'ja'),
        fc.shuffledSubarray([...TERM_FIELDS]),
        (parts, lang, fields) => {
          const text = parts.join(' ');
          const all = extractTerms(text, lang, TERM_FIELDS);
          const some = extractTerms(text, lang, [...fields]);
          for (const f of TERM_FIELDS) expect(some[f]).toEqual(fields.includes(f) ? all[f] : []);
        },
      ),
      { numRuns: 400 },
    );
  });
  it('keeps one set of wanted fields per combination, not one per array (a network asks with a new array for every post)', () => {
    const hashtags: TermField[] = ['hashtags'];
    expect(wanted(['hashtags'])).toBe(wanted(hashtags));
    expect(wanted(['words', 'bigrams'])).toBe(wanted(['bigrams', 'words']));
    expect([...wanted(['mentions', 'hashtags', 'mentions'])].sort()).toEqual(['hashtags', 'mentions']);
    expect(wanted(['hashtags'])).not.toBe(wanted(['mentions']));
  });
});
