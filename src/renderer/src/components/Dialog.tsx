/**
 * In-app dialogs that ask for a value (issue 14 #5: `window.prompt` does nothing in Electron).
 * Keyboard: focus moves into the dialog, Tab / Shift+Tab stay inside it, Enter submits (Ctrl+Enter
 * in a note), Esc cancels, and focus returns to the control that opened it.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { helpLines } from '../../../shared/commands';
import { LABEL_SPECS, labelFieldSpec, labelValueProblem } from '../../../shared/labels';
import { useUi, type DialogRequest } from '../stores/ui';
import { LabelValueInput, type LabelScalar } from './LabelValue';

/**
 * A modal shell: labelled, focus trapped, Esc cancels, focus restored on close. Rendered on
 * document.body (a portal), so its form never nests inside the form of the view that opened it:
 * nested, the browser would submit the outer one (blocked by the CSP's form-action 'none').
 */
export function Modal({
  title,
  detail,
  children,
  onCancel,
  testid,
}: {
  title: string;
  detail?: string;
  children: ReactNode;
  onCancel: () => void;
  testid: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    opener.current = document.activeElement;
    const first = box.current?.querySelector<HTMLElement>('input, select, textarea, button');
    first?.focus();
    return () => {
      const o = opener.current as HTMLElement | null;
      if (o && typeof o.focus === 'function' && document.contains(o)) o.focus();
    };
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const els = [...box.current.querySelectorAll<HTMLElement>('input, select, textarea, button, [tabindex]:not([tabindex="-1"])')].filter(
      (x) => !x.hasAttribute('disabled'),
    );
    if (els.length === 0) return;
    const i = els.indexOf(document.activeElement as HTMLElement);
    if (e.shiftKey && i <= 0) {
      e.preventDefault();
      els[els.length - 1].focus();
    } else if (!e.shiftKey && i === els.length - 1) {
      e.preventDefault();
      els[0].focus();
    }
  };
  const shell = (
    <div className="modal-back" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <div
        ref={box}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${testid}-title`}
        data-testid={testid}
        onKeyDown={onKeyDown}
      >
        <h2 id={`${testid}-title`} className="modal-title">
          {title}
        </h2>
        {detail ? <p className="muted">{detail}</p> : null}
        {children}
      </div>
    </div>
  );
  // static rendering (tests, no DOM) keeps it in place
  return typeof document === 'undefined' ? shell : createPortal(shell, document.body);
}

export function AskDialog() {
  const d = useUi((s) => s.dialog);
  if (!d) return null;
  return <DialogFor key={d.title} d={d} />;
}

/** The dialog of one request (rendered by AskDialog; tests render it directly). */
export function DialogFor({ d }: { d: DialogRequest }) {
  return d.type === 'text' ? <TextDialog d={d} /> : <LabelDialog d={d} />;
}

function finish<T>(d: { resolve: (v: T) => void }, v: T): void {
  const ui = useUi.getState();
  if (ui.dialog && ui.dialog.resolve === (d.resolve as unknown)) useUi.setState({ dialog: null });
  d.resolve(v);
}

function TextDialog({ d }: { d: Extract<DialogRequest, { type: 'text' }> }) {
  const [v, setV] = useState(d.initial ?? '');
  const ok = d.allowEmpty || v.trim() !== '';
  const submit = () => ok && finish(d, d.multiline ? v : v.trim());
  const listId = d.suggestions?.length ? 'ask-suggestions' : undefined;
  return (
    <Modal title={d.title} detail={d.detail} onCancel={() => finish(d, null)} testid="ask-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label className="field">
          <span className="field-label">{d.label}</span>
          {d.multiline ? (
            <textarea
              value={v}
              onChange={(e) => setV(e.target.value)}
              rows={4}
              cols={48}
              data-testid="ask-input"
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  submit();
                }
              }}
            />
          ) : (
            <input value={v} onChange={(e) => setV(e.target.value)} list={listId} maxLength={200} data-testid="ask-input" />
          )}
        </label>
        {listId ? (
          <datalist id={listId}>
            {d.suggestions?.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        ) : null}
        {d.multiline ? <p className="muted small">Ctrl+Enter saves.</p> : null}
        <div className="row gap end">
          <button type="button" className="btn" onClick={() => finish(d, null)} data-testid="ask-cancel">
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!ok} data-testid="ask-ok">
            {d.okLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function LabelDialog({ d }: { d: Extract<DialogRequest, { type: 'label' }> }) {
  const families = Object.keys(LABEL_SPECS);
  const [family, setFamily] = useState('sentiment');
  const fields = Object.keys(LABEL_SPECS[family]?.fields ?? {});
  const [field, setField] = useState(fields[0] ?? 'label');
  const [value, setValue] = useState<LabelScalar>(null);
  const problem = labelFieldSpec(family, field) ? labelValueProblem(family, field, value) : 'Choose a label.';
  return (
    <Modal title={d.title} detail={d.detail} onCancel={() => finish(d, null)} testid="ask-dialog">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) finish(d, { family, field, value });
        }}
      >
        <div className="row gap wrap">
          <label className="field">
            <span className="field-label">Label</span>
            <select
              value={family}
              onChange={(e) => {
                setFamily(e.target.value);
                setField(Object.keys(LABEL_SPECS[e.target.value].fields)[0]);
                setValue(null);
              }}
              data-testid="ask-family"
            >
              {families.map((f) => (
                <option key={f} value={f} title={f}>
                  {LABEL_SPECS[f].title}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span className="field-label">Field</span>
            <select
              value={field}
              onChange={(e) => {
                setField(e.target.value);
                setValue(null);
              }}
              data-testid="ask-field"
            >
              {fields.map((f) => (
                <option key={f} value={f} title={`${family}.${f}`}>
                  {LABEL_SPECS[family].fields[f].title}
                </option>
              ))}
            </select>
          </label>
          <span className="field">
            <span className="field-label">Value</span>
            <LabelValueInput family={family} field={field} value={value} onChange={setValue} label="Value" testid="ask-value" />
          </span>
        </div>
        {problem && value !== null ? (
          <p className="errtext small" role="alert">
            {problem}
          </p>
        ) : null}
        <div className="row gap end">
          <button type="button" className="btn" onClick={() => finish(d, null)} data-testid="ask-cancel">
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!!problem} data-testid="ask-ok">
            {d.okLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** The keyboard shortcuts, on `?` (issue 14 #10), from the one list of commands (src/shared/commands.ts). */
export const SHORTCUTS: Array<[string, string]> = helpLines();

export function KeysHelp() {
  const open = useUi((s) => s.helpOpen);
  if (!open) return null;
  const close = () => useUi.setState({ helpOpen: false });
  return (
    <Modal title="Keyboard shortcuts" onCancel={close} testid="keys-help">
      <dl className="help-keys">
        {SHORTCUTS.map(([k, what]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div className="row gap end">
        <button type="button" className="btn primary" onClick={close}>
          Close
        </button>
      </div>
    </Modal>
  );
}
