/**
 * The contract bound to Electron IPC GENERICALLY: one handler for every method of the contract
 * (validated with the contract's zod schema inside `dispatch`), one channel for events.
 * Calls are accepted only from the app's own window (the sender's frame URL must be the bundled
 * renderer), so a navigated-away or foreign frame cannot drive the core.
 * Every call answers a DoorAnswer (src/shared/errors.ts): a failure is `{ ok: false, error }` with
 * the serialised error — the handler never throws, so nothing crosses IPC as a message to parse.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { dispatch, logIfBug, toBridgeError, type AppHandle, type DispatchResult } from '../core/bridge';
import { METHOD_NAMES, type LoupeEvent } from '../shared/contract';

export const CALL_CHANNEL = 'loupe:call';
export const EVENT_CHANNEL = 'loupe:event';

/** How a call reaches the core; the desktop wraps a few methods (the save dialog for exports). */
export type Caller = (method: string, input: unknown, e: IpcMainInvokeEvent) => Promise<DispatchResult>;

export function bindContract(app: AppHandle, isTrustedSender: (e: IpcMainInvokeEvent) => boolean, call?: Caller): () => void {
  const known = new Set<string>(METHOD_NAMES);
  const through: Caller = call ?? ((method, input) => dispatch(app, method, input));
  ipcMain.handle(CALL_CHANNEL, async (e, method: unknown, input: unknown): Promise<DispatchResult> => {
    if (!isTrustedSender(e)) return { ok: false, error: { kind: 'forbidden', message: 'This window may not call Loupe.' } };
    if (typeof method !== 'string' || !known.has(method)) return { ok: false, error: { kind: 'not_found', message: 'Unknown method.' } };
    try {
      return await through(method, input, e);
    } catch (err) {
      // a desktop wrapper (the save dialog) failed: the same serialised error, a bug's stack on stderr
      const error = toBridgeError(err, app.secrets());
      logIfBug(method, err, error, app.secrets());
      return { ok: false, error };
    }
  });
  return () => ipcMain.removeHandler(CALL_CHANNEL);
}

/**
 * Forwards every core event to a window's renderer while it lives, through `transform` (which may
 * hold an event back until some work is done, e.g. moving a finished export to its chosen path).
 */
export function forwardEvents(
  app: AppHandle,
  contents: WebContents,
  transform?: (ev: LoupeEvent) => LoupeEvent | Promise<LoupeEvent>,
): () => void {
  const send = (ev: LoupeEvent) => {
    if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, ev);
  };
  const off = app.events.on((ev) => {
    if (!transform) return send(ev);
    const out = transform(ev);
    if (out instanceof Promise) void out.then(send, () => send(ev));
    else send(out);
  });
  contents.once('destroyed', off);
  return off;
}
