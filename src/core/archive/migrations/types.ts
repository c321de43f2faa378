import type { Database } from 'better-sqlite3';

/**
 * One schema step. `up` runs inside a transaction together with the
 * `PRAGMA user_version = version` that records it; a failing step leaves the
 * archive as it was. Never edit a shipped migration: append a new file
 * (NNNN-name.ts) and list it in ./index.ts.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
