/**
 * The Library's side of Analysis: "Analyse…" (the Library's filters in the Analysis view), and
 * the conditions a click-through adds that the filter bar has no field for — a frequency row's
 * term, a chart bucket's exact time range — shown as chips with a way to remove each.
 */
import type { LibraryQuery } from '../../../../shared/query';
import { utc } from '../../lib/format';
import { analyseLibrary, FIELD_WORDS } from './analysis-state';

const dateOnly = (v: string | number | undefined): boolean => v === undefined || (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v));
const when = (v: string | number): string => {
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) ? utc(ms) : String(v);
};

export function AnalyseButton({ disabled }: { disabled?: boolean }) {
  return (
    <button
      type="button"
      className="btn small"
      onClick={analyseLibrary}
      disabled={disabled}
      title="Frequency tables, comparisons and charts of the items these filters match"
      data-testid="analyse-open"
    >
      Analyse…
    </button>
  );
}

/** Chips for the conditions the filter bar cannot show (terms, exact times); × removes one. */
export function ExtraConditions({ q, onChange }: { q: LibraryQuery; onChange: (p: Partial<LibraryQuery>) => void }) {
  const terms = q.terms ?? [];
  const exactSince = !dateOnly(q.since);
  const exactUntil = !dateOnly(q.until);
  if (terms.length === 0 && !exactSince && !exactUntil && !q.thread) return null;
  return (
    <div className="row gap wrap" data-testid="extra-conditions">
      <span className="field-label">Also</span>
      {terms.map((t, i) => (
        <span key={`${t.field}:${t.value}`} className="cond" title={`field: ${t.field}`} data-testid="term-condition">
          {FIELD_WORDS[t.field]?.term ?? t.field}: <bdi dir="auto">{t.value}</bdi>
          <button
            type="button"
            className="chip-x"
            onClick={() => onChange({ terms: terms.length > 1 ? terms.filter((_, k) => k !== i) : undefined })}
            aria-label={`Remove the condition ${t.value}`}
          >
            ×
          </button>
        </span>
      ))}
      {q.thread ? (
        <span className="cond" data-testid="thread-condition">
          comments and replies under {q.thread.platform} post <bdi className="mono">{q.thread.id}</bdi>
          <button type="button" className="chip-x" onClick={() => onChange({ thread: undefined })} aria-label="Remove the thread condition">
            ×
          </button>
        </span>
      ) : null}
      {exactSince ? (
        <TimeCondition
          words={`published from ${when(q.since ?? '')}`}
          onRemove={() => onChange({ since: undefined })}
          removeLabel="Remove the start time"
        />
      ) : null}
      {exactUntil ? (
        <TimeCondition
          words={`published before ${when(q.until ?? '')}`}
          onRemove={() => onChange({ until: undefined })}
          removeLabel="Remove the end time"
        />
      ) : null}
    </div>
  );
}

function TimeCondition({ words, onRemove, removeLabel }: { words: string; onRemove: () => void; removeLabel: string }) {
  return (
    <span className="cond" data-testid="time-condition">
      {words}
      <button type="button" className="chip-x" onClick={onRemove} aria-label={removeLabel}>
        ×
      </button>
    </span>
  );
}
