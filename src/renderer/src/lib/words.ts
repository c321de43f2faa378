/**
 * An analyst's words for the API's (issue 14 #10): parameter names, chart buckets, stop reasons.
 * The API's own name stays available on hover. Pure (tested).
 */
import { labelValueWords } from '../../../shared/labels';

const PARAM_WORDS: Record<string, string> = {
  max_pages: 'Pages per request',
  label: 'Extra labels',
  label_evidence: 'Quote the evidence',
  exclude: 'Drop rows judged as',
  brand: 'Brand',
  brand_description: 'Brand description',
  offer: 'Your offer',
  fit: 'Keep only rows for a goal',
  goal: 'Goal',
  fit_tokens: 'Token budget for the goal',
  recall: 'Re-read held-back rows',
  relevance: 'Relevance',
  relevance_threshold: 'Relevance threshold',
  relevant_to: 'Relevant to',
  judgments: 'Judgments',
  since: 'Since',
  until: 'Until',
  recent_days: 'Last N days',
  stop_at_id: 'Stop at post',
  include: 'Also fill',
  trim: 'Lighter records',
  exclude_pinned: 'Leave out pinned posts',
  scan_pages: 'Pages to scan',
  sort: 'Order',
  sort_by: 'Order',
  switch_from: 'Switched away from (brand)',
  query: 'Query',
  handle: 'Handle',
  user_id: 'User id',
  url: 'Link',
  limit: 'Rows',
  count: 'Rows',
  lang: 'Language',
  safe_url: 'Safe links',
  time: 'Time range',
  published: 'Published',
  duration: 'Duration',
  countryCode: 'Country',
  period: 'Period (days)',
  industry: 'Industry',
};

/** Human words for a catalogue parameter (the API name goes on hover). */
export function paramWords(name: string): string {
  if (PARAM_WORDS[name]) return PARAM_WORDS[name];
  const s = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A chart bucket in words: never "null" on an axis; label values in words. */
export function bucketWords(bucket: string | null | undefined, label?: { family: string; field: string }): string {
  if (bucket === null || bucket === undefined || bucket === '' || bucket === 'null') return label ? 'not judged / unsure' : 'unknown';
  if (label) {
    const v = bucket === 'true' ? true : bucket === 'false' ? false : bucket;
    return labelValueWords(label.family, label.field, v);
  }
  return bucket;
}

/**
 * Bidirectional controls made visible (issue 14 #10): U+202E would turn "evil.exe" into
 * "exe.live". Text stays text; each control shows as ⟨RLO⟩ etc. and no longer reorders it.
 */
const BIDI: Record<string, string> = {
  '\u202a': 'LRE',
  '\u202b': 'RLE',
  '\u202c': 'PDF',
  '\u202d': 'LRO',
  '\u202e': 'RLO',
  '\u2066': 'LRI',
  '\u2067': 'RLI',
  '\u2068': 'FSI',
  '\u2069': 'PDI',
};
const HAS_BIDI = /[\u202a-\u202e\u2066-\u2069]/;
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/g;
export function showBidiControls(s: string): string {
  return HAS_BIDI.test(s) ? s.replace(BIDI_RE, (c) => `⟨${BIDI[c]}⟩`) : s;
}

/**
 * Invisible characters made visible in names (issue 27 #19): zero-width joiners and spaces, word
 * joiners, soft hyphens, direction marks and blank fillers make `n‍a‍s‍a` look exactly like `nasa`.
 * Each shows as ⟨ZWJ⟩ etc.; a joiner inside an emoji sequence (👩‍💻) is kept, being how that
 * emoji is written.
 */
const INVISIBLE: Record<string, string> = {
  '\u00ad': 'SHY',
  '\u034f': 'CGJ',
  '\u061c': 'ALM',
  '\u115f': 'FILLER',
  '\u1160': 'FILLER',
  '\u17b4': 'KIV',
  '\u17b5': 'KIV',
  '\u180e': 'MVS',
  '\u200b': 'ZWSP',
  '\u200c': 'ZWNJ',
  '\u200d': 'ZWJ',
  '\u200e': 'LRM',
  '\u200f': 'RLM',
  '\u2060': 'WJ',
  '\u2061': 'INV',
  '\u2062': 'INV',
  '\u2063': 'INV',
  '\u2064': 'INV',
  '\u3164': 'FILLER',
  '\ufeff': 'ZWNBSP',
  '\uffa0': 'FILLER',
};
// the joiners and marks are the point of this class: each is matched alone, never combined
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE_RE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2060-\u2064\u3164\ufeff\uffa0]/g;
const EMOJI_JOIN = /\p{Extended_Pictographic}(?:\ufe0f|\p{Emoji_Modifier})?$/u;
const EMOJI_NEXT = /^\p{Extended_Pictographic}/u;
export function showInvisibles(s: string): string {
  INVISIBLE_RE.lastIndex = 0;
  if (!INVISIBLE_RE.test(s)) return s;
  return s.replace(INVISIBLE_RE, (c, at: number) => {
    if (c === '\u200d' && EMOJI_JOIN.test(s.slice(Math.max(0, at - 4), at)) && EMOJI_NEXT.test(s.slice(at + 1, at + 3))) return c;
    return `⟨${INVISIBLE[c]}⟩`;
  });
}

/** A name as drawn: bidi controls and invisible characters shown for what they are. */
export function showName(s: string): string {
  return showInvisibles(showBidiControls(s));
}

/**
 * A watchlist without a forecast, as one sentence per thought (issue 27 #13): the core's note is a
 * sentence of its own ("No history yet: a forecast needs two runs (…)."), never run into
 * "No forecast yet: No history yet: … arrive).." — its own "No … yet:" lead is dropped and one
 * full stop ends it.
 */
export function forecastLine(note: string | null | undefined): string {
  const n = (note ?? '').trim().replace(/^No (history|forecast) yet\s*[:.;—-]\s*/i, '');
  if (!n) return 'No forecast yet. A forecast needs two runs with pages, spread in time.';
  const body = n.charAt(0).toUpperCase() + n.slice(1);
  return `No forecast yet. ${/[.!?]$/.test(body) ? body : `${body}.`}`;
}

/**
 * What Settings says about where keys are kept when no keychain answered: an error only when a
 * key is needed or held (a real service, or keys saved); on a first run on the sandbox, which
 * needs no key, a plain note for later (issue 27 #13).
 */
export function keychainNotice(
  info: { sandbox: boolean; secretBackendMessage: string | null } | undefined,
  keyCount: number,
): { error: boolean; text: string } | null {
  if (!info?.secretBackendMessage) return null;
  if (!info.sandbox || keyCount > 0) return { error: true, text: info.secretBackendMessage };
  return {
    error: false,
    text: `For later, when you add a key: ${info.secretBackendMessage.charAt(0).toLowerCase()}${info.secretBackendMessage.slice(1)}`,
  };
}
