/**
 * Where API keys live. A SecretStore holds values by name; it never writes a key in plaintext
 * anywhere. When no secure backend is present, `available()` says so in one clear sentence and
 * `set` refuses: there is no plaintext fallback, ever.
 */
import { LoupeError } from '../../shared/errors';

export interface SecretAvailability {
  ok: boolean;
  /** a human sentence when not ok (what is missing and how to fix it); null when ok */
  message: string | null;
}

export interface SecretStore {
  /** 'keyring' | 'safeStorage' | 'memory' | 'unavailable' (shown in AppInfo.secretBackend) */
  readonly backend: string;
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  /** removing a name that is not there is not an error */
  delete(name: string): Promise<void>;
  available(): Promise<SecretAvailability>;
}

export type SecretErrorKind = 'validation' | 'secrets_unavailable' | 'not_found';

/** Errors of the key store; messages never contain a key. `kind` is the error model's (src/shared/errors.ts). */
export class SecretError extends LoupeError {
  declare readonly kind: SecretErrorKind;
  constructor(kind: SecretErrorKind, message: string) {
    super(kind, message);
    this.name = 'SecretError';
  }
}

/** First line of a native error message (the keyring adds a Rust backtrace), with the key redacted. */
export function cleanNativeMessage(e: unknown, secret?: string): string {
  const raw = e instanceof Error ? e.message : String(e);
  let line =
    raw
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? 'unknown error';
  if (secret && secret.length >= 4) line = line.split(secret).join('[redacted-key]');
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}
