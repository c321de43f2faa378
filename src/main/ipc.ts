/**
 * The contract bound to Electron IPC GENERICALLY: one handler for every method of the contract
 * (validated with the contract's zod schema inside `dispatch`), one channel for events.
 * Calls are accepted only from the app's own window (the sender's frame URL must be the bundled
 * renderer), so a navigated-away or foreign frame cannot drive the core.
 */
import { ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import { dispatch, type AppHandle, type DispatchResult } from '../core/bridge';
import { METHOD_NAMES } from '../shared/contract';

export const CALL_CHANNEL = 'loupe:call';
export const EVENT_CHANNEL = 'loupe:event';

export function bindContract(app: AppHandle, isTrustedSender: (e: IpcMainInvokeEvent) => boolean): () => void {
  const known = new Set<string>(METHOD_NAMES);
  ipcMain.handle(CALL_CHANNEL, async (e, method: unknown, input: unknown): Promise<DispatchResult> => {
    if (!isTrustedSender(e)) return { ok: false, error: { kind: 'forbidden', message: 'This window may not call Loupe.' } };
    if (typeof method !== 'string' || !known.has(method)) return { ok: false, error: { kind: 'not_found', message: 'Unknown method.' } };
    return dispatch(app, method, input);
  });
  return () => ipcMain.removeHandler(CALL_CHANNEL);
}

/** Forwards every core event to a window's renderer while it lives. */
export function forwardEvents(app: AppHandle, contents: WebContents): () => void {
  const off = app.events.on((ev) => {
    if (!contents.isDestroyed()) contents.send(EVENT_CHANNEL, ev);
  });
  contents.once('destroyed', off);
  return off;
}
