/**
 * Text of any length, drawn without freezing the page (issue 27 #17): a post is written by a
 * stranger and may be a megabyte without a space, whose line breaking alone blocked Chromium for
 * minutes. A bounded prefix is shown; "Show all" draws the rest in pieces of CHUNK characters that
 * the page lays out only when they scroll into view (`content-visibility: auto`).
 */
import { useState } from 'react';
import { fmtExact } from '../lib/format';

/** characters shown before "Show all" */
export const TEXT_PREFIX = 4_000;
/** characters in one piece of a text shown whole */
export const CHUNK = 20_000;

/** `i` moved back one when it would split a surrogate pair */
function cut(s: string, i: number): number {
  const c = s.charCodeAt(i - 1);
  return i < s.length && c >= 0xd800 && c <= 0xdbff ? i - 1 : i;
}

export function LongText({ text, className, testid }: { text: string; className: string; testid: string }) {
  const [all, setAll] = useState(false);
  if (text.length <= TEXT_PREFIX) {
    return (
      <div className={className} data-testid={testid} dir="auto">
        {text}
      </div>
    );
  }
  if (!all) {
    return (
      <>
        <div className={className} data-testid={testid} dir="auto">
          {text.slice(0, cut(text, TEXT_PREFIX))}…
        </div>
        <button type="button" className="btn small" onClick={() => setAll(true)} data-testid={`${testid.replace(/-text$/, '')}-show-all`}>
          Show all ({fmtExact(text.length)} characters; {fmtExact(text.length - TEXT_PREFIX)} more)
        </button>
      </>
    );
  }
  const chunks: string[] = [];
  for (let i = 0; i < text.length;) {
    const j = cut(text, Math.min(text.length, i + CHUNK));
    chunks.push(text.slice(i, j));
    i = j;
  }
  return (
    <div className={`${className} long-text`} data-testid={testid} dir="auto" tabIndex={0}>
      {chunks.map((c, i) => (
        <div key={i} className="text-chunk" data-testid={`${testid}-chunk`}>
          {c}
        </div>
      ))}
    </div>
  );
}

/**
 * A record as JSON for reading, strings over TEXT_PREFIX characters cut with the number of
 * characters left out (the record itself is untouched: exports and `library.item` give it whole).
 */
export function rawJson(record: unknown): string {
  return JSON.stringify(
    record,
    (_k, v: unknown) =>
      typeof v === 'string' && v.length > TEXT_PREFIX
        ? `${v.slice(0, TEXT_PREFIX)}… [${fmtExact(v.length - TEXT_PREFIX)} more characters not shown]`
        : v,
    2,
  );
}
