/** Small display atoms: numbers, dates, missing values, label chips, relevance bar, skeletons, empty and error states. */
import type { ReactNode } from 'react';
import { abbreviate, fmtExact, relative, toMs, utc } from '../lib/format';
import type { Chip } from '../lib/records';
import { factsOf, WayOutBox } from './WayOut';
import { showName } from '../lib/words';

export const NOT_PROVIDED = 'Not provided by this network';

/**
 * A name or handle a stranger chose, drawn isolated from the text around it (`<bdi>`: a
 * right-to-left override inside cannot reorder what follows) with bidi controls and invisible
 * characters shown for what they are (issue 27 #19).
 */
export function Name({ text, prefix = '', className }: { text: string | null | undefined; prefix?: string; className?: string }) {
  if (!text) return <Missing why="No name" />;
  return (
    <bdi className={className} dir="auto">
      {prefix}
      {showName(text)}
    </bdi>
  );
}

/** null → "—" with a tooltip, never 0. */
export function Missing({ why }: { why?: string }) {
  return (
    <span className="null" title={why ?? NOT_PROVIDED} aria-label={why ?? NOT_PROVIDED}>
      —
    </span>
  );
}

export function Num({ v, hidden, why, exact = false }: { v: number | null | undefined; hidden?: boolean; why?: string; exact?: boolean }) {
  if (v === null || v === undefined) return <Missing why={hidden ? 'Hidden by the owner' : why} />;
  return (
    <span className="num" title={fmtExact(v)}>
      {exact ? fmtExact(v) : abbreviate(v)}
    </span>
  );
}

export function When({ v, why }: { v: string | number | null | undefined; why?: string }) {
  const ms = toMs(v ?? null);
  if (ms === null) return <Missing why={why} />;
  return (
    <time dateTime={new Date(ms).toISOString()} title={utc(ms)}>
      {relative(ms)}
    </time>
  );
}

/** The chips themselves (no container): a table's labels cell holds them directly (table-columns.tsx). */
export function chipSpans(chips: Chip[], max = 4): ReactNode[] {
  const out: ReactNode[] = chips.slice(0, max).map((c) => (
    <span key={c.key} className={`chip tone-${c.tone}`} title={c.title + (c.overridden ? ' (your override)' : '')} data-testid="label-chip">
      {c.text}
      {c.overridden ? '*' : ''}
    </span>
  ));
  if (chips.length > max)
    out.push(
      <span
        key="+more"
        className="chip tone-muted"
        title={chips
          .slice(max)
          .map((c) => c.text)
          .join(', ')}
      >
        +{chips.length - max}
      </span>,
    );
  return out;
}

export function Chips({ chips, max = 4 }: { chips: Chip[]; max?: number }) {
  return <span className="chips">{chipSpans(chips, max)}</span>;
}

export function RelBar({ p }: { p: number | null }) {
  if (p === null) return <Missing why="Not judged for relevance" />;
  return (
    <span className="relbar" title={`relevance p = ${p.toFixed(3)}`}>
      <span className="relbar-track">
        <span className="relbar-fill" style={{ width: `${Math.round(p * 100)}%` }} />
      </span>
      <span className="num">{p.toFixed(2)}</span>
    </span>
  );
}

export function Skeleton({ rows = 8 }: { rows?: number }) {
  return (
    <div className="skeleton" role="status" aria-busy="true" aria-label="Loading" data-testid="skeleton">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton-row" style={{ width: `${70 + ((i * 37) % 30)}%` }} />
      ))}
    </div>
  );
}

export function Empty({ title, children, testid }: { title: string; children?: ReactNode; testid?: string }) {
  return (
    <div className="empty" data-testid={testid ?? 'empty-state'}>
      <div className="empty-title">{title}</div>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

/** Any failure: its cause in the spec's terms and its way out (WayOutBox), plus Retry when given. */
export function ErrorBox({ error, onRetry, onResume }: { error: unknown; onRetry?: () => void; onResume?: () => void }) {
  if (!error) return null;
  return <WayOutBox facts={factsOf(error)} onRetry={onRetry} onResume={onResume} />;
}

/**
 * A button that spends: its price is part of its label before it is pressed.
 * One press = one action: a plain `type="button"` with `onClick`, or — inside a form — `submit` (the
 * form's onSubmit is then the only handler; a default-typed button in a form would run both, issue 14 #1).
 */
export function SpendButton({
  label,
  price,
  onClick,
  submit = false,
  disabled,
  testid,
  primary = true,
  title,
}: {
  label: string;
  price: string;
  onClick?: () => void;
  /** the form's submit button: no onClick, the form's onSubmit runs the action once */
  submit?: boolean;
  disabled?: boolean;
  testid?: string;
  primary?: boolean;
  title?: string;
}) {
  return (
    <button
      type={submit ? 'submit' : 'button'}
      className={`btn ${primary ? 'primary' : ''}`}
      onClick={submit ? undefined : onClick}
      disabled={disabled}
      data-testid={testid}
      title={title}
    >
      {label}
      {price ? (
        <span className="price" data-testid={testid ? `${testid}-price` : undefined}>
          {' '}
          · {price}
        </span>
      ) : null}
    </button>
  );
}

export function Field({ label, children, hint, required }: { label: string; children: ReactNode; hint?: string; required?: boolean }) {
  return (
    <label className="field" title={hint ?? undefined}>
      <span className="field-label">
        {label}
        {required ? (
          <span className="req" aria-label="required">
            {' '}
            *
          </span>
        ) : null}
      </span>
      {children}
    </label>
  );
}

/** "link ↗" to a page outside Loupe (an http(s) URL already checked by safeHttpUrl); nothing without one. */
export function LinkOut({ url }: { url: string | null | undefined }) {
  return url ? (
    <a href={url} target="_blank" rel="noopener noreferrer">
      link ↗
    </a>
  ) : null;
}

/** A failure's words (already text) in the error box; nothing without. */
export function ErrorText({ text, testid }: { text: ReactNode; testid?: string }) {
  return text ? (
    <div className="errorbox" role="alert" data-testid={testid}>
      {text}
    </div>
  ) : null;
}

/** A tag's colour as a small swatch beside its name (the name is always there: never colour alone). */
export function TagSwatch({ color }: { color: string | null | undefined }) {
  return color ? <span className={`tag-swatch tag-c-${color}`} aria-hidden="true" /> : null;
}
