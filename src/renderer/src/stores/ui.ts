/** UI state (zustand): current view, drawer, palette, confirmation dialog, live balance, background work, toasts. */
import { create } from 'zustand';
import { newerBalance } from '../lib/balance';
import type { BalanceInfo, CollectStatus, ExportJob, ItemRefInput, WalkInfo, WatchRunInfo } from '../../../shared/contract';

import { VIEWS, type ViewId } from '../../../shared/commands';

/** The views, in the rail's order (declared with every command in src/shared/commands.ts). */
export { VIEWS, type ViewId };

export interface ConfirmRequest {
  title: string;
  lines: string[];
  okLabel: string;
  danger?: boolean;
  resolve: (ok: boolean) => void;
}

/** An in-app dialog that asks for a value (Electron has no window.prompt — issue 14 #5). */
export type DialogRequest =
  | {
      type: 'text';
      title: string;
      label: string;
      initial?: string;
      okLabel: string;
      /** a note (several lines) rather than one line */
      multiline?: boolean;
      /** empty allowed (e.g. clears a note) */
      allowEmpty?: boolean;
      /** offered values (existing tags…) */
      suggestions?: string[];
      detail?: string;
      resolve: (v: string | null) => void;
    }
  | {
      type: 'label';
      title: string;
      okLabel: string;
      detail?: string;
      resolve: (v: { family: string; field: string; value: string | number | boolean | null } | null) => void;
    };

type Ask<T extends DialogRequest['type']> = Omit<Extract<DialogRequest, { type: T }>, 'resolve' | 'type'>;

export interface Toast {
  id: number;
  level: 'info' | 'warning' | 'error';
  message: string;
  /** the way out (navigation) */
  actions?: Array<{ label: string; view: ViewId; hint?: string }>;
}

/** the drawer's fields the keyboard jumps to: `t` the tag, `n` the note */
export type DrawerField = 'tag' | 'note';

let toastSeq = 0;

export interface UiState {
  view: ViewId;
  setView: (v: ViewId) => void;
  drawer: ItemRefInput | null;
  openDrawer: (r: ItemRefInput | null) => void;
  /** a drawer field to focus once the item is drawn (`t` / `n` with the drawer closed or loading) */
  drawerField: DrawerField | null;
  wantDrawerField: (f: DrawerField | null) => void;
  paletteOpen: boolean;
  /** the keyboard shortcuts overlay (`?`) */
  helpOpen: boolean;
  setPalette: (o: boolean) => void;
  bgOpen: boolean;
  /** the Library's Tags manager (its button, or "Manage tags" in the palette) */
  tagsOpen: boolean;
  setTagsOpen: (o: boolean) => void;
  setBgOpen: (o: boolean) => void;
  confirm: ConfirmRequest | null;
  ask: (r: Omit<ConfirmRequest, 'resolve'>) => Promise<boolean>;
  closeConfirm: (ok: boolean) => void;
  dialog: DialogRequest | null;
  askText: (r: Ask<'text'>) => Promise<string | null>;
  askLabel: (r: Ask<'label'>) => Promise<{ family: string; field: string; value: string | number | boolean | null } | null>;
  closeDialog: () => void;
  balance: BalanceInfo | null;
  setBalance: (b: BalanceInfo) => void;
  walks: Record<string, WalkInfo>;
  putWalk: (w: WalkInfo) => void;
  exports: Record<string, ExportJob>;
  putExport: (j: ExportJob) => void;
  runs: Record<string, WatchRunInfo>;
  putRun: (r: WatchRunInfo) => void;
  /** collection plans as their last progress event told (by plan id) */
  plans: Record<string, CollectStatus>;
  putPlan: (p: CollectStatus) => void;
  /** until when the service rate-limits us (last 'rate-limited' event), ms since epoch */
  rateUntil: number | null;
  toasts: Toast[];
  toast: (level: Toast['level'], message: string, actions?: Toast['actions']) => void;
  dismiss: (id: number) => void;
  /** keyboard cursor of the table that is on screen */
  tableRows: ItemRefInput[];
  cursor: number;
  setTableRows: (rows: ItemRefInput[]) => void;
  setCursor: (i: number) => void;
  /** cross-view hand-offs ("Open comments" from a drawer) */
  handoff: {
    commentsUrl?: { platform: string; url: string };
    profile?: { platform: string; handle: string };
    explorer?: { platform: string; endpoint: string; params: Record<string, string> };
  };
  setHandoff: (h: UiState['handoff']) => void;
}

/** The view the address names (`…#library`), else Search: an address opens the app on a view. */
export function viewOfAddress(hash: string): ViewId {
  const id = hash.replace(/^#/, '');
  return VIEWS.find((v) => v.id === id)?.id ?? 'search';
}

/** The address follows the view (a reload stays on it); a no-op where there is no address bar. */
function showInAddress(view: ViewId): void {
  if (typeof window === 'undefined' || !window.history?.replaceState) return;
  window.history.replaceState(window.history.state, '', `#${view}`);
}

export const useUi = create<UiState>((set, get) => ({
  view: viewOfAddress(typeof window === 'undefined' ? '' : window.location.hash),
  setView: (view) => {
    showInAddress(view);
    set((s) => ({ view, cursor: 0, drawer: s.view === view ? s.drawer : null }));
  },
  drawer: null,
  openDrawer: (drawer) => set({ drawer }),
  drawerField: null,
  wantDrawerField: (drawerField) => set({ drawerField }),
  paletteOpen: false,
  helpOpen: false,
  setPalette: (paletteOpen) => set({ paletteOpen }),
  bgOpen: false,
  setBgOpen: (bgOpen) => set({ bgOpen }),
  tagsOpen: false,
  setTagsOpen: (tagsOpen) => set({ tagsOpen }),
  confirm: null,
  ask: (r) =>
    new Promise<boolean>((resolve) => {
      get().confirm?.resolve(false);
      set({ confirm: { ...r, resolve } });
    }),
  closeConfirm: (ok) => {
    const c = get().confirm;
    set({ confirm: null });
    c?.resolve(ok);
  },
  dialog: null,
  askText: (r) =>
    new Promise((resolve) => {
      get().closeDialog();
      set({ dialog: { ...r, type: 'text', resolve } });
    }),
  askLabel: (r) =>
    new Promise((resolve) => {
      get().closeDialog();
      set({ dialog: { ...r, type: 'label', resolve } });
    }),
  closeDialog: () => {
    const d = get().dialog;
    set({ dialog: null });
    d?.resolve(null);
  },
  balance: null,
  setBalance: (b) => {
    // keep the newest reading; a reset (service switch) always applies
    const next = newerBalance(get().balance, b);
    if (next !== get().balance) set({ balance: next });
  },
  walks: {},
  putWalk: (w) => set((s) => ({ walks: { ...s.walks, [w.walkId]: w } })),
  exports: {},
  putExport: (j) => set((s) => ({ exports: { ...s.exports, [j.exportId]: j } })),
  runs: {},
  putRun: (r) => set((s) => ({ runs: { ...s.runs, [r.runId]: r } })),
  plans: {},
  putPlan: (p) => set((s) => ({ plans: { ...s.plans, [p.id]: p } })),
  rateUntil: null,
  toasts: [],
  toast: (level, message, actions) => {
    const id = ++toastSeq;
    set((s) => ({ toasts: [...s.toasts.slice(-3), { id, level, message, ...(actions?.length ? { actions } : {}) }] }));
    setTimeout(() => get().dismiss(id), level === 'error' ? 12000 : 6000);
  },
  dismiss: (id) => set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })),
  tableRows: [],
  cursor: 0,
  setTableRows: (tableRows) => set((s) => ({ tableRows, cursor: Math.min(s.cursor, Math.max(0, tableRows.length - 1)) })),
  setCursor: (i) => set((s) => ({ cursor: Math.max(0, Math.min(i, s.tableRows.length - 1)) })),
  handoff: {},
  setHandoff: (handoff) => set({ handoff }),
}));
