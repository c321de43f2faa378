/**
 * Part of the fake of Electron (./fake-electron.ts, which re-exports all of it): safeStorage,
 * notifications, shell, dialog, menus, screen and images — each declared against Electron's own
 * types like the rest, so none can drift.
 */
import { EventEmitter } from 'node:events';
import type * as E from 'electron';

// Electron's `on`/`once` are overloaded per event name; one loose listener type implements them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Listener = (...args: any[]) => void;

/** An Electron-style event with preventDefault. */
export function fakeEvent(): { defaultPrevented: boolean; preventDefault(): void } {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
  };
}

// ───────────────────────────── safeStorage ─────────────────────────────

type SafeStorageApi = Pick<E.SafeStorage, 'isEncryptionAvailable' | 'getSelectedStorageBackend' | 'encryptString' | 'decryptString'>;
type Backend = ReturnType<E.SafeStorage['getSelectedStorageBackend']>;
export class FakeSafeStorage implements SafeStorageApi {
  available = true;
  backend: Backend = 'gnome_libsecret';
  isEncryptionAvailable(): boolean {
    return this.available;
  }
  getSelectedStorageBackend(): Backend {
    return this.backend;
  }
  /** a reversible stand-in for OS encryption: never the plaintext bytes */
  encryptString(plainText: string): Buffer {
    if (!this.available) throw new Error('Encryption is not available.');
    return Buffer.from(Buffer.from(plainText, 'utf8').map((b) => b ^ 0x5a));
  }
  decryptString(encrypted: Buffer): string {
    if (!this.available) throw new Error('Decryption is not available.');
    return Buffer.from(encrypted.map((b) => b ^ 0x5a)).toString('utf8');
  }
}

// ───────────────────────────── Notification, shell, dialog, Menu, screen, nativeImage ──────────

type NotificationApi = Pick<E.Notification, 'show' | 'close'>;
export class FakeNotification extends EventEmitter implements NotificationApi {
  static supported = true;
  static shown: FakeNotification[] = [];
  readonly options: E.NotificationConstructorOptions;
  constructor(options: E.NotificationConstructorOptions = {}) {
    super();
    this.options = options;
  }
  static isSupported(): boolean {
    return FakeNotification.supported;
  }
  override on(event: string, listener: Listener): this {
    return super.on(event, listener);
  }
  show(): void {
    FakeNotification.shown.push(this);
  }
  close(): void {
    this.emit('close', fakeEvent());
  }
}
const _notificationStatics: Pick<typeof E.Notification, 'isSupported'> = FakeNotification;

type ShellApi = Pick<E.Shell, 'openExternal' | 'openPath'>;
export class FakeShell implements ShellApi {
  readonly opened: string[] = [];
  readonly paths: string[] = [];
  async openExternal(url: string, _options?: E.OpenExternalOptions): Promise<void> {
    this.opened.push(url);
  }
  async openPath(path: string): Promise<string> {
    this.paths.push(path);
    return '';
  }
}

type DialogApi = Pick<E.Dialog, 'showSaveDialog' | 'showErrorBox'>;
export class FakeDialog implements DialogApi {
  /** what the next save dialog answers (a test sets it) */
  nextSave: E.SaveDialogReturnValue = { canceled: true, filePath: '' };
  readonly saves: E.SaveDialogOptions[] = [];
  readonly errors: Array<{ title: string; content: string }> = [];
  showSaveDialog(window: E.BaseWindow, options: E.SaveDialogOptions): Promise<E.SaveDialogReturnValue>;
  showSaveDialog(options: E.SaveDialogOptions): Promise<E.SaveDialogReturnValue>;
  async showSaveDialog(a: E.BaseWindow | E.SaveDialogOptions, b?: E.SaveDialogOptions): Promise<E.SaveDialogReturnValue> {
    this.saves.push(b ?? (a as E.SaveDialogOptions));
    return this.nextSave;
  }
  showErrorBox(title: string, content: string): void {
    this.errors.push({ title, content });
  }
}

export class FakeMenu {
  constructor(readonly template: Array<E.MenuItemConstructorOptions | E.MenuItem>) {}
  static application: FakeMenu | null = null;
  static buildFromTemplate(template: Array<E.MenuItemConstructorOptions | E.MenuItem>): E.Menu {
    return new FakeMenu(template) as unknown as E.Menu;
  }
  static setApplicationMenu(menu: E.Menu | null): void {
    FakeMenu.application = menu as unknown as FakeMenu | null;
  }
}
const _menuStatics: Pick<typeof E.Menu, 'buildFromTemplate' | 'setApplicationMenu'> = FakeMenu;

type ScreenApi = Pick<E.Screen, 'getAllDisplays'>;
export class FakeScreen implements ScreenApi {
  workAreas: E.Rectangle[] = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  getAllDisplays(): E.Display[] {
    return this.workAreas.map((workArea, i) => ({ id: i + 1, workArea, bounds: workArea }) as unknown as E.Display);
  }
}

export class FakeNativeImage {
  constructor(readonly path: string) {}
  static createFromPath(path: string): E.NativeImage {
    return new FakeNativeImage(path) as unknown as E.NativeImage;
  }
}
const _imageStatics: Pick<typeof E.nativeImage, 'createFromPath'> = FakeNativeImage;

void [_notificationStatics, _menuStatics, _imageStatics];
