/**
 * A text or number field that keeps what is typed to itself and commits it after a pause (or on
 * Enter / leaving the field): a keystroke re-renders this field only, never the table below it
 * (issue 14: 53–112 ms per keystroke with ~5,000 rows). Discrete controls (selects, dates, column
 * headers) commit at once — no debounce on a click.
 */
import { useEffect, useRef, useState, type InputHTMLAttributes } from 'react';

export function DraftInput({
  value,
  onCommit,
  delayMs = 250,
  ...rest
}: { value: string; onCommit: (v: string) => void; delayMs?: number } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  const [draft, setDraft] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  const committed = useRef(value);
  // the value changed from elsewhere (Clear filters, a saved set): show it; our own commit
  // coming back does not overwrite what was typed since
  useEffect(() => {
    if (value !== committed.current) setDraft(value);
    committed.current = value;
  }, [value]);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  const flush = (v: string) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (v !== committed.current) {
      committed.current = v;
      commit.current(v);
    }
  };
  return (
    <input
      {...rest}
      value={draft}
      onChange={(e) => {
        const v = e.target.value;
        setDraft(v);
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => flush(v), delayMs);
      }}
      onKeyDown={(e) => {
        if (e.key === 'Enter') flush(draft);
        rest.onKeyDown?.(e);
      }}
      onBlur={(e) => {
        if (timer.current) flush(draft);
        rest.onBlur?.(e);
      }}
    />
  );
}
