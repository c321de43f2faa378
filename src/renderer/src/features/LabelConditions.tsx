/**
 * The Library's label conditions (issue 27 #8). "+ label condition" adds a row to fill in — a
 * label, its field, an operator and a value, each chosen — and nothing is queried until the row
 * is complete: adding one never jumps the table to "0 matching" on a condition nobody chose.
 * Complete rows are the query's `labels`; a row being filled in stays on screen only.
 */
import { useEffect, useState } from 'react';
import type { LabelCondition } from '../../../shared/query';
import { COMMENT_LABELS, POST_LABELS } from '../../../shared/api-types';
import { LABEL_SPECS, labelFieldSpec } from '../../../shared/labels';
import { LabelValueInput } from '../components/LabelValue';

/** A row as filled in so far: '' for what is not chosen yet. */
export interface DraftCondition {
  family: string;
  field: string;
  op: LabelCondition['op'];
  value: string | number | boolean | null;
}

/** fields offered per family: every field the spec names (human words, API name on hover) */
const fieldsOf = (family: string): string[] => Object.keys(LABEL_SPECS[family]?.fields ?? { p: null });

/** A row the query can take: every part chosen. */
export function completeCondition(c: DraftCondition): c is LabelCondition {
  return c.family !== '' && c.field !== '' && c.value !== null && c.value !== '';
}

const same = (a: LabelCondition[], b: LabelCondition[]) => JSON.stringify(a) === JSON.stringify(b);

export function LabelConditions({ value, onChange }: { value: LabelCondition[]; onChange: (v: LabelCondition[]) => void }) {
  const families = [...new Set<string>([...POST_LABELS, ...COMMENT_LABELS])];
  const [rows, setRows] = useState<DraftCondition[]>(value);
  // the query changed elsewhere (Clear, a saved set, a hand-off): its conditions replace the rows
  useEffect(() => {
    setRows((cur) => (same(cur.filter(completeCondition), value) ? cur : value));
  }, [value]);
  const update = (next: DraftCondition[]) => {
    setRows(next);
    const done = next.filter(completeCondition);
    if (!same(done, value)) onChange(done);
  };
  const add = () => setRows([...rows, { family: '', field: '', op: 'eq', value: null }]);
  return (
    <div className="row gap wrap" data-testid="label-conditions">
      <span className="field-label">Labels</span>
      {rows.map((c, i) => {
        const put = (p: Partial<DraftCondition>) => update(rows.map((x, k) => (k === i ? { ...x, ...p } : x)));
        return (
          <span key={i} className="cond" data-complete={completeCondition(c)}>
            <select
              value={c.family}
              onChange={(e) => put({ family: e.target.value, field: e.target.value ? fieldsOf(e.target.value)[0] : '', value: null })}
              aria-label="label family"
            >
              {c.family === '' ? <option value="">choose a label…</option> : null}
              {families.map((f) => (
                <option key={f} value={f} title={f}>
                  {LABEL_SPECS[f]?.title ?? f}
                </option>
              ))}
            </select>
            {c.family !== '' ? (
              <>
                <select value={c.field} onChange={(e) => put({ field: e.target.value, value: null })} aria-label="label field">
                  {fieldsOf(c.family).map((f) => (
                    <option key={f} value={f} title={`${c.family}.${f}`}>
                      {labelFieldSpec(c.family, f)?.title ?? f}
                    </option>
                  ))}
                </select>
                <select value={c.op} onChange={(e) => put({ op: e.target.value as LabelCondition['op'] })} aria-label="operator">
                  {(['eq', 'neq', 'gte', 'lte', 'gt', 'lt'] as const).map((o) => (
                    <option key={o} value={o}>
                      {{ eq: '=', neq: '≠', gte: '≥', lte: '≤', gt: '>', lt: '<' }[o]}
                    </option>
                  ))}
                </select>
                <LabelValueInput
                  family={c.family}
                  field={c.field}
                  value={c.value}
                  allowUnsure={false}
                  draft
                  onChange={(v) => put({ value: v })}
                  label="value"
                />
              </>
            ) : null}
            <button className="chip-x" onClick={() => update(rows.filter((_, k) => k !== i))} aria-label="Remove condition">
              ×
            </button>
          </span>
        );
      })}
      <button className="btn tiny ghost" onClick={add} data-testid="add-label-condition">
        + label condition
      </button>
    </div>
  );
}
