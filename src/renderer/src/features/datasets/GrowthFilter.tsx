/**
 * The Library's growth filter and sort (issue 29; docs/archive.md "Library query model"): how much
 * one count grew over a period, read from the metric history — the same `growth` condition as the
 * command line's `--growth likes --growth-since 7d [--growth-min N]` and `--sort growth:desc`.
 * The period's start is fixed when it is chosen (on the service's clock, as readings are dated), so
 * the query does not change under the table while it is open.
 */
import { useState } from 'react';
import type { GrowthCondition, LibraryQuery } from '../../../../shared/query';
import { ENGAGEMENT_FIELDS, type EngagementField } from '../../../../shared/contract-constants';
import { DraftInput } from '../../components/DraftInput';
import { Field } from '../../components/cells';
import { serviceNow } from '../../lib/format';

export const GROWTH_PERIODS = [
  { days: 1, words: 'the last day' },
  { days: 7, words: 'the last 7 days' },
  { days: 30, words: 'the last 30 days' },
  { days: 90, words: 'the last 90 days' },
  { days: 365, words: 'the last year' },
] as const;
const DAY = 86_400_000;

/** The query with this growth condition (or none): a growth sort goes with the condition it needs. */
export function withGrowth(q: LibraryQuery, growth: GrowthCondition | undefined, sortByIt?: boolean): LibraryQuery {
  const next: LibraryQuery = { ...q, growth };
  if (!growth && q.sort?.field === 'growth') next.sort = undefined;
  else if (growth && sortByIt === true) next.sort = { field: 'growth', dir: 'desc' };
  else if (growth && sortByIt === false && q.sort?.field === 'growth') next.sort = undefined;
  return next;
}

export function GrowthFilter({ q, onChange }: { q: LibraryQuery; onChange: (q: LibraryQuery) => void }) {
  const g = q.growth;
  const [days, setDays] = useState<number>(() =>
    g && typeof g.from === 'number' ? Math.max(1, Math.round((serviceNow() - g.from) / DAY)) : 7,
  );
  const [field, setField] = useState<EngagementField>(g?.field ?? 'likes');
  const put = (p: Partial<GrowthCondition> | null, sortByIt?: boolean) => {
    if (p === null) return onChange(withGrowth(q, undefined));
    const base: GrowthCondition = g ?? { field, from: serviceNow() - days * DAY };
    const next = { ...base, ...p };
    for (const k of ['min', 'max', 'to'] as const) if (next[k] === undefined) delete next[k];
    onChange(withGrowth(q, next, sortByIt));
  };
  const sorted = q.sort?.field === 'growth';
  return (
    <Field label="Growth">
      <span className="row gap" data-testid="growth-filter">
        <select
          value={field}
          onChange={(e) => {
            const f = e.target.value as EngagementField;
            setField(f);
            if (g) put({ field: f });
          }}
          aria-label="Growth of which count"
          data-testid="growth-field"
        >
          {ENGAGEMENT_FIELDS.map((f) => (
            <option key={f}>{f}</option>
          ))}
        </select>
        <select
          value={g ? String(days) : ''}
          onChange={(e) => {
            if (e.target.value === '') return put(null);
            const d = Number(e.target.value);
            setDays(d);
            put({ field, from: serviceNow() - d * DAY, to: undefined });
          }}
          aria-label="Growth over which period"
          data-testid="growth-period"
        >
          <option value="">any period (off)</option>
          {GROWTH_PERIODS.map((p) => (
            <option key={p.days} value={p.days}>
              over {p.words}
            </option>
          ))}
        </select>
        {g ? (
          <>
            <DraftInput
              type="number"
              placeholder="min"
              value={g.min === undefined ? '' : String(g.min)}
              onCommit={(v) => put({ min: v === '' ? undefined : Number(v) })}
              aria-label="minimum growth"
              style={{ width: 72 }}
              data-testid="growth-min"
            />
            <DraftInput
              type="number"
              placeholder="max"
              value={g.max === undefined ? '' : String(g.max)}
              onCommit={(v) => put({ max: v === '' ? undefined : Number(v) })}
              aria-label="maximum growth"
              style={{ width: 72 }}
            />
            <label className="row gap small" title="Largest growth first; items whose growth is unknown come last">
              <input type="checkbox" checked={sorted} onChange={(e) => put({}, e.target.checked)} data-testid="growth-sort" />
              sort by it
            </label>
          </>
        ) : null}
      </span>
    </Field>
  );
}
