/**
 * The one file that picks the door (docs/renderer.md "Doors").
 *
 *  - Electron: the preload exposes the contract as `window.loupe` (a LoupeBridge).
 *  - Browser (web host, src/host): POST /api/<method> with a JSON body and the per-run token in
 *    `x-loupe-token`; the answer is `{ ok: true, result }` or `{ ok: false, error: BridgeError }`.
 *    Events arrive over Server-Sent Events at /api/events?token=… as LoupeEvent JSON.
 *    The token comes from `?token=` in the page URL once, is kept in sessionStorage and removed
 *    from the address bar so it is not left in history or screenshots.
 */
import { useEffect, useRef } from 'react';
import type { BridgeError, LoupeBridge, LoupeEvent, MethodInput, MethodName, MethodOutput } from '../../../shared/contract';

declare global {
  interface Window {
    loupe?: LoupeBridge;
  }
}

/** An error that crossed a door: the spec's meaning in `message`, never a stack. */
export class ApiError extends Error {
  readonly kind: string;
  readonly type?: string;
  readonly requestId?: string;
  constructor(e: BridgeError) {
    super(e.message);
    this.name = 'ApiError';
    this.kind = e.kind;
    this.type = e.type;
    this.requestId = e.requestId;
  }
}

function isBridgeError(v: unknown): v is BridgeError {
  return typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string' && typeof (v as { kind?: unknown }).kind === 'string';
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
      try {
        res = await fetch(`/api/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-loupe-token': token },
          body: JSON.stringify(input ?? {}),
        });
      } catch {
        throw new ApiError({ kind: 'network', message: 'Loupe is not reachable: the local host stopped or the page is stale. Reload the page.' });
      }
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        throw new ApiError({ kind: 'internal', message: `Unexpected answer from Loupe (HTTP ${res.status}).` });
      }
      const b = body as { ok?: boolean; result?: unknown; error?: unknown };
      if (b.ok === true) return b.result as MethodOutput<K>;
      if (isBridgeError(b.error)) throw new ApiError(b.error);
      throw new ApiError({ kind: 'internal', message: res.status === 401 || res.status === 403 ? 'This page is not authorised: open the URL Loupe printed (it carries the session token).' : `Unexpected answer from Loupe (HTTP ${res.status}).` });
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

function electronBridge(b: LoupeBridge): LoupeBridge {
  return {
    async call(method, input) {
      try {
        return await b.call(method, input);
      } catch (e) {
        // Electron wraps thrown errors; the main process sends the BridgeError as JSON in the message.
        const msg = e instanceof Error ? e.message : String(e);
        const m = /(\{.*\})\s*$/.exec(msg);
        if (m) {
          try {
            const parsed: unknown = JSON.parse(m[1]);
            if (isBridgeError(parsed)) throw new ApiError(parsed);
          } catch (inner) {
            if (inner instanceof ApiError) throw inner;
          }
        }
        if (isBridgeError(e)) throw new ApiError(e);
        throw new ApiError({ kind: 'internal', message: msg.replace(/^Error invoking remote method '[^']*': (Error: )?/, '') });
      }
    },
    onEvent: (l) => b.onEvent(l),
  };
}

export const bridge: LoupeBridge = typeof window !== 'undefined' && window.loupe && typeof window.loupe.call === 'function' ? electronBridge(window.loupe) : webBridge();

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

/** The text to show for any failure: BridgeError.message (the spec's meaning), never a stack. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return e.message + (e.requestId ? ` (request ${e.requestId})` : '');
  if (e instanceof Error) return e.message;
  return String(e);
}
