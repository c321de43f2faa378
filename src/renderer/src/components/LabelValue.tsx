/**
 * A label value chosen from what the spec allows (issue 14 #4): a list for named values (in an
 * analyst's words, the API's value on hover), yes/no, a number in its range, or a text. Never a
 * free-text box where the service has a fixed set.
 */
import { labelFieldSpec } from '../../../shared/labels';
import { DraftInput } from './DraftInput';

export type LabelScalar = string | number | boolean | null;

export function LabelValueInput({
  family,
  field,
  value,
  onChange,
  label,
  testid,
  allowUnsure = true,
  draft = false,
}: {
  family: string;
  field: string;
  value: LabelScalar;
  onChange: (v: LabelScalar) => void;
  label: string;
  testid?: string;
  allowUnsure?: boolean;
  /**
   * typed values (numbers, text) commit after a pause, on Enter or on leaving the field, as the
   * Library's other typed filters do (DraftInput): a keystroke does not run a query
   */
  draft?: boolean;
}) {
  const spec = labelFieldSpec(family, field);
  if (spec?.type === 'enum') {
    return (
      <select
        value={value === null ? '' : String(value)}
        onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}
        aria-label={label}
        data-testid={testid}
      >
        {spec.nullable && allowUnsure ? <option value="">unsure (no label)</option> : null}
        {!(spec.nullable && allowUnsure) && value === null ? <option value="">choose…</option> : null}
        {spec.values.map((v) => (
          <option key={v} value={v} title={v}>
            {spec.words?.[v] ?? v.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    );
  }
  if (spec?.type === 'bool') {
    return (
      <select
        value={value === true ? 'true' : value === false ? 'false' : ''}
        onChange={(e) => onChange(e.target.value === 'true')}
        aria-label={label}
        data-testid={testid}
      >
        {value === null ? <option value="">choose…</option> : null}
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  }
  if (spec?.type === 'prob' || spec?.type === 'int') {
    const min = spec.type === 'int' ? spec.min : 0;
    const max = spec.type === 'int' ? spec.max : 1;
    const props = {
      type: 'number',
      min,
      max,
      step: spec.type === 'int' ? 1 : 0.01,
      'aria-label': `${label} (${min}–${max})`,
      'data-testid': testid,
      style: { width: 80 },
    };
    const toValue = (t: string): LabelScalar => (t === '' ? null : Number(t));
    if (draft)
      return <DraftInput {...props} value={typeof value === 'number' ? String(value) : ''} onCommit={(t) => onChange(toValue(t))} />;
    return <input {...props} value={typeof value === 'number' ? value : ''} onChange={(e) => onChange(toValue(e.target.value))} />;
  }
  const props = { 'aria-label': label, title: spec?.type === 'text' ? spec.hint : undefined, 'data-testid': testid, size: 12 };
  const text = value === null ? '' : String(value);
  if (draft) return <DraftInput {...props} value={text} onCommit={(t) => onChange(t === '' ? null : t)} />;
  return <input {...props} value={text} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)} />;
}
