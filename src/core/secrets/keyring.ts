/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, and the
 * Secret Service (gnome-keyring, KWallet) on Linux. One entry per key: service 'Loupe',
 * account = the key's name.
 *
 * Availability is probed once (write, read back and delete a probe entry): on Linux without a
 * Secret Service on the session bus the library answers AccessDenied or similar, and reads return
 * nothing. Then `available()` is false with a sentence saying why and what to do, and `set`
 * refuses — Loupe never falls back to writing a key in plaintext.
 */
import { AsyncEntry } from '@napi-rs/keyring';
import { cleanNativeMessage, SecretError, type SecretAvailability, type SecretStore } from './types';

const PROBE_ACCOUNT = '__loupe_probe__';

// A failed call of the keychain library (every call where no keychain runs, the probe first)
// captures and symbolises a Rust backtrace when RUST_BACKTRACE is set in the environment: ~250 ms
// of CPU on a thread-pool thread, at the host's start while the browser opens the page (issue 30
// "Opening"), for a backtrace cleanNativeMessage drops (only the message's first line is kept).
// RUST_LIB_BACKTRACE=0 turns off library backtraces only (a panic's still follows RUST_BACKTRACE);
// a value the user set is kept. Set before the library's first call: Rust reads it once.
process.env.RUST_LIB_BACKTRACE ??= '0';

export interface KeyringOptions {
  /** service name of the entries; 'Loupe' in the app, something else in tests */
  service?: string;
}

export class KeyringSecretStore implements SecretStore {
  readonly backend = 'keyring';
  private readonly service: string;
  private probe: Promise<SecretAvailability> | null = null;

  constructor(opts: KeyringOptions = {}) {
    this.service = opts.service ?? 'Loupe';
  }

  available(): Promise<SecretAvailability> {
    this.probe ??= this.runProbe();
    return this.probe;
  }

  private async runProbe(): Promise<SecretAvailability> {
    const entry = new AsyncEntry(this.service, PROBE_ACCOUNT);
    const token = `probe-${process.pid}-${Date.now()}`;
    try {
      await entry.setPassword(token);
      const back = await entry.getPassword();
      await entry.deleteCredential().catch(() => false);
      if (back !== token) return { ok: false, message: unavailableSentence('the keychain did not return what was stored') };
      return { ok: true, message: null };
    } catch (e) {
      return { ok: false, message: unavailableSentence(cleanNativeMessage(e, token)) };
    }
  }

  private async ensure(): Promise<void> {
    const a = await this.available();
    if (!a.ok) throw new SecretError('secrets_unavailable', a.message ?? 'The OS keychain is not available.');
  }

  async get(name: string): Promise<string | null> {
    const a = await this.available();
    if (!a.ok) return null;
    try {
      return (await new AsyncEntry(this.service, name).getPassword()) ?? null;
    } catch (e) {
      throw new SecretError('secrets_unavailable', `Could not read "${name}" from the OS keychain: ${cleanNativeMessage(e)}`);
    }
  }

  async set(name: string, value: string): Promise<void> {
    await this.ensure();
    try {
      await new AsyncEntry(this.service, name).setPassword(value);
    } catch (e) {
      throw new SecretError('secrets_unavailable', `Could not save "${name}" in the OS keychain: ${cleanNativeMessage(e, value)}`);
    }
  }

  async delete(name: string): Promise<void> {
    const a = await this.available();
    if (!a.ok) return;
    try {
      await new AsyncEntry(this.service, name).deleteCredential();
    } catch {
      // not there: nothing to delete
    }
  }
}

export function unavailableSentence(cause: string): string {
  return (
    `The OS keychain is not available (${cause}). Loupe never stores API keys in plain text: ` +
    'start and unlock a keychain (on Linux a Secret Service such as gnome-keyring or KWallet), ' +
    'or set LOUPE_API_KEY in the environment for this session.'
  );
}
