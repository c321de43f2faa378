/**
 * The main window's size and position, remembered across launches in <dataDir>/window-state.json.
 * A saved position is used only while it is still on a connected display (a monitor may be gone);
 * otherwise the window opens centred at the saved size.
 */
import type { BrowserWindow, Rectangle } from 'electron';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const MIN_SIZE = { width: 900, height: 600 };
export const DEFAULT_STATE: WindowState = { width: 1280, height: 820, maximized: false };

export function windowStateFile(dataDir: string): string {
  return join(dataDir, 'window-state.json');
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Visible when at least 100×50 px of the window's top edge area lies inside one work area. */
function visibleOn(s: Required<Pick<WindowState, 'x' | 'y'>> & WindowState, areas: Rectangle[]): boolean {
  return areas.some((a) => {
    const w = Math.min(s.x + s.width, a.x + a.width) - Math.max(s.x, a.x);
    const h = Math.min(s.y + 50, a.y + a.height) - Math.max(s.y, a.y);
    return w >= 100 && h >= 50;
  });
}

export function loadWindowState(file: string, workAreas: Rectangle[]): WindowState {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null) return { ...DEFAULT_STATE };
  } catch {
    return { ...DEFAULT_STATE };
  }
  const width = isInt(raw.width) ? Math.max(MIN_SIZE.width, Math.round(raw.width)) : DEFAULT_STATE.width;
  const height = isInt(raw.height) ? Math.max(MIN_SIZE.height, Math.round(raw.height)) : DEFAULT_STATE.height;
  const state: WindowState = { width, height, maximized: raw.maximized === true };
  if (isInt(raw.x) && isInt(raw.y)) {
    const placed = { ...state, x: Math.round(raw.x), y: Math.round(raw.y) };
    if (visibleOn(placed, workAreas)) return placed;
  }
  return state;
}

export function saveWindowState(file: string, state: WindowState): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, file);
  } catch {
    // a read-only data folder costs the remembered size, nothing else
  }
}

type TrackedWindow = Pick<BrowserWindow, 'on' | 'getNormalBounds' | 'isMaximized' | 'isMinimized' | 'isFullScreen' | 'isDestroyed'>;

/** Saves the window's normal bounds (debounced while it moves) and, on close, whether it was maximised. */
export function trackWindowState(win: TrackedWindow, file: string, debounceMs = 400): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const snapshot = (): WindowState => {
    const b = win.getNormalBounds();
    return { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() };
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!win.isDestroyed() && !win.isMinimized() && !win.isFullScreen()) saveWindowState(file, snapshot());
    }, debounceMs);
  };
  const now = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!win.isDestroyed()) saveWindowState(file, snapshot());
  };
  win.on('resize', later);
  win.on('move', later);
  win.on('maximize', later);
  win.on('unmaximize', later);
  win.on('close', now);
  return now;
}
