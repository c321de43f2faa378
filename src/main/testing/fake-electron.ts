/**
 * A small fake of the Electron APIs the main process uses, so src/main runs under plain Node in
 * Vitest (`vi.mock('electron', () => fakeElectron())`). It records what main asked for (windows and
 * their options, IPC handlers, protocol handlers, menus, notifications, dialogs, badge counts) and
 * lets a test drive events (ready, second-instance, navigation, notification clicks).
 *
 * It cannot drift from Electron: every fake member is declared against Electron's own type
 * definitions (node_modules/electron/electron.d.ts) through `Pick<Electron.X, ...>` and
 * `implements`, so a member that Electron renamed, removed or retyped fails `tsc` (npm test's
 * typecheck step) and src/main/fake-electron.test.ts, which compiles this file on its own.
 */
import { EventEmitter } from 'node:events';
import type * as E from 'electron';
import {
  fakeEvent,
  FakeDialog,
  FakeMenu,
  FakeNativeImage,
  FakeNotification,
  FakeSafeStorage,
  FakeScreen,
  FakeShell,
  type Listener,
} from './fake-electron-parts';

// the fakes of safeStorage, notifications, shell, dialog, menus, screen and images: ./fake-electron-parts.ts
export {
  fakeEvent,
  FakeDialog,
  FakeMenu,
  FakeNativeImage,
  FakeNotification,
  FakeSafeStorage,
  FakeScreen,
  FakeShell,
} from './fake-electron-parts';

/** Overloaded `on(event, listener)` for each name of a union: Electron's `on` must accept every one. */
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type OnEach<Ev extends string> = UnionToIntersection<Ev extends string ? (event: Ev, listener: Listener) => unknown : never>;
/** Compiles only when Electron's `on` of T knows every event name the fake emits or main listens to. */
export type EventsExist<T extends { on: unknown }, Ev extends string> = T['on'] extends OnEach<Ev> ? true : never;
const yes = <T extends true>(v: T): T => v;

// ───────────────────────────── app ─────────────────────────────

type AppApi = Pick<
  E.App,
  | 'whenReady'
  | 'quit'
  | 'exit'
  | 'getVersion'
  | 'setName'
  | 'getPath'
  | 'setPath'
  | 'requestSingleInstanceLock'
  | 'isPackaged'
  | 'setBadgeCount'
  | 'setAppUserModelId'
  | 'setAboutPanelOptions'
  | 'showAboutPanel'
>;

export class FakeApp extends EventEmitter implements AppApi {
  isPackaged = false;
  name = 'electron';
  paths: Record<string, string> = { documents: '/home/user/Documents' };
  /** false: another instance holds the lock */
  lockAvailable = true;
  badgeCount = 0;
  userModelId: string | null = null;
  quitCalls = 0;
  exitCode: number | null = null;
  aboutShown = 0;
  private readyResolve!: () => void;
  private readonly ready = new Promise<void>((r) => (this.readyResolve = r));

  override on(event: string, listener: Listener): this {
    return super.on(event, listener);
  }
  override once(event: string, listener: Listener): this {
    return super.once(event, listener);
  }
  whenReady(): Promise<void> {
    return this.ready;
  }
  /** test: the app became ready */
  emitReady(): void {
    this.readyResolve();
    this.emit('ready');
  }
  quit(): void {
    this.quitCalls++;
    const ev = fakeEvent();
    this.emit('before-quit', ev);
    if (!ev.defaultPrevented) this.emit('will-quit', fakeEvent());
  }
  exit(code?: number): void {
    this.exitCode = code ?? 0;
  }
  getVersion(): string {
    return '0.1.0';
  }
  setName(name: string): void {
    this.name = name;
  }
  getPath(name: Parameters<E.App['getPath']>[0]): string {
    const p = this.paths[name];
    if (!p) throw new Error(`Failed to get '${name}' path`);
    return p;
  }
  setPath(name: string, path: string): void {
    this.paths[name] = path;
  }
  requestSingleInstanceLock(_additionalData?: Record<string, unknown>): boolean {
    return this.lockAvailable;
  }
  setBadgeCount(count?: number): boolean {
    this.badgeCount = count ?? 0;
    return true;
  }
  setAppUserModelId(id: string): void {
    this.userModelId = id;
  }
  aboutOptions: E.AboutPanelOptionsOptions | null = null;
  setAboutPanelOptions(options: E.AboutPanelOptionsOptions): void {
    this.aboutOptions = options;
  }
  showAboutPanel(): void {
    this.aboutShown++;
  }
}

// ───────────────────────────── web contents and windows ─────────────────────────────

type WebContentsApi = Pick<E.WebContents, 'send' | 'isDestroyed' | 'setWindowOpenHandler' | 'sendInputEvent' | 'id' | 'executeJavaScript'>;

export class FakeWebContents extends EventEmitter implements WebContentsApi {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  destroyed = false;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  readonly inputs: Array<E.MouseInputEvent | E.MouseWheelInputEvent | E.KeyboardInputEvent> = [];
  windowOpenHandler: Parameters<E.WebContents['setWindowOpenHandler']>[0] | null = null;

  override on(event: string, listener: Listener): this {
    return super.on(event, listener);
  }
  override once(event: string, listener: Listener): this {
    return super.once(event, listener);
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: Parameters<E.WebContents['setWindowOpenHandler']>[0]): void {
    this.windowOpenHandler = handler;
  }
  sendInputEvent(inputEvent: E.MouseInputEvent | E.MouseWheelInputEvent | E.KeyboardInputEvent): void {
    this.inputs.push(inputEvent);
  }
  /** the scripts main ran in the page, in order */
  readonly scripts: string[] = [];
  async executeJavaScript(code: string, _userGesture?: boolean): Promise<unknown> {
    this.scripts.push(code);
    return undefined;
  }
  /** test: the renderer navigates; answers whether main prevented it */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    const ev = fakeEvent();
    this.emit(event, ev, url);
    return ev.defaultPrevented;
  }
}

type WindowApi = Pick<
  E.BrowserWindow,
  | 'webContents'
  | 'show'
  | 'focus'
  | 'restore'
  | 'isMinimized'
  | 'isMaximized'
  | 'isFullScreen'
  | 'maximize'
  | 'getNormalBounds'
  | 'isDestroyed'
  | 'loadURL'
  | 'setOverlayIcon'
  | 'setProgressBar'
  | 'close'
>;
type WindowStatics = Pick<typeof E.BrowserWindow, 'getAllWindows' | 'fromWebContents'>;

export class FakeBrowserWindow extends EventEmitter implements WindowApi {
  static all: FakeBrowserWindow[] = [];
  readonly webContents: E.WebContents;
  readonly contents: FakeWebContents;
  readonly options: E.BrowserWindowConstructorOptions;
  bounds: E.Rectangle;
  maximized = false;
  minimized = false;
  visible = false;
  focused = 0;
  destroyed = false;
  url: string | null = null;
  overlay: { icon: E.NativeImage | null; description: string } | null = null;

  constructor(options: E.BrowserWindowConstructorOptions = {}) {
    super();
    this.options = options;
    this.bounds = { x: options.x ?? 100, y: options.y ?? 100, width: options.width ?? 800, height: options.height ?? 600 };
    this.contents = new FakeWebContents();
    this.webContents = this.contents as unknown as E.WebContents;
    FakeBrowserWindow.all.push(this);
    fake.app.emit('web-contents-created', fakeEvent(), this.contents);
  }
  static getAllWindows(): E.BrowserWindow[] {
    return FakeBrowserWindow.all.filter((w) => !w.destroyed) as unknown as E.BrowserWindow[];
  }
  static fromWebContents(wc: E.WebContents): E.BrowserWindow | null {
    return (FakeBrowserWindow.all.find((w) => w.webContents === wc) ?? null) as unknown as E.BrowserWindow | null;
  }
  override on(event: string, listener: Listener): this {
    return super.on(event, listener);
  }
  override once(event: string, listener: Listener): this {
    return super.once(event, listener);
  }
  show(): void {
    this.visible = true;
  }
  focus(): void {
    this.focused++;
  }
  restore(): void {
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  isFullScreen(): boolean {
    return false;
  }
  maximize(): void {
    this.maximized = true;
  }
  getNormalBounds(): E.Rectangle {
    return { ...this.bounds };
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  async loadURL(url: string, _options?: E.LoadURLOptions): Promise<void> {
    this.url = url;
  }
  setOverlayIcon(overlay: E.NativeImage | null, description: string): void {
    this.overlay = { icon: overlay, description };
  }
  /** the last taskbar / dock progress (-1: none) */
  progress = -1;
  setProgressBar(progress: number, _options?: E.ProgressBarOptions): void {
    this.progress = progress;
  }
  /** the window is closed (by main, or by the user in a test) */
  close(): void {
    this.emit('close', fakeEvent());
    this.destroyed = true;
    this.contents.destroyed = true;
    this.contents.emit('destroyed');
    this.emit('closed');
  }
}
const _windowStatics: WindowStatics = FakeBrowserWindow;

// ───────────────────────────── ipcMain, protocol, session ─────────────────────────────

type IpcApi = Pick<E.IpcMain, 'handle' | 'removeHandler'>;
type Handler = Parameters<E.IpcMain['handle']>[1];
export class FakeIpcMain implements IpcApi {
  readonly handlers = new Map<string, Handler>();
  handle(channel: string, listener: Handler): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** test: a renderer frame at `frameUrl` invokes `channel` */
  async invoke(channel: string, frameUrl: string, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    const sender = FakeBrowserWindow.all[0]?.webContents;
    const event = { senderFrame: { url: frameUrl }, sender } as unknown as E.IpcMainInvokeEvent;
    return h(event, ...args);
  }
}

type ProtocolApi = Pick<E.Protocol, 'registerSchemesAsPrivileged' | 'handle'>;
type ProtocolHandler = Parameters<E.Protocol['handle']>[1];
export class FakeProtocol implements ProtocolApi {
  privileged: E.CustomScheme[] = [];
  readonly handlers = new Map<string, ProtocolHandler>();
  registerSchemesAsPrivileged(customSchemes: E.CustomScheme[]): void {
    if (fake.readyCalled) throw new Error('registerSchemesAsPrivileged must be called before the app is ready');
    this.privileged.push(...customSchemes);
  }
  handle(scheme: string, handler: ProtocolHandler): void {
    this.handlers.set(scheme, handler);
  }
  /** test: the renderer fetches `url` */
  async fetch(url: string): Promise<Response> {
    const h = this.handlers.get(new URL(url).protocol.replace(/:$/, ''));
    if (!h) throw new Error(`no handler for ${url}`);
    return h(new Request(url));
  }
}

type SessionApi = Pick<E.Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler'>;
export class FakeSession implements SessionApi {
  permissionRequest: Parameters<E.Session['setPermissionRequestHandler']>[0] = null;
  permissionCheck: Parameters<E.Session['setPermissionCheckHandler']>[0] = null;
  headersReceived: Parameters<E.WebRequest['onHeadersReceived']>[0] | null = null;
  readonly webRequest: Pick<E.WebRequest, 'onHeadersReceived'> = {
    onHeadersReceived: (a: unknown, b?: unknown) => {
      this.headersReceived = (typeof a === 'function' ? a : b) as FakeSession['headersReceived'];
    },
  };
  setPermissionRequestHandler(handler: Parameters<E.Session['setPermissionRequestHandler']>[0]): void {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: Parameters<E.Session['setPermissionCheckHandler']>[0]): void {
    this.permissionCheck = handler;
  }
}

// ───────────────────────────── the module ─────────────────────────────

export interface FakeState {
  app: FakeApp;
  ipcMain: FakeIpcMain;
  protocol: FakeProtocol;
  session: { defaultSession: FakeSession };
  safeStorage: FakeSafeStorage;
  shell: FakeShell;
  dialog: FakeDialog;
  screen: FakeScreen;
  readyCalled: boolean;
}

function freshState(): FakeState {
  return {
    app: new FakeApp(),
    ipcMain: new FakeIpcMain(),
    protocol: new FakeProtocol(),
    session: { defaultSession: new FakeSession() },
    safeStorage: new FakeSafeStorage(),
    shell: new FakeShell(),
    dialog: new FakeDialog(),
    screen: new FakeScreen(),
    readyCalled: false,
  };
}

/** The current fake (reset between tests). */
export let fake: FakeState = freshState();

export function resetFake(): FakeState {
  fake = freshState();
  FakeBrowserWindow.all = [];
  FakeNotification.shown = [];
  FakeNotification.supported = true;
  FakeMenu.application = null;
  return fake;
}

/** Makes the app ready (main's whenReady continues). */
export function emitReady(): void {
  fake.readyCalled = true;
  fake.app.emitReady();
}

/** The fake's objects that a reset replaces: the module reads them through getters. */
const STATEFUL = ['app', 'ipcMain', 'protocol', 'session', 'safeStorage', 'shell', 'dialog', 'screen'] as const;
const CLASSES = { BrowserWindow: FakeBrowserWindow, Notification: FakeNotification, Menu: FakeMenu, nativeImage: FakeNativeImage };

/**
 * The module `electron` as main sees it. Getters, so a test that resets the fake between imports
 * of main hands each import the current objects.
 */
export function fakeElectron(): Record<string, unknown> {
  const mod: Record<string, unknown> = { ...CLASSES };
  for (const k of STATEFUL) Object.defineProperty(mod, k, { get: () => fake[k], enumerable: true });
  Object.defineProperty(mod, 'default', { get: () => mod, enumerable: true });
  return mod;
}

/** The names of Electron's exports the fake provides (a test checks main uses no other). */
export const FAKED_EXPORTS = [...STATEFUL, ...(Object.keys(CLASSES) as Array<keyof typeof CLASSES>)] as const;

// every event the fake emits and main listens to exists in Electron's declarations
export const EVENTS_EXIST = [
  yes<
    EventsExist<
      E.App,
      'ready' | 'second-instance' | 'before-quit' | 'will-quit' | 'window-all-closed' | 'activate' | 'web-contents-created'
    >
  >(true),
  yes<EventsExist<E.BrowserWindow, 'close' | 'closed' | 'ready-to-show' | 'resize' | 'move' | 'maximize' | 'unmaximize'>>(true),
  yes<EventsExist<E.WebContents, 'will-navigate' | 'will-redirect' | 'will-attach-webview' | 'destroyed' | 'did-finish-load'>>(true),
  yes<EventsExist<E.Notification, 'click' | 'close'>>(true),
];

void _windowStatics;
