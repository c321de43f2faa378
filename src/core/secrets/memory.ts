import { SecretError, type SecretAvailability, type SecretStore } from './types';

/** In-memory secrets: tests, and a process that must never persist (e.g. a one-off CLI run). */
export class MemorySecretStore implements SecretStore {
  readonly backend = 'memory';
  private readonly values = new Map<string, string>();

  async get(name: string): Promise<string | null> {
    return this.values.get(name) ?? null;
  }
  async set(name: string, value: string): Promise<void> {
    this.values.set(name, value);
  }
  async delete(name: string): Promise<void> {
    this.values.delete(name);
  }
  async available(): Promise<SecretAvailability> {
    return { ok: true, message: null };
  }
}

/** A store that holds nothing and refuses to save: used when no secure backend exists. */
export class UnavailableSecretStore implements SecretStore {
  readonly backend = 'unavailable';
  constructor(private readonly reason: string) {}
  async get(): Promise<string | null> {
    return null;
  }
  async set(): Promise<void> {
    throw new SecretError('secrets_unavailable', this.reason);
  }
  async delete(): Promise<void> {}
  async available(): Promise<SecretAvailability> {
    return { ok: false, message: this.reason };
  }
}
