/**
 * API keys encrypted with Electron's safeStorage (the OS keychain protects the encryption key:
 * Keychain on macOS, DPAPI on Windows, the Secret Service / KWallet on Linux). The encrypted blobs
 * sit in `<dataDir>/secrets.enc.json` as { name: base64 }. Used only when encryption is really
 * available: on Linux, safeStorage's 'basic_text' backend (no keychain, a hard-coded password) is
 * treated as NOT available — Loupe never keeps a key in anything equivalent to plaintext.
 */
import { safeStorage } from 'electron';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SecretError, type SecretAvailability, type SecretStore } from '../core/secrets';

export class SafeStorageSecretStore implements SecretStore {
  readonly backend = 'safeStorage';
  readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'secrets.enc.json');
  }

  static usable(): SecretAvailability {
    if (!safeStorage.isEncryptionAvailable())
      return { ok: false, message: 'Electron safeStorage has no encryption available on this system.' };
    if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text')
      return { ok: false, message: 'Electron safeStorage found no keychain (basic_text backend), which is not real encryption.' };
    return { ok: true, message: null };
  }

  async available(): Promise<SecretAvailability> {
    return SafeStorageSecretStore.usable();
  }

  private read(): Record<string, string> {
    try {
      const v: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private write(all: Record<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  async get(name: string): Promise<string | null> {
    const blob = this.read()[name];
    if (!blob || !SafeStorageSecretStore.usable().ok) return null;
    try {
      return safeStorage.decryptString(Buffer.from(blob, 'base64'));
    } catch {
      throw new SecretError(
        'secrets_unavailable',
        `The stored key "${name}" could not be decrypted (was the keychain reset?). Add it again.`,
      );
    }
  }

  async set(name: string, value: string): Promise<void> {
    const a = SafeStorageSecretStore.usable();
    if (!a.ok) throw new SecretError('secrets_unavailable', a.message ?? 'Encryption is not available.');
    const all = this.read();
    all[name] = safeStorage.encryptString(value).toString('base64');
    this.write(all);
  }

  async delete(name: string): Promise<void> {
    const all = this.read();
    if (!(name in all)) return;
    delete all[name];
    this.write(all);
  }
}
