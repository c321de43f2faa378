/**
 * What a network is made of, read from one exported row (docs/analysis.md "Networks"):
 * hashtags and mentions in the item's text, its author, the item it replies to, and the label
 * values the node attributes summarise (effective values: the analyst's override wins).
 */
import type { ExportRow } from '../ports';
import { extractTerms, type TermField } from '../text';

const HASHTAGS: readonly TermField[] = ['hashtags'];
const MENTIONS: readonly TermField[] = ['mentions'];

/**
 * Case-folded, unique hashtags of a text, in order of first appearance, without `#` — as the
 * frequency tables find them (terms.ts extractTerms: not inside a link, at least one letter), so a
 * network's hashtag node and the table's row count the same items.
 */
export function hashtagsOf(text: string | null | undefined): string[] {
  if (!text || !(text.includes('#') || text.includes('＃'))) return [];
  return unique(extractTerms(text, null, HASHTAGS).hashtags);
}

/** Case-folded, unique handles mentioned in a text, without `@` (as the frequency tables find them: e-mail addresses are not mentions). */
export function mentionsOf(text: string | null | undefined): string[] {
  if (!text || !(text.includes('@') || text.includes('＠'))) return [];
  return unique(extractTerms(text, null, MENTIONS).mentions);
}

function unique(terms: string[]): string[] {
  const out: string[] = [];
  for (const t of terms) {
    const v = t.slice(1); // '#' / '@'
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export interface RowAuthor {
  /** the node key of the account: `platform` + handle (case-folded), or + `id:` + id without a handle */
  key: string;
  id: string | null;
  username: string | null;
  displayName: string | null;
  followers: number | null;
}

/** The label values node attributes summarise (effective: override first). */
export interface RowLabels {
  /** sponsored.p, when judged */
  sponsoredP: number | null;
  /** intent.label, when judged and not null */
  intent: string | null;
  /** comment sentiment.label, when judged */
  sentiment: string | null;
}

export interface RowFacts {
  platform: string;
  kind: string;
  id: string;
  text: string | null;
  author: RowAuthor | null;
  parentId: string | null;
  likes: number | null;
  labels: RowLabels;
}

/** An account's node key from its handle (a mention, `@` or not, any case). */
export function handleKey(platform: string, handle: string): string {
  return `${platform}:${handle.replace(/^@/, '').normalize('NFC').toLowerCase()}`;
}

export function userKey(platform: string, handle: string | null, id: string | null): string | null {
  if (handle) return handleKey(platform, handle);
  if (id) return `${platform}:id:${id}`;
  return null;
}

function effective(row: ExportRow, labels: Record<string, unknown> | undefined, family: string, field: string): unknown {
  const o = obj(row.overrides?.[family]);
  if (o && Object.prototype.hasOwnProperty.call(o, field)) return o[field];
  return obj(labels?.[family])?.[field];
}

/** Everything the network builders read from one row. */
export function factsOf(row: ExportRow): RowFacts {
  const rec = obj(row.record) ?? {};
  const content = obj(rec.content);
  const a = obj(rec.author);
  let author: RowAuthor | null = null;
  if (a) {
    const username = str(a.username);
    const id = str(a.id);
    const key = userKey(row.platform, username, id);
    if (key)
      author = { key, id, username, displayName: str(a.display_name), followers: num(a.followers) ?? num(obj(rec.counts)?.followers) };
  }
  const labels = obj(obj(rec.computed)?.labels);
  const sp = effective(row, labels, 'sponsored', 'p');
  const intent = effective(row, labels, 'intent', 'label');
  const sentiment = effective(row, labels, 'sentiment', 'label');
  return {
    platform: row.platform,
    kind: row.kind,
    id: row.id,
    text: typeof content?.text === 'string' ? content.text : null,
    author,
    parentId: str(rec.parent_id),
    likes: num(obj(rec.engagement)?.likes),
    labels: {
      sponsoredP:
        typeof sp === 'number' ? sp : typeof sp === 'string' && sp.trim() !== '' && Number.isFinite(Number(sp)) ? Number(sp) : null,
      intent: typeof intent === 'string' ? intent : null,
      sentiment: typeof sentiment === 'string' ? sentiment : null,
    },
  };
}
