/**
 * A frequency table as CSV (RFC 4180, formula-neutralised cells, ISO times), the same bytes from
 * the CLI (`loupe analyze top --format csv`) and the app's Analysis view.
 */
import type { FrequencyTable } from './analysis';
import { neutraliseCell } from './csv-cell';

const HEADER = ['term', 'items', 'occurrences', 'share', 'first_seen', 'last_seen', 'views', 'likes', 'comments', 'shares', 'saves', 'engagement'];

function cell(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '';
  const s = neutraliseCell(String(v));
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

export function frequencyCsv(t: FrequencyTable): string {
  const authors = t.field === 'authors';
  const lines = [[...HEADER, ...(authors ? ['platform', 'author_id'] : [])].join(',')];
  for (const r of t.rows) {
    const s = r.sums;
    lines.push(
      [r.term, r.count, r.occurrences, r.share, iso(r.firstSeen), iso(r.lastSeen), s.views, s.likes, s.comments, s.shares, s.saves, s.engagement, ...(authors ? [r.platform, r.authorId] : [])]
        .map(cell)
        .join(','),
    );
  }
  return lines.join('\r\n') + '\r\n';
}
