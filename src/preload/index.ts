/**
 * The preload exposes exactly the contract (a LoupeBridge) as `window.loupe`, and nothing else.
 * Only TYPES come from the shared contract, so this bundle stays tiny (CJS, sandboxed preload).
 * Main answers every call with { ok, result } | { ok, error: BridgeError }; a failure rejects
 * with an Error whose message is the BridgeError as JSON (custom properties do not survive the
 * context bridge, the message does). The renderer's door (src/renderer/src/lib/api.ts) parses it.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { BridgeError, LoupeBridge, LoupeEvent, MethodInput, MethodName, MethodOutput } from '../shared/contract';

/** Channel names; main uses the same strings (src/main/ipc.ts). */
const CALL = 'loupe:call';
const EVENT = 'loupe:event';

type Answer = { ok: true; result: unknown } | { ok: false; error: BridgeError };

const bridge: LoupeBridge = {
  async call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<MethodOutput<K>> {
    const answer = (await ipcRenderer.invoke(CALL, method, input ?? {})) as Answer;
    if (answer.ok) return answer.result as MethodOutput<K>;
    throw new Error(JSON.stringify(answer.error));
  },
  onEvent(listener: (e: LoupeEvent) => void) {
    const wrapped = (_e: IpcRendererEvent, ev: LoupeEvent) => listener(ev);
    ipcRenderer.on(EVENT, wrapped);
    return () => {
      ipcRenderer.removeListener(EVENT, wrapped);
    };
  },
};

contextBridge.exposeInMainWorld('loupe', bridge);
