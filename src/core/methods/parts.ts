/**
 * What the contract's method slices (src/core/methods/<domain>.ts) share: the composed app's
 * parts, handed to each slice by src/core/app.ts. A slice reads and changes only through these.
 */
import type { LoupeEvent, LoupeImpl, MethodName } from '../../shared/contract';
import type { ApiCore } from '../api';
import type { Archive } from '../archive';
import type { ServiceClock } from '../service-clock';
import type { KeyRing, SecretStore, SettingsFile } from '../secrets';
import type { ServiceLink } from '../service-link';

export interface AppParts {
  dataDir: string;
  door: 'electron' | 'web' | 'cli';
  version: string;
  /** the service's clock (service-clock.ts): every time the app records or compares */
  clock: ServiceClock;
  archive: Archive;
  keys: KeyRing;
  secrets: SecretStore;
  settingsFile: SettingsFile;
  emit(e: LoupeEvent): void;
  /** the service in use (the request core, the sandbox, the balance) */
  service: ServiceLink;
  /** the request core of the current service (built on first use) */
  api(): Promise<ApiCore>;
  /** web door: the URL a finished export downloads from */
  downloadUrl?: (exportId: string) => string;
  /** who annotates now: Settings' author name, else LOUPE_AUTHOR, else the OS user name (src/core/author.ts) */
  author(): string | null;
}

/** The methods of one domain: `domain.*` names of the contract. */
export type DomainName<D extends string> = Extract<MethodName, `${D}.${string}`>;
export type Slice<D extends string> = Pick<LoupeImpl, DomainName<D>>;

/**
 * The whole contract from its slices: fails to type-check when a method is missing (T must
 * extend LoupeImpl) or when a slice brings a name the contract does not have (extra → never).
 */
export function wholeContract<T extends LoupeImpl>(impl: T & Record<Exclude<keyof T, MethodName>, never>): LoupeImpl {
  return impl;
}
