/**
 * What reaches the terminal (docs/cli.md): `runCli` hands every command streams whose text goes
 * through `visible` (src/shared/visible.ts) — a control or bidi character that a post, a name or
 * the service's error message carries is shown escaped (`\x1b`, `\u202e`), never acted on. Line
 * ends and tabs pass. JSON written through them parses to the same value (visible's escapes above
 * U+001F are JSON's `\uXXXX`). Bytes that must stay as they are — a CSV or a file sent to a pipe
 * with `--out -` — go to `rawOf(stream)`; the line-clearing sequence of a progress line goes
 * through `progress`.
 */
import { visible } from '../shared/visible';

const RAW = Symbol('loupe.raw');

type Stream = NodeJS.WritableStream & { isTTY?: boolean };

/** The stream under a guarded one (the stream itself when it is not guarded). */
export function rawOf<S extends NodeJS.WritableStream>(s: S): S {
  const raw: unknown = Reflect.get(s, RAW);
  return raw === undefined ? s : (raw as S);
}

function text(chunk: unknown): string {
  if (typeof chunk === 'string') return chunk;
  if (chunk instanceof Uint8Array) return new TextDecoder().decode(chunk);
  return String(chunk);
}

/**
 * A stream whose `write` shows every control character escaped (line ends and tabs pass); every
 * other property (events, `isTTY`, `end`, `writableLength`) is the stream's own.
 */
export function guarded<S extends Stream>(s: S): S {
  if (Reflect.get(s, RAW)) return s;
  return new Proxy(s, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === 'write')
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (c: string, ...r: unknown[]) => boolean)(visible(text(chunk), { newlines: true, tabs: true }), ...rest);
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Redraws a progress line on a terminal: clears the line (raw), then the text (guarded). */
export function progress(stream: Stream, text: string): void {
  if (!stream.isTTY) return;
  rawOf(stream).write('\r\x1b[2K');
  if (text) stream.write(text);
}
