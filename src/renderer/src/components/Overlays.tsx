/** Confirmation dialog (spend), toasts, command palette. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useUi } from '../stores/ui';

export function ConfirmDialog() {
  const c = useUi((s) => s.confirm);
  const close = useUi((s) => s.closeConfirm);
  const ok = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (c) ok.current?.focus();
  }, [c]);
  if (!c) return null;
  return (
    <div className="modal-back" onMouseDown={(e) => e.target === e.currentTarget && close(false)}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title" data-testid="confirm-dialog">
        <h3 id="confirm-title">{c.title}</h3>
        {c.lines.map((l, i) => (
          <p key={i} data-testid="confirm-line">
            {l}
          </p>
        ))}
        <div className="row gap end">
          <button className="btn" onClick={() => close(false)} data-testid="confirm-cancel">
            Cancel
          </button>
          <button ref={ok} className={`btn ${c.danger ? 'danger' : 'primary'}`} onClick={() => close(true)} data-testid="confirm-ok">
            {c.okLabel}
          </button>
        </div>
      </div>
    </div>
  );
}

export function Toasts() {
  const toasts = useUi((s) => s.toasts);
  const dismiss = useUi((s) => s.dismiss);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.level}`} role={t.level === 'error' ? 'alert' : 'status'} data-testid="toast">
          <span>{t.message}</span>
          {t.actions?.map((a) => (
            <button
              key={a.label}
              type="button"
              className="btn tiny"
              title={a.hint}
              onClick={() => {
                useUi.getState().setView(a.view);
                dismiss(t.id);
              }}
            >
              {a.label}
            </button>
          ))}
          <button className="chip-x" onClick={() => dismiss(t.id)} aria-label="Dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

export interface Command {
  id: string;
  label: string;
  hint?: string;
  run: () => void;
}

export function Palette({ commands }: { commands: Command[] }) {
  const open = useUi((s) => s.paletteOpen);
  const setOpen = useUi((s) => s.setPalette);
  const [q, setQ] = useState('');
  const [i, setI] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (open) {
      setQ('');
      setI(0);
      setTimeout(() => input.current?.focus(), 0);
    }
  }, [open]);
  const list = useMemo(() => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    return commands.filter((c) => words.every((w) => c.label.toLowerCase().includes(w) || (c.hint ?? '').toLowerCase().includes(w)));
  }, [q, commands]);
  if (!open) return null;
  const go = (c: Command | undefined) => {
    if (!c) return;
    setOpen(false);
    c.run();
  };
  return (
    <div className="modal-back top" onMouseDown={(e) => e.target === e.currentTarget && setOpen(false)}>
      <div className="palette" role="dialog" aria-label="Command palette" data-testid="palette">
        <input
          ref={input}
          value={q}
          placeholder="Type a view or an action…"
          aria-label="Command"
          data-testid="palette-input"
          onChange={(e) => {
            setQ(e.target.value);
            setI(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              setI(Math.min(i + 1, list.length - 1));
            } else if (e.key === 'ArrowUp') {
              e.preventDefault();
              setI(Math.max(i - 1, 0));
            } else if (e.key === 'Enter') {
              e.preventDefault();
              go(list[i]);
            } else if (e.key === 'Escape') {
              e.preventDefault();
              setOpen(false);
            }
          }}
        />
        {/* named, and reachable by keyboard while it scrolls (axe: scrollable-region-focusable) */}
        <ul role="listbox" aria-label="Commands" tabIndex={0}>
          {list.map((c, k) => (
            <li
              key={c.id}
              role="option"
              aria-selected={k === i}
              className={k === i ? 'active' : ''}
              onMouseEnter={() => setI(k)}
              onClick={() => go(c)}
              data-testid="palette-item"
            >
              <span>{c.label}</span>
              {c.hint ? <kbd>{c.hint}</kbd> : null}
            </li>
          ))}
          {list.length === 0 ? <li className="muted">No command matches.</li> : null}
        </ul>
      </div>
    </div>
  );
}
