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
 * - n-grams: consecutive words inside one run of text (sentence punctuation, line breaks,
 *   brackets, emoji and removed entities end a run) whose first and last word are not stop
 *   words (`bank of america` counts, `of the` does not).
 */
import stopwordsIso from 'stopwords-iso';
import { TERM_FIELDS, type TermField } from '../../shared/analysis';

export { TERM_FIELDS, type TermField };

const STOP = stopwordsIso as unknown as Record<string, string[]>;
const stopSets = new Map<string, Set<string>>();

/** The stop-word set of a language tag (`pt-BR` → pt); English when unknown. */
export function stopWords(lang: string | null | undefined): Set<string> {
  const primary = (lang ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const key = primary && STOP[primary] ? primary : 'en';
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
const SPACELESS = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\p{sc=Tibetan}]/u;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
const HAS_LETTER = /\p{L}/u;
/** invisible format characters (bidi controls, joiners) attach to a word (UAX #29 WB4) but are not part of the term */
const FORMAT = /\p{Cf}/gu;
/** what ends a run of words (n-grams never span it) */
const BREAK_RE = /[.!?;:\n\r()[\]{}|…。！？；：「」『』（）\u2028\u2029\uFFFC]|\p{Extended_Pictographic}|\p{RI}/u;
const ENTITY_MARK = '\uFFFC';

let segmenter: Intl.Segmenter | null = null;

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

/** Word tokens of text whose entities were already replaced by breaks. */
function wordTokens(text: string, stops: Set<string>): Token[] {
  const out: Token[] = [];
  let last = 0;
  const push = (seg: string, start: number): void => {
    if (!HAS_WORD_CHAR.test(seg)) return;
    const word = seg.replace(FORMAT, '').toLowerCase();
    const gap = text.slice(last, start);
    out.push({ word, skip: !HAS_LETTER.test(word) || stops.has(word), breakBefore: out.length === 0 || BREAK_RE.test(gap) });
    last = start + seg.length;
  };
  if (SPACELESS.test(text)) {
    segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
    for (const s of segmenter.segment(text)) if (s.isWordLike) push(s.segment, s.index);
  } else {
    for (const m of text.matchAll(WORD_RE)) push(m[0], m.index);
  }
  return out;
}

export type TermsOf = Record<TermField, string[]>;

const NGRAM: Partial<Record<TermField, number>> = { bigrams: 2, trigrams: 3 };

/**
 * Every occurrence of each wanted field's terms in one text, in text order (a term written
 * twice is listed twice). Fields not asked for come back empty.
 */
export function extractTerms(text: string | null | undefined, lang: string | null | undefined, fields: readonly TermField[] = TERM_FIELDS): TermsOf {
  const out: TermsOf = { hashtags: [], mentions: [], domains: [], emoji: [], words: [], bigrams: [], trigrams: [] };
  if (!text) return out;
  const want = new Set(fields);
  let rest = text.replace(URL_RE, (u) => {
    if (want.has('domains')) {
      const d = domainOf(trimUrl(u));
      if (d) out.domains.push(d);
    }
    return ENTITY_MARK;
  });
  rest = rest.replace(EMAIL_RE, ENTITY_MARK);
  rest = rest.replace(HASHTAG_RE, (_m, tag: string) => {
    if (want.has('hashtags')) out.hashtags.push('#' + tag.toLowerCase());
    return ENTITY_MARK;
  });
  rest = rest.replace(MENTION_RE, (_m, name: string) => {
    if (want.has('mentions')) out.mentions.push('@' + name.toLowerCase());
    return ENTITY_MARK;
  });
  if (want.has('emoji')) for (const m of rest.matchAll(EMOJI_RE)) out.emoji.push(m[0]);
  if (!want.has('words') && !want.has('bigrams') && !want.has('trigrams')) return out;
  const toks = wordTokens(rest, stopWords(lang));
  if (want.has('words')) for (const t of toks) if (!t.skip) out.words.push(t.word);
  for (const f of ['bigrams', 'trigrams'] as const) {
    const n = NGRAM[f] as number;
    if (!want.has(f)) continue;
    for (let i = 0; i + n <= toks.length; i++) {
      if (toks[i].skip || toks[i + n - 1].skip) continue;
      let ok = true;
      for (let k = 1; k < n; k++) if (toks[i + k].breakBefore) ok = false;
      if (ok) out[f].push(toks.slice(i, i + n).map((t) => t.word).join(' '));
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
  return field !== 'emoji' && !SPACELESS.test(term) && HAS_WORD_CHAR.test(term);
}
