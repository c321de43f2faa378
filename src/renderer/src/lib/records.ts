/**
 * What a row shows beyond its plain columns: text / author / title as displayed (the row's columns,
 * extracted by src/shared/record-fields.ts — the one definition the archive filters, sorts and
 * searches by; views never read their own fields out of `record`), and label chips and facets.
 * Everything here tolerates missing fields: hostile or partial data must never crash a view.
 * Label chips never rely on colour alone: every chip carries its text.
 */
import { showBidiControls, showName } from './words';
import type { LibraryRowFields } from '../../../shared/contract';
import { authorName } from '../../../shared/record-fields';

export type Rec = Record<string, unknown>;

export function isObj(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function get(r: unknown, path: string): unknown {
  let v: unknown = r;
  for (const k of path.split('.')) {
    if (!isObj(v)) return undefined;
    v = v[k];
  }
  return v;
}

export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A row's text as shown: the archive's `text` column (src/shared/record-fields.ts), bidi controls made visible. */
export function displayText(r: Pick<LibraryRowFields, 'text'>): string {
  return showBidiControls(r.text ?? '');
}

/** A row's author as shown: its username, else its display name (src/shared/record-fields.ts authorName). */
export function displayAuthor(r: Pick<LibraryRowFields, 'author'>): string {
  return showName(authorName(r.author));
}

/** A row's title as shown (`ext.post_title` or `title`), '' when none. */
export function displayTitle(r: Pick<LibraryRowFields, 'title'>): string {
  return showBidiControls(r.title ?? '');
}

/** Labels with the user's overrides applied on top (family → field → value): the row's `labels` column, families that are objects. */
export function effectiveLabels(row: Pick<LibraryRowFields, 'labels'>): Record<string, Rec> {
  const out: Record<string, Rec> = {};
  for (const [fam, v] of Object.entries(row.labels ?? {})) if (isObj(v)) out[fam] = v;
  return out;
}

export type Tone = 'pos' | 'neg' | 'neu' | 'warn' | 'info' | 'muted';

export interface Chip {
  family: string;
  /** facet key: "family=value" */
  key: string;
  text: string;
  tone: Tone;
  title: string;
  overridden: boolean;
}

const P_THRESHOLD = 0.5;

function pct(p: number): string {
  return `${Math.round(p * 100)}%`;
}

/** Small chips for a row: only what is asserted (a probability ≥ 0.5, a named label). */
export function labelChips(row: Pick<LibraryRowFields, 'labels' | 'overrides'>): Chip[] {
  const labels = effectiveLabels(row);
  const chips: Chip[] = [];
  const over = row.overrides ?? {};
  const push = (family: string, value: string, text: string, tone: Tone, title: string) =>
    chips.push({ family, key: `${family}=${value}`, text, tone, title, overridden: family in over });
  for (const [fam, v] of Object.entries(labels)) {
    const p = num(v.p);
    const label = str(v.label);
    switch (fam) {
      case 'sentiment': {
        const l = label ?? (p === null ? null : p >= 0.6 ? 'positive' : p <= 0.4 ? 'negative' : 'neutral');
        if (l)
          push(
            fam,
            l,
            l,
            l === 'positive' ? 'pos' : l === 'negative' ? 'neg' : 'neu',
            `sentiment: ${l}${p !== null ? ` (p ${p.toFixed(2)})` : ''}`,
          );
        break;
      }
      case 'sponsored': {
        if (v.undisclosed === true)
          push(
            fam,
            'undisclosed',
            'sponsored · undisclosed',
            'warn',
            `likely paid, no disclosure marker${p !== null ? ` (p ${p.toFixed(2)})` : ''}`,
          );
        else if (v.disclosed === true)
          push(fam, 'disclosed', 'sponsored', 'info', `disclosed sponsorship${str(v.brand) ? ` for ${str(v.brand)}` : ''}`);
        else if (p !== null && p >= P_THRESHOLD)
          push(fam, 'likely', `sponsored ${pct(p)}`, 'warn', `sponsored probability ${p.toFixed(2)}`);
        break;
      }
      case 'intent':
      case 'niche': {
        if (label)
          push(
            fam,
            label,
            label.replace(/_/g, ' '),
            fam === 'intent' ? 'info' : 'muted',
            `${fam}: ${label}${confidenceText(num(v.confidence))}`,
          );
        break;
      }
      case 'mention': {
        const lvl = num(v.sentiment_level);
        if (lvl !== null)
          push(
            fam,
            `level${lvl}`,
            `mention ${lvl}/4`,
            lvl >= 3 ? 'pos' : lvl <= 1 ? 'neg' : 'neu',
            `brand mention sentiment level ${lvl} of 4`,
          );
        break;
      }
      case 'quality': {
        const aim = str(v.post_aim);
        if (aim) push(fam, aim, `aim: ${aim}`, 'muted', 'quality: post aim');
        break;
      }
      case 'injection': {
        if (v.flagged === true) push(fam, 'flagged', 'injection!', 'neg', 'text that tries to direct an AI system');
        break;
      }
      default: {
        if (p !== null && p >= P_THRESHOLD) {
          const tone: Tone = fam === 'purchase_intent' ? 'pos' : fam === 'question' ? 'info' : 'neg';
          push(fam, 'yes', fam.replace(/_/g, ' '), tone, `${fam}: p ${p.toFixed(2)}`);
        } else if (label) push(fam, label, `${fam}: ${label}`, 'muted', fam);
      }
    }
  }
  return chips;
}

export interface FacetGroup {
  family: string;
  values: Array<{ key: string; text: string; count: number }>;
}

/** The facet of a row's language (issue 27 #9): its primary tag (`pt-BR` → pt), `und` when not known. */
export function languageFacet(r: Pick<LibraryRowFields, 'lang'>): { family: string; key: string; text: string } {
  const l = (r.lang ?? '').trim().toLowerCase().split(/[-_]/)[0] || 'und';
  return { family: 'language', key: `language=${l}`, text: l === 'und' ? 'not known' : l };
}

/** What a row offers the facets: its label chips, then its language. */
function facetChips(r: Pick<LibraryRowFields, 'labels' | 'overrides' | 'lang'>): Array<{ family: string; key: string; text: string }> {
  return [...labelChips(r), languageFacet(r)];
}

/** Facet counts over what is loaded: label values, then languages. */
export function facetCounts(rows: Array<Pick<LibraryRowFields, 'labels' | 'overrides' | 'lang'>>): FacetGroup[] {
  const fams = new Map<string, Map<string, { text: string; count: number }>>();
  for (const r of rows) {
    for (const c of facetChips(r)) {
      let m = fams.get(c.family);
      if (!m) fams.set(c.family, (m = new Map()));
      const cur = m.get(c.key);
      if (cur) cur.count++;
      else m.set(c.key, { text: c.text, count: 1 });
    }
  }
  return [...fams.entries()]
    .sort((a, b) => Number(a[0] === 'language') - Number(b[0] === 'language') || a[0].localeCompare(b[0]))
    .map(([family, m]) => ({ family, values: [...m.entries()].map(([key, v]) => ({ key, ...v })).sort((a, b) => b.count - a.count) }));
}

/** Within a family the selected values are OR-ed; across families AND-ed. */
export function applyFacets<R extends Pick<LibraryRowFields, 'labels' | 'overrides' | 'relevance' | 'lang'>>(
  rows: R[],
  selected: ReadonlySet<string>,
  relevanceMin: number | null,
): R[] {
  const byFam = new Map<string, Set<string>>();
  for (const k of selected) {
    const fam = k.split('=')[0];
    let s = byFam.get(fam);
    if (!s) byFam.set(fam, (s = new Set()));
    s.add(k);
  }
  return rows.filter((r) => {
    if (relevanceMin !== null && relevanceMin > 0) {
      const p = r.relevance;
      if (p === null || p < relevanceMin) return false;
    }
    if (byFam.size === 0) return true;
    const keys = new Set(facetChips(r).map((c) => c.key));
    for (const s of byFam.values()) if (![...s].some((k) => keys.has(k))) return false;
    return true;
  });
}

export function rowKey(r: { platform: string; kind: string; id: string }): string {
  return `${r.platform}/${r.kind}/${r.id}`;
}

const confidenceText = (c: number | null): string => (c !== null ? ` (confidence ${c.toFixed(2)})` : '');
