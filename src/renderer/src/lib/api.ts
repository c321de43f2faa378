/**
 * The one file that picks the door (docs/renderer.md "Doors").
 *
 *  - Electron: the preload exposes the contract as `window.loupe` (a ResultBridge): every call
 *    resolves to a DoorAnswer, `{ ok: true, result }` or `{ ok: false, error: SerializedError }`.
 *  - Browser (web host, src/host): POST /api/<method> with a JSON body and the per-run token in
 *    `x-loupe-token`; the answer is the same DoorAnswer, with the error table's HTTP status.
 *  Both doors turn a failed result into an ApiError with the error's kind (src/shared/errors.ts).
 *    Events arrive over Server-Sent Events at /api/events?token=… as LoupeEvent JSON.
 *    The token comes from `?token=` in the page URL once, is kept in sessionStorage and removed
 *    from the address bar so it is not left in history or screenshots.
 */
import { useEffect, useRef } from 'react';
import type { LoupeBridge, LoupeEvent, MethodInput, MethodName, MethodOutput } from '../../../shared/contract';
import { isErrorKind, LoupeError, type DoorAnswer, type ResultBridge, type SerializedError } from '../../../shared/errors';

declare global {
  interface Window {
    loupe?: ResultBridge;
    /** the Library's first page, asked for by public/first-page.js before this code ran */
    __loupeFirstPage?: { body: string; answer: Promise<Response> };
  }
}

/**
 * The answer public/first-page.js already asked for, when this is that call: the first
 * `library.query` of the page, with exactly its body. Taken once; any other first call asks itself.
 */
function earlyAnswer(method: string, body: string): Promise<Response> | null {
  if (method !== 'library.query' || typeof window === 'undefined') return null;
  const early = window.__loupeFirstPage;
  if (!early) return null;
  delete window.__loupeFirstPage;
  return early.body === body ? early.answer : null;
}

/** An error that crossed a door, with its kind: the spec's meaning in `message`, never a stack. */
export class ApiError extends LoupeError {
  constructor(e: SerializedError) {
    super(e.kind, e.message, { type: e.type, requestId: e.requestId, details: e.details });
    this.name = 'ApiError';
  }
}

/** A serialised error of the model (an unknown kind from a newer/older door is read as internal). */
function serializedError(v: unknown): SerializedError | null {
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof (v as { message?: unknown }).message !== 'string' ||
    typeof (v as { kind?: unknown }).kind !== 'string'
  )
    return null;
  const e = v as SerializedError;
  return isErrorKind(e.kind) ? e : { ...e, kind: 'internal' };
}

/** A DoorAnswer → its value, or its error thrown as an ApiError. */
function settle<T>(answer: DoorAnswer<T>): T {
  if (answer.ok) return answer.result;
  throw new ApiError(serializedError(answer.error) ?? { kind: 'internal', message: 'Unexpected answer from Loupe.' });
}

const TOKEN_KEY = 'loupe-token';

export function webToken(): string {
  let t: string | null = null;
  try {
    const url = new URL(window.location.href);
    t = url.searchParams.get('token');
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
      url.searchParams.delete('token');
      window.history.replaceState(null, '', url.pathname + url.search + url.hash);
    } else {
      t = sessionStorage.getItem(TOKEN_KEY);
    }
  } catch {
    /* sessionStorage may be unavailable (file://); fall through */
  }
  return t ?? '';
}

function webBridge(): LoupeBridge {
  const token = webToken();
  const listeners = new Set<(e: LoupeEvent) => void>();
  let source: EventSource | null = null;
  const open = () => {
    if (source || typeof EventSource === 'undefined') return;
    source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
    source.onmessage = (m: MessageEvent<string>) => {
      let ev: LoupeEvent;
      try {
        ev = JSON.parse(m.data) as LoupeEvent;
      } catch {
        return;
      }
      for (const l of listeners) l(ev);
    };
  };
  return {
    async call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>> {
      let res: Response;
      const sent = JSON.stringify(input ?? {});
      try {
        res = await (earlyAnswer(method, sent) ??
          fetch(`/api/${method}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-loupe-token': token },
            body: sent,
          }));
      } catch {
        throw new ApiError({
          kind: 'network',
          message: 'Loupe is not reachable: the local host stopped or the page is stale. Reload the page.',
        });
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new ApiError({ kind: 'internal', message: `Unexpected answer from Loupe (HTTP ${res.status}).` });
      }
      const b = body as { ok?: boolean; result?: unknown; error?: unknown };
      if (b.ok === true) return b.result as MethodOutput<K>;
      const error = serializedError(b.error);
      if (error) return settle<MethodOutput<K>>({ ok: false, error });
      throw new ApiError({
        kind: 'internal',
        message:
          res.status === 401 || res.status === 403
            ? 'This page is not authorised: open the URL Loupe printed (it carries the session token).'
            : `Unexpected answer from Loupe (HTTP ${res.status}).`,
      });
    },
    onEvent(listener) {
      listeners.add(listener);
      open();
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** The preload's typed results → the contract (a failure becomes an ApiError with its kind). */
export function electronBridge(b: ResultBridge): LoupeBridge {
  return {
    async call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>> {
      let answer: DoorAnswer<MethodOutput<K>>;
      try {
        answer = await b.call(method, input);
      } catch (e) {
        // IPC itself failed (the main process is gone): not an answer of the core
        throw new ApiError({ kind: 'internal', message: `Loupe did not answer: ${e instanceof Error ? e.message : String(e)}` });
      }
      return settle(answer);
    },
    onEvent: (l) => b.onEvent(l),
  };
}

export const bridge: LoupeBridge =
  typeof window !== 'undefined' && window.loupe && typeof window.loupe.call === 'function' ? electronBridge(window.loupe) : webBridge();

export const api = {
  call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>> {
    return bridge.call(method, input);
  },
};

/** Subscribe to the event stream for the component's lifetime (the latest listener is always used). */
export function useLoupeEvent(listener: (e: LoupeEvent) => void): void {
  const ref = useRef(listener);
  ref.current = listener;
  useEffect(() => bridge.onEvent((e) => ref.current(e)), []);
}

/** The text to show for any failure: the serialised error's message (the spec's meaning), never a stack. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message + (e.requestId ? ` (request ${e.requestId})` : '');
  if (e instanceof Error) return e.message;
  return String(e);
}
