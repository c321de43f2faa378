/**
 * Engagement (src/shared/analysis.ts engagementOf: likes + comments + shares + saves, known
 * counts only, null when none is known) as SQL over an items alias. The one SQL spelling of it.
 */
import { ENGAGEMENT_PARTS } from '../../shared/analysis';

export function engagementSql(alias = 'i'): string {
  const cols = ENGAGEMENT_PARTS.map((c) => `${alias}.${c}`);
  return `(CASE WHEN ${cols.map((c) => `${c} IS NULL`).join(' AND ')} THEN NULL ELSE ${cols.map((c) => `coalesce(${c}, 0)`).join(' + ')} END)`;
}

export const SUM_COLUMNS = ['views', 'likes', 'comments', 'shares', 'saves', 'engagement'] as const;
export type SumColumn = (typeof SUM_COLUMNS)[number];
