/**
 * The preload exposes exactly the contract as `window.loupe`, and nothing else. Only TYPES come
 * from shared, so this bundle stays tiny (CJS, sandboxed preload).
 * Main answers every call with a DoorAnswer — `{ ok: true, result } | { ok: false, error }`, the
 * error in the error model's serialised form (src/shared/errors.ts) — and the preload passes it
 * through as it is: nothing is thrown across the context bridge (a thrown Error would lose every
 * property but its message). The renderer's door (src/renderer/src/lib/api.ts) turns a failed
 * result back into its ApiError with the same kind.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { LoupeEvent, MethodInput, MethodName, MethodOutput } from '../shared/contract';
import type { DoorAnswer, ResultBridge } from '../shared/errors';

/** Channel names; main uses the same strings (src/main/ipc.ts). */
const CALL = 'loupe:call';
const EVENT = 'loupe:event';

const bridge: ResultBridge = {
  async call<K extends MethodName>(method: K, input?: MethodInput<K>): Promise<DoorAnswer<MethodOutput<K>>> {
    return (await ipcRenderer.invoke(CALL, method, input ?? {})) as DoorAnswer<MethodOutput<K>>;
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
