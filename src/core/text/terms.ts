/**
 * What a post's text contains, for frequency tables (docs/analysis.md "Terms"): hashtags,
 * mentions, domains of linked URLs, emoji, words and 2-3-grams. One tokenizer for every path
 * (tables computed from the items, the archive-wide totals, the click-through filter), so a
 * term's count and the items a click shows are always the same set.
 *
 * - Case folding: `toLowerCase()` (Unicode default lower case, locale-independent).
 * - Hashtags `#tag` / mentions `@name` / URLs / e-mail addresses are taken out of the text before
 *   words are read (they leave a break behind, so no n-gram spans them).
 * - Words: Unicode word segmentation (UAX #29). Text in a script written without spaces (Han,
 *   Hiragana, Katakana, Thai, Lao, Khmer, Myanmar, Tibetan) goes through `Intl.Segmenter`; other
 *   text through WORD_RE, a regular expression of UAX #29's rules for letters, digits, marks and
 *   mid-word punctuation that yields the same word-like segments as `Intl.Segmenter` (checked in
 *   terms.test.ts) at ~1/15 of its cost. Segments without a letter or digit are not words.
 * - Stop words: stopwords-iso's list for the item's language (its primary subtag: `pt-BR` → pt);
 *   English when the language is unknown or has no list. Numbers-only tokens are treated alike.
 * - Japanese and Chinese (issue 27 #10): the segmenter cuts verbs into a kanji stem and its kana
 *   ending (`使|って|み|た`). In text with kana, a lone kanji joined to the kana segment after it
 *   (not a particle or copula) is one word (`使って`), a lone kana is never a word, and the
 *   Japanese stop words (stopwords-iso's plus JA_STOP: endings and auxiliaries it lacks) apply
 *   whatever the item's language says; in Han text without kana, the Chinese ones.
 * - n-grams: consecutive words inside one run of text (sentence punctuation, line breaks,
 *   brackets, emoji and removed entities end a run) whose first and last word are not stop
 *   words (`bank of america` counts, `of the` does not).
 */
import stopwordsIso from 'stopwords-iso' with { type: 'json' };
import { TERM_FIELDS, type TermField } from '../../shared/analysis';
import { SPACELESS_SCRIPT } from '../../shared/spaceless';

export { TERM_FIELDS, type TermField };

const STOP: Record<string, string[]> = stopwordsIso;
const stopSets = new Map<string, Set<string>>();
/** stopWords by the tag as given (a handful of tags: each item of an index build asks) */
const stopsByTag = new Map<string, Set<string>>();

/** The stop-word set of a language tag (`pt-BR` → pt); English when unknown. */
export function stopWords(lang: string | null | undefined): Set<string> {
  const tag = lang ?? '';
  let known = stopsByTag.get(tag);
  if (!known) {
    known = stopWordsOf(tag);
    if (stopsByTag.size < 1000) stopsByTag.set(tag, known);
  }
  return known;
}

function stopWordsOf(lang: string): Set<string> {
  const primary = lang.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  // own keys only: a language tag from the API such as `constructor` must not reach Object.prototype
  const key = primary && Object.hasOwn(STOP, primary) ? primary : 'en';
  let s = stopSets.get(key);
  if (!s) {
    s = new Set(STOP[key].map((w) => w.toLowerCase()));
    stopSets.set(key, s);
  }
  return s;
}

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`{}|\\^]+/giu;
const EMAIL_RE = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const HASHTAG_RE = /(?<![\p{L}\p{N}\p{M}_&#＃/])[#＃]([\p{L}\p{N}\p{M}_]*[\p{L}\p{M}_][\p{L}\p{N}\p{M}_]*)/gu;
const MENTION_RE = /(?<![\p{L}\p{N}\p{M}_.@/])[@＠]([\p{L}\p{N}_](?:[\p{L}\p{N}_.]*[\p{L}\p{N}_])?)/gu;
const EMOJI_RE =
  /\p{RI}\p{RI}|[0-9#*]\uFE0F?\u20E3|\p{Extended_Pictographic}(?:\p{EMod}|\uFE0F|[\u{E0020}-\u{E007F}])*(?:\u200D\p{Extended_Pictographic}(?:\p{EMod}|\uFE0F)*)*/gu;
/** UAX #29 words for space-delimited scripts (see the header). */
const WORD_RE =
  /[\p{L}\p{N}\p{Pc}](?:[\p{L}\p{N}\p{M}\p{Pc}]|(?!\u200b)\p{Cf}|(?<=\p{L}\p{M}*)['’.:·\u05f4](?=\p{L})|(?<=\p{N}\p{M}*)[,.;'’\u066b\u066c](?=\p{N}))*/gu;
const ASCII_WORD_RE = /[a-z0-9_](?:[a-z0-9_]|(?<=[a-z])['.:](?=[a-z])|(?<=[0-9])[,.;'](?=[0-9]))*/g;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const HAS_LETTER = /\p{L}/u;
/** invisible format characters (bidi controls, joiners) attach to a word (UAX #29 WB4) but are not part of the term */
const FORMAT = /\p{Cf}/gu;
const FORMAT_ANY = /\p{Cf}/u;
/** what ends a run of words (n-grams never span it) */
const BREAK_RE = /[.!?;:\n\r()[\]{}|…。！？；：「」『』（）\u2028\u2029\uFFFC]|\p{Extended_Pictographic}|\p{RI}/u;
const ENTITY_MARK = '\uFFFC';
const MAYBE_URL = /https?:|www\./i;
/** emoji are all outside ASCII, except keycaps (digit + U+20E3, itself outside ASCII) */
const NON_ASCII = /[^\x20-\x7e]/u;

let segmenter: Intl.Segmenter | null = null;

const KANA = /[\p{sc=Hiragana}\p{sc=Katakana}]/u;
const HAN = /\p{sc=Han}/u;
const ONE_HAN = /^\p{sc=Han}$/u;
const HIRAGANA = /^\p{sc=Hiragana}+$/u;
const ONE_KANA = /^[\p{sc=Hiragana}\p{sc=Katakana}ー]$/u;
/** particles and copulas: never the ending of the kanji before them (猫|が stays two) */
const JA_NO_JOIN = new Set([
  'が',
  'を',
  'に',
  'は',
  'で',
  'と',
  'の',
  'も',
  'へ',
  'や',
  'か',
  'ね',
  'よ',
  'な',
  'から',
  'まで',
  'より',
  'です',
  'でした',
  'だ',
  'だった',
  'じゃ',
  'では',
  'けど',
  'ので',
  'のに',
]);
/** endings and auxiliaries the segmenter leaves as words, missing from stopwords-iso's Japanese list */
const JA_STOP = [
  'って',
  'けど',
  'けれど',
  'けども',
  'たい',
  'ました',
  'ません',
  'ます',
  'した',
  'して',
  'します',
  'でした',
  'でし',
  'てる',
  'ちゃう',
  'じゃ',
  'よね',
  'かな',
  'みたい',
  'ござい',
  'そう',
  'すく',
  'やすい',
  'にくい',
  'とても',
  'すごく',
  'ちょっと',
  'もう',
  'まだ',
  'だけ',
  'しか',
  'ばかり',
  'なんか',
  'さん',
  'ちゃん',
  'くん',
];
let jaStops: Set<string> | null = null;

/** The stop words a text's script brings, whatever the item's language says: Japanese with kana, Chinese for Han alone. */
function scriptStops(text: string): Set<string> | null {
  if (KANA.test(text)) return (jaStops ??= new Set([...stopWords('ja'), ...JA_STOP]));
  return HAN.test(text) ? stopWords('zh') : null;
}

/** Word-like segments of spaceless text; in Japanese a lone kanji takes the kana ending after it (使|って → 使って). */
function spacelessSegments(text: string, japanese: boolean): Array<{ segment: string; index: number }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  const segs = [...segmenter.segment(text)].filter((s) => s.isWordLike);
  if (!japanese) return segs;
  const out: Array<{ segment: string; index: number }> = [];
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    const next = segs[i + 1];
    if (
      next &&
      ONE_HAN.test(s.segment) &&
      next.index === s.index + s.segment.length &&
      HIRAGANA.test(next.segment) &&
      !JA_NO_JOIN.has(next.segment)
    ) {
      out.push({ segment: s.segment + next.segment, index: s.index });
      i++;
    } else out.push(s);
  }
  return out;
}

/** The host of a URL as written in text: no scheme, user, port or leading `www.`; lower case. */
export function domainOf(url: string): string | null {
  let s = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  s = s.split(/[/?#]/u)[0] ?? '';
  const at = s.lastIndexOf('@');
  if (at >= 0) s = s.slice(at + 1);
  s = s.replace(/:\d*$/u, '').replace(/\.+$/u, '').toLowerCase();
  if (s.startsWith('www.')) s = s.slice(4);
  return /[\p{L}\p{N}]\.[\p{L}\p{N}]/u.test(s) ? s : null;
}

function trimUrl(u: string): string {
  // sentence punctuation after a link is not part of it; a closing bracket only when unbalanced
  let s = u.replace(/[.,!?;:'"’”»]+$/u, '');
  while (s.endsWith(')') && (s.match(/\(/g)?.length ?? 0) < (s.match(/\)/g)?.length ?? 0)) s = s.slice(0, -1);
  return s;
}

export interface Token {
  word: string;
  /** a stop word of the item's language, or no letter at all */
  skip: boolean;
  /** a break (sentence end, entity, emoji…) lies between this token and the previous one */
  breakBefore: boolean;
}

/** Word tokens of text whose entities were already replaced by breaks (the text is lower-cased here). */
function wordTokens(input: string, stops: Set<string>): Token[] {
  const text = input.toLowerCase();
  const format = FORMAT_ANY.test(text);
  const out: Token[] = [];
  let last = 0;
  const push = (seg: string, start: number, checked: boolean, extra: Set<string> | null = null): void => {
    if (!checked && !HAS_WORD_CHAR.test(seg)) return;
    const word = format ? seg.replace(FORMAT, '') : seg;
    // the usual gap is one space: no break, no slice
    const brk = out.length === 0 || (start - last === 1 && text.charCodeAt(last) === 32 ? false : BREAK_RE.test(text.slice(last, start)));
    const c0 = word.charCodeAt(0);
    const letter = (c0 >= 97 && c0 <= 122) || HAS_LETTER.test(word);
    out.push({ word, skip: !letter || stops.has(word) || (extra !== null && (extra.has(word) || ONE_KANA.test(word))), breakBefore: brk });
    last = start + seg.length;
  };
  if (SPACELESS_SCRIPT.test(text)) {
    const extra = scriptStops(text);
    for (const s of spacelessSegments(text, KANA.test(text))) push(s.segment, s.index, false, extra);
  } else {
    // plain ASCII text: the same rules over ASCII classes (cheaper to match)
    const re = NON_ASCII.test(text) ? WORD_RE : ASCII_WORD_RE;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const c = m[0].charCodeAt(0);
      push(
        m[0],
        m.index,
        c !== 95 &&
          !(c >= 0x203f && c <= 0x2040) &&
          c !== 0x2054 &&
          !(c >= 0xfe33 && c <= 0xfe34) &&
          !(c >= 0xfe4d && c <= 0xfe4f) &&
          c !== 0xff3f,
      );
    }
  }
  return out;
}

export type TermsOf = Record<TermField, string[]>;

/**
 * The fields asked for, as a set: one per combination of fields, found by their bits. Not keyed by
 * the array: most callers pass a new one each call (a network's `['hashtags']`, hasTerm's
 * `[field]`), and a WeakMap entry per call cost a co-hashtag build of 100k posts ~0.4 s of
 * garbage collection (docs/analysis.md "Networks", Performance).
 */
const wantSets = new Map<number, ReadonlySet<TermField>>();
/** exported for terms.test.ts: the same set for the same fields, whatever array holds them */
export function wanted(fields: readonly TermField[]): ReadonlySet<TermField> {
  let bits = 0;
  for (const f of fields) {
    const b = TERM_FIELDS.indexOf(f);
    if (b >= 0) bits |= 1 << b;
  }
  let w = wantSets.get(bits);
  if (!w) wantSets.set(bits, (w = new Set(TERM_FIELDS.filter((_f, b) => (bits & (1 << b)) !== 0))));
  return w;
}

const NGRAM: Partial<Record<TermField, number>> = { bigrams: 2, trigrams: 3 };

/**
 * Every occurrence of each wanted field's terms in one text, in text order (a term written
 * twice is listed twice). Fields not asked for come back empty.
 */
export function extractTerms(
  text: string | null | undefined,
  lang: string | null | undefined,
  fields: readonly TermField[] = TERM_FIELDS,
): TermsOf {
  return termsOf(text, lang, fields, null);
}

/**
 * extractTerms with each bigram as the place of its first word in `words` (the second is the
 * next word) pushed to `pairs`, in text order, and `bigrams` left empty: an index build gives a
 * bigram an id from its two words' ids, without making its text (analysis/bulk-terms.ts). The
 * bigrams of extractTerms are `${words[k]} ${words[k + 1]}` for each k of `pairs`. Needs `words`
 * and `bigrams` among `fields`.
 */
export function extractTermsPaired(
  text: string | null | undefined,
  lang: string | null | undefined,
  fields: readonly TermField[],
  pairs: number[],
): TermsOf {
  return termsOf(text, lang, fields, pairs);
}

function termsOf(
  text: string | null | undefined,
  lang: string | null | undefined,
  fields: readonly TermField[],
  pairs: number[] | null,
): TermsOf {
  const out: TermsOf = { hashtags: [], mentions: [], domains: [], emoji: [], words: [], bigrams: [], trigrams: [] };
  if (!text) return out;
  const want = wanted(fields);
  let rest = text;
  // each entity pattern runs only when its mark is in the text (most posts have none)
  if (MAYBE_URL.test(rest))
    rest = rest.replace(URL_RE, (u) => {
      if (want.has('domains')) {
        const d = domainOf(trimUrl(u));
        if (d) out.domains.push(d);
      }
      return ENTITY_MARK;
    });
  const at = rest.includes('@') || rest.includes('＠');
  if (at) rest = rest.replace(EMAIL_RE, ENTITY_MARK);
  if (rest.includes('#') || rest.includes('＃'))
    rest = rest.replace(HASHTAG_RE, (_m, tag: string) => {
      if (want.has('hashtags')) out.hashtags.push('#' + tag.toLowerCase());
      return ENTITY_MARK;
    });
  // nothing below adds to the hashtags or domains (a network's hashtags skip the mentions' pattern)
  if (!(want.has('mentions') || want.has('emoji') || want.has('words') || want.has('bigrams') || want.has('trigrams'))) return out;
  if (at)
    rest = rest.replace(MENTION_RE, (_m, name: string) => {
      if (want.has('mentions')) out.mentions.push('@' + name.toLowerCase());
      return ENTITY_MARK;
    });
  if (want.has('emoji') && NON_ASCII.test(rest)) for (const m of rest.matchAll(EMOJI_RE)) out.emoji.push(m[0]);
  if (!want.has('words') && !want.has('bigrams') && !want.has('trigrams')) return out;
  const toks = wordTokens(rest, stopWords(lang));
  if (want.has('words')) for (const t of toks) if (!t.skip) out.words.push(t.word);
  if (pairs !== null) {
    if (!want.has('words') || !want.has('bigrams')) throw new Error('bigrams as pairs need words and bigrams');
    // the bigrams' rule below: toks[i] and toks[i + 1] both words (w and w + 1), no break between them
    for (let i = 0, w = 0; i < toks.length; i++) {
      if (toks[i].skip) continue;
      if (i + 1 < toks.length && !toks[i + 1].skip && !toks[i + 1].breakBefore) pairs.push(w);
      w++;
    }
  }
  for (const f of ['bigrams', 'trigrams'] as const) {
    const n = NGRAM[f] as number;
    if (!want.has(f) || (f === 'bigrams' && pairs !== null)) continue;
    for (let i = 0; i + n <= toks.length; i++) {
      if (toks[i].skip || toks[i + n - 1].skip) continue;
      if (toks[i + 1].breakBefore || (n === 3 && toks[i + 2].breakBefore)) continue;
      out[f].push(n === 2 ? `${toks[i].word} ${toks[i + 1].word}` : `${toks[i].word} ${toks[i + 1].word} ${toks[i + 2].word}`);
    }
  }
  return out;
}

/** Whether `text` contains `term` as a term of `field` (the click-through filter, see term-filter.ts). */
export function hasTerm(field: TermField, term: string, text: string | null | undefined, lang: string | null | undefined): boolean {
  if (!text) return false;
  return extractTerms(text, lang, [field])[field].includes(term);
}

/**
 * A term as the user typed it → the form the tables use (lower case; `#`/`@` added to bare
 * hashtags and mentions; domains without scheme or `www.`), or null when it cannot be one.
 */
export function normaliseTerm(field: TermField, input: string): string | null {
  const s = input.trim().toLowerCase();
  if (s === '') return null;
  switch (field) {
    case 'hashtags':
      return '#' + s.replace(/^[#＃]/u, '');
    case 'mentions':
      return '@' + s.replace(/^[@＠]/u, '');
    case 'domains':
      return domainOf(s);
    case 'emoji':
      return input.trim();
    default:
      return s.split(/\s+/u).join(' ');
  }
}

/** Whether the full-text index can pre-select items for a term (its words are FTS tokens). */
export function ftsFriendly(field: TermField, term: string): boolean {
  return field !== 'emoji' && !SPACELESS_SCRIPT.test(term) && HAS_WORD_CHAR.test(term);
}
