/**
 * Names in a library query that Loupe does not know (issue 24 #8): a network, a kind of item, a
 * label family, a label field or a label value. A typo used to match nothing and succeed ("Exported
 * 0 rows", exit 0); it is refused with a sentence naming it and the nearest valid names.
 *
 * Pure: the names come from the caller (src/core/query-names.ts gathers them from the catalogue,
 * the archive and the label table, src/shared/labels.ts); the same sentences at every door.
 */
import { labelFieldSpec, LABEL_SPECS } from './labels';
import type { LabelCondition } from './query';

/**
 * The kinds of item the library's Kind menu offers (the app). Every one is a kind the archive
 * writes: the record keys the extraction knows (src/core/archive/extract.ts RECORD_KINDS) and
 * `audio`, the key the spec's music lists use (kept under its own name).
 */
export const LIBRARY_KINDS = ['post', 'comment', 'profile', 'group', 'advertiser', 'hashtag', 'place', 'audio'] as const;

/** Edit distance (optimal string alignment: insert, delete, substitute, swap two neighbours), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (s === t) return 0;
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0][j] = j;
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[s.length][t.length];
}

/**
 * The valid names nearest to `name`: those at the smallest edit distance, when it is small for
 * the name's length (1 for short names, up to a third of the length), at most five.
 */
export function nearestNames(name: string, valid: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best = Infinity;
  let out: string[] = [];
  for (const v of new Set(valid)) {
    const d = editDistance(name, v);
    if (d > limit || d > best) continue;
    if (d < best) {
      best = d;
      out = [];
    }
    out.push(v);
  }
  return out.sort().slice(0, 5);
}

/** `a, b or c` */
function orList(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** At most 15 names, then how many more. */
function someNames(xs: readonly string[]): string {
  const shown = xs.slice(0, 15).join(', ');
  return xs.length > 15 ? `${shown}, … (${xs.length} in all)` : shown;
}

/**
 * One sentence for an unknown name: `"micro_nett" is not a network Loupe knows. Did you mean
 * micro_net? (Networks: …)`. `what`: 'network', 'kind of item', 'label family', …; `listName`: the
 * list's heading ('Networks').
 */
export function unknownNameSentence(name: string, what: string, valid: readonly string[], listName: string, note = ''): string {
  const near = nearestNames(name, valid);
  const sorted = [...new Set(valid)].sort();
  return `${JSON.stringify(name)} is not a ${what}${note}.${near.length ? ` Did you mean ${orList(near)}?` : ''}${sorted.length ? ` (${listName}: ${someNames(sorted)}.)` : ''}`;
}

/** What the archive holds beyond the label table (other legal shapes of the service may send more). */
export interface HeldLabels {
  /** family → fields the archive holds labels or overrides for */
  fields: ReadonlyMap<string, readonly string[]>;
  /** whether the archive holds this value for family.field (asked only for a value the table does not know) */
  holds(family: string, field: string, value: string): boolean;
  /** text values the archive holds for family.field (for the sentence) */
  values(family: string, field: string): readonly string[];
}

const NO_HELD: HeldLabels = { fields: new Map(), holds: () => false, values: () => [] };

const truthWords = new Set(['true', 'false']);
const isNumeric = (v: unknown) => typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));

/**
 * Why a label condition names something no item can carry, in one sentence; null when it is fine.
 * Families and fields: the label table's and the archive's. Values are checked where the table
 * says what a field holds: a category (one of its values, or one the archive holds), yes/no, or a
 * number; free-text fields (a brand, a niche) take any text.
 */
export function labelConditionProblem(
  c: Pick<LabelCondition, 'family' | 'field' | 'op' | 'value'>,
  held: HeldLabels = NO_HELD,
): string | null {
  const families = [...Object.keys(LABEL_SPECS), ...held.fields.keys()];
  if (!families.includes(c.family)) return unknownNameSentence(c.family, 'label family', families, 'Families');
  const fields = [...Object.keys(LABEL_SPECS[c.family]?.fields ?? {}), ...(held.fields.get(c.family) ?? [])];
  if (!fields.includes(c.field)) return unknownNameSentence(c.field, `field of the ${c.family} labels`, fields, 'Fields');
  const spec = labelFieldSpec(c.family, c.field);
  if (!spec) return null; // a field only the archive knows: its values are whatever it holds
  const name = `${c.family}.${c.field}`;
  const ordering = c.op !== 'eq' && c.op !== 'neq';
  switch (spec.type) {
    case 'enum': {
      if (ordering) return `${name} is a category (${someNames(spec.values)}); compare it with = or !=, not ${c.op}.`;
      const v = String(c.value);
      if (spec.values.includes(v) || held.holds(c.family, c.field, v)) return null;
      return unknownNameSentence(v, `value of ${name}`, [...spec.values, ...held.values(c.family, c.field)], 'Values');
    }
    case 'bool':
      if (ordering || typeof c.value === 'boolean' || truthWords.has(String(c.value)) || c.value === 0 || c.value === 1) return null;
      return `${name} is yes or no: write true or false; got ${JSON.stringify(c.value)}.`;
    case 'prob':
    case 'int':
      if (isNumeric(c.value)) return null;
      return `${name} is a number (${spec.type === 'prob' ? 'a probability from 0 to 1' : `a whole number from ${spec.min} to ${spec.max}`}); got ${JSON.stringify(c.value)}.`;
    case 'text':
      return null;
  }
}
