/**
 * A form generated from a catalogue endpoint's params: required marked, one-of groups explained,
 * enums as selects, booleans as selects, number bounds, help text, example as placeholder.
 */
import type { CatalogueEndpoint, CatalogueParam } from '../../../shared/api-types';
import { COMMENT_LABELS, POST_LABELS } from '../../../shared/api-types';
import { LABEL_SPECS } from '../../../shared/labels';
import { MANAGED_PARAMS, oneOfGroups } from '../lib/catalogue';
import { paramWords } from '../lib/words';

export function ParamForm({
  endpoint,
  values,
  onChange,
  omit = [],
  testidPrefix = 'param',
  onSubmit,
}: {
  endpoint: CatalogueEndpoint;
  values: Record<string, string>;
  onChange: (v: Record<string, string>) => void;
  omit?: string[];
  testidPrefix?: string;
  onSubmit?: () => void;
}) {
  const params = endpoint.params.filter((p) => !MANAGED_PARAMS.has(p.name) && !omit.includes(p.name));
  const groups = oneOfGroups(endpoint).filter((g) => g.names.some((n) => params.some((p) => p.name === n)));
  const set = (name: string, v: string) => onChange({ ...values, [name]: v });
  if (params.length === 0) return <div className="muted small">This endpoint takes no other parameters.</div>;
  return (
    <div className="paramform">
      {groups.map((g) => (
        <div key={g.group} className="muted small oneof">
          One of <b>{g.names.join(' | ')}</b> is required.
        </div>
      ))}
      <div className="paramgrid">
        {params.map((p) => (
          <ParamField
            key={p.name}
            p={p}
            value={values[p.name] ?? ''}
            onChange={(v) => set(p.name, v)}
            testid={`${testidPrefix}-${p.name}`}
            onSubmit={onSubmit}
          />
        ))}
      </div>
    </div>
  );
}

function describe(p: CatalogueParam): string {
  const parts = [`API parameter: ${p.name}`, p.description, p.help ?? ''];
  if (p.minimum != null || p.maximum != null) parts.push(`range ${p.minimum ?? '…'}–${p.maximum ?? '…'}`);
  if (p.one_of_group) parts.push(`one of ${p.one_of_group.replace(/\|/g, ' | ')}`);
  return parts.filter(Boolean).join(' — ');
}

function ParamField({
  p,
  value,
  onChange,
  testid,
  onSubmit,
}: {
  p: CatalogueParam;
  value: string;
  onChange: (v: string) => void;
  testid: string;
  onSubmit?: () => void;
}) {
  const title = describe(p);
  const label = (
    <span className="field-label">
      {paramWords(p.name)}
      {p.required && !p.one_of_group ? (
        <span className="req" title="required">
          {' '}
          *
        </span>
      ) : null}
      {p.one_of_group ? (
        <span className="muted" title={`one of ${p.one_of_group}`}>
          {' '}
          (one of)
        </span>
      ) : null}
    </span>
  );
  let input;
  if (p.name === 'label' && !(p.enum && p.enum.length)) {
    // the extra label families, chosen (never free text): post families on post endpoints, comment families on comment endpoints
    const families: readonly string[] = /comment|repl/i.test(p.description ?? '')
      ? COMMENT_LABELS
      : [...POST_LABELS, ...COMMENT_LABELS.filter((f) => !(POST_LABELS as readonly string[]).includes(f))];
    const chosen = new Set(
      value
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
    input = (
      <span className="row gap wrap" role="group" aria-label={paramWords(p.name)} data-testid={testid}>
        {families.map((f) => (
          <label key={f} className="check" title={`label=${f}`}>
            <input
              type="checkbox"
              checked={chosen.has(f)}
              onChange={(e) => {
                const next = new Set(chosen);
                if (e.target.checked) next.add(f);
                else next.delete(f);
                onChange([...next].join(','));
              }}
            />{' '}
            {LABEL_SPECS[f]?.title ?? f}
          </label>
        ))}
      </span>
    );
  } else if (p.enum && p.enum.length) {
    input = (
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testid} aria-label={paramWords(p.name)}>
        <option value="">{p.required ? 'choose…' : 'default'}</option>
        {p.enum.map((o) => (
          <option key={o} value={o} title={o}>
            {o.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    );
  } else if (p.type === 'boolean') {
    input = (
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testid} aria-label={paramWords(p.name)}>
        <option value="">default</option>
        <option value="true">yes</option>
        <option value="false">no</option>
      </select>
    );
  } else {
    const numeric = p.type === 'integer' || p.type === 'number';
    input = (
      <input
        type={numeric ? 'number' : 'text'}
        min={p.minimum ?? undefined}
        max={p.maximum ?? undefined}
        step={p.type === 'integer' ? 1 : 'any'}
        value={value}
        placeholder={p.example !== null && p.example !== undefined ? String(p.example) : ''}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && onSubmit) {
            e.preventDefault();
            onSubmit();
          }
        }}
        data-testid={testid}
        aria-label={paramWords(p.name)}
        required={p.required && !p.one_of_group}
      />
    );
  }
  return (
    <label className="field" title={title} data-param={p.name}>
      {label}
      {input}
      {p.help || p.description ? <span className="hint">{p.help || p.description}</span> : null}
    </label>
  );
}
