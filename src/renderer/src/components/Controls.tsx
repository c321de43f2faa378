/** Small pieces the views' control bars and panels share (same markup wherever they stand). */
import type { ReactNode } from 'react';
import { NETWORK_KINDS, NETWORK_WORDS, type NetworkKindName } from '../../../shared/contract-constants';
import { Field } from './cells';

/** A panel's first row: its title, a muted note, and a ✕ when it can be closed. */
export function PanelHead({
  title,
  note,
  onClose,
  closeLabel,
}: {
  title: string;
  note: ReactNode;
  onClose?: () => void;
  closeLabel: string;
}) {
  return (
    <div className="row gap wrap">
      <strong>{title}</strong>
      <span className="muted small">{note}</span>
      <div className="spacer" />
      {onClose ? (
        <button className="btn tiny ghost" onClick={onClose} aria-label={closeLabel}>
          ✕
        </button>
      ) : null}
    </div>
  );
}

/** A view's main form: Enter (or its submit button) runs `onSubmit`. */
export function QueryForm({ onSubmit, children }: { onSubmit: () => Promise<void>; children: ReactNode }) {
  return (
    <form
      className="row gap wrap"
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** "Pages": how many pages a walk reads. */
export function PagesField({
  value,
  onChange,
  testid,
  choices = [1, 2, 3, 5, 10],
}: {
  value: number;
  onChange: (pages: number) => void;
  testid: string;
  choices?: number[];
}) {
  return (
    <Field label="Pages">
      <select value={value} onChange={(e) => onChange(Number(e.target.value))} data-testid={testid}>
        {choices.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** "Network": which network of accounts (authors, mentions…) to build. */
export function NetworkKindSelect({
  value,
  onChange,
  testid,
}: {
  value: NetworkKindName;
  onChange: (kind: NetworkKindName) => void;
  testid: string;
}) {
  return (
    <label className="field inline">
      <span className="field-label">Network</span>
      <select value={value} onChange={(e) => onChange(e.target.value as NetworkKindName)} data-testid={testid}>
        {NETWORK_KINDS.map((k) => (
          <option key={k} value={k}>
            {NETWORK_WORDS[k]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A strip above a view's table (charts, receipts): it takes its height, the table the rest. */
export function TopStrip({ children }: { children: ReactNode }) {
  return (
    <div className="page" style={{ flex: 'none', paddingBottom: 0 }}>
      {children}
    </div>
  );
}
