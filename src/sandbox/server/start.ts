/**
 * Start a SandboxServer on explicit deps (registry + world) and wrap it in the public handle.
 * `src/sandbox/index.ts` supplies the real registry and world; tests may pass fixtures.
 */
import { SandboxServer } from './http';
import type { FaultSpec, QueuedFault } from './faults';
import type { ChaosConfig, ChargeRecord, SandboxStats, ServerDeps } from './types';
import type { SpecVariant } from './variants';

export interface SandboxOptions {
  /** 0 (default) = a free port. */
  port?: number;
  /** World seed (default 1). */
  seed?: number;
  /** Starting balance of the default account (default 10000). */
  balance?: number;
  /** Sandbox seconds per real second (default 1). */
  timeScale?: number;
  /** Real milliseconds added to each data response (default 0). */
  latencyMs?: number;
  /** Total fault rate (0..1) or per-kind rates. */
  chaos?: ChaosConfig | number;
  /** Key prefix (default `sdr`): keys look like `sdr_live_<43 chars>`. */
  keyPrefix?: string;
  /** Introductory free calls of the default account (default 10). */
  freeCalls?: number;
  /**
   * Attrition (default on, docs/sandbox-world.md "Aging"): as the clock moves a share of posts is
   * removed and of accounts made private (answered not found). Off for tests whose subject is not the
   * world and that make up fresh handles after moving the clock (a made-up handle can be one that
   * went private). Engagement growth stays either way.
   */
  attrition?: boolean;
  /** Sandbox epoch, ms since 1970 (default: real start time floored to the minute). */
  epoch?: number;
  /**
   * Spec variants to serve (names from SPEC_VARIANTS; combinable; default none = the default
   * reading). An unknown name makes startServer/startSandbox reject.
   */
  variants?: string[];
}

export interface SandboxAdmin {
  /** New key on the default account (or on `account`, from createAccount). */
  createKey(name?: string, account?: string): string;
  revokeKey(key: string): void;
  /** New account with its own balance and free calls; returns its id. */
  createAccount(opts?: { balance?: number; freeCalls?: number }): string;
  setBalance(n: number, account?: string): void;
  balance(account?: string): number;
  /** Move sandbox time forward by `seconds` (sandbox seconds). */
  advance(seconds: number): void;
  /** Sandbox time, ms since 1970. */
  now(): number;
  /** The server-side billing ledger. */
  charges(): ChargeRecord[];
  stats(): SandboxStats;
  setChaos(c: ChaosConfig | number): void;
  /** SHA-256 hex of a key, as it appears in charges(). */
  keyHash(key: string): string;
  /** Replace the active spec variants (throws on an unknown name); returns the active list. */
  setVariants(list: string[]): SpecVariant[];
  /** The active spec variants. */
  variants(): SpecVariant[];
  /** Append scripted faults to the FIFO queue (throws on an invalid one; nothing queued then). */
  queueFaults(faults: FaultSpec[]): QueuedFault[];
  /** Empty the scripted-fault queue. */
  clearFaults(): void;
  /** Scripted faults still queued, with their remaining uses. */
  faults(): QueuedFault[];
}

export interface SandboxHandle {
  /** http://127.0.0.1:<port> */
  url: string;
  /** A valid demo key of the default account. */
  key: string;
  close(): Promise<void>;
  admin: SandboxAdmin;
}

export async function startServer(deps: ServerDeps, opts: SandboxOptions = {}): Promise<SandboxHandle> {
  const seed = opts.seed ?? 1;
  const epoch = opts.epoch ?? defaultEpoch();
  const s = new SandboxServer(deps, {
    seed,
    balance: opts.balance ?? 10_000,
    timeScale: opts.timeScale ?? 1,
    latencyMs: opts.latencyMs ?? 0,
    chaos: opts.chaos,
    keyPrefix: opts.keyPrefix ?? 'sdr',
    freeCalls: opts.freeCalls ?? 10,
    epoch,
    variants: opts.variants ?? [],
  });
  const url = await s.listen(opts.port ?? 0);
  const account = (id?: string) => {
    const a = s.keys.accounts.get(id ?? s.defaultAccount.id);
    if (!a) throw new Error(`unknown account ${id}`);
    return a;
  };
  return {
    url,
    key: s.demoKey,
    close: () => s.close(),
    admin: {
      createKey: (name, acct) => s.createKey(name, acct),
      revokeKey: (k) => s.revokeKey(k),
      createAccount: (o) => s.keys.createAccount({ balance: o?.balance, freeCalls: o?.freeCalls }).id,
      setBalance: (n, acct) => s.setBalance(n, acct),
      balance: (acct) => account(acct).balance,
      advance: (sec) => s.clock.advance(sec),
      now: () => s.clock.now(),
      charges: () => s.charges(),
      stats: () => s.stats(),
      setChaos: (c) => s.setChaos(c),
      keyHash: (k) => s.keyHashOf(k),
      setVariants: (list) => s.setVariants(list) as SpecVariant[],
      variants: () => s.variants.list(),
      queueFaults: (f) => s.faults.push(f),
      clearFaults: () => s.faults.clear(),
      faults: () => s.faults.pending(),
    },
  };
}

/** Default sandbox epoch: real start time floored to the minute. */
export function defaultEpoch(): number {
  return Math.floor(Date.now() / 60_000) * 60_000;
}
