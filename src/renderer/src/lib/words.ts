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
  '\u202a': 'LRE', '\u202b': 'RLE', '\u202c': 'PDF', '\u202d': 'LRO', '\u202e': 'RLO',
  '\u2066': 'LRI', '\u2067': 'RLI', '\u2068': 'FSI', '\u2069': 'PDI',
};
const HAS_BIDI = /[\u202a-\u202e\u2066-\u2069]/;
const BIDI_RE = /[\u202a-\u202e\u2066-\u2069]/g;
export function showBidiControls(s: string): string {
  return HAS_BIDI.test(s) ? s.replace(BIDI_RE, (c) => `⟨${BIDI[c]}⟩`) : s;
}
