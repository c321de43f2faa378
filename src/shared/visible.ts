/**
 * Text that strangers wrote (posts, names, bios, the service's error messages), made safe to show
 * in a terminal: every character a terminal would act on instead of showing is written as a
 * visible escape (docs/cli.md "What reaches the terminal").
 *
 *  - C0 controls (U+0000–U+001F: ESC, BEL, BS, NUL, CR…) → `\x1b`, `\x07`, `\r`, `\n`, `\t`…
 *    (a line break or a tab is kept only where the caller allows it: `keep`)
 *  - DEL and the C1 controls (U+007F–U+009F: CSI, OSC…) → `\u009b`
 *  - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the line and
 *    paragraph separators (U+2028, U+2029) and lone surrogates → `\u202e`
 *
 * Everything else, the backslash included, is left as it is. The escapes above U+001F are JSON's
 * own `\uXXXX` form, so JSON text passed through `visible` still parses to the same value (raw C0
 * characters cannot occur in JSON text): one function serves every line a human reads.
 */

// C0 / DEL / C1, bidi controls, U+2028/9, and any UTF-16 surrogate (lone ones are sorted out below)
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]/;
/* eslint-disable no-control-regex */
const UNSAFE_ALL =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/* eslint-enable no-control-regex */

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export interface VisibleOptions {
  /** line breaks (LF, and CR directly before LF) pass as they are */
  newlines?: boolean;
  /** TAB passes as it is */
  tabs?: boolean;
}

function escape(ch: string, o: VisibleOptions): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) {
    if (ch === '\t' && o.tabs) return ch;
    return SHORT[ch] ?? `\\x${code.toString(16).padStart(2, '0')}`;
  }
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` with every control, bidi control and lone surrogate written as a visible escape. */
export function visible(s: string, o: VisibleOptions = {}): string {
  if (!UNSAFE.test(s)) return s;
  if (!o.newlines) return s.replace(UNSAFE_ALL, (ch) => escape(ch, o));
  // LF, and CRLF, are line ends the caller allows; a CR anywhere else (which rewinds the line and
  // hides what came before it) is escaped
  return s
    .split(/(\r?\n)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(UNSAFE_ALL, (ch) => escape(ch, o))))
    .join('');
}
