import type { Database } from 'better-sqlite3';

/**
 * How a long step says how far it is: `done` of `total` units of work (items, usually), and what
 * it is doing in a few words ("re-reading each item's columns"). The runner (../db.ts `migrate`)
 * hands one to `up` only when its caller listens (the doors, through prepare.ts); without one a
 * step reports nothing, or — 0010 on a large archive — to stderr.
 */
export type MigrationReport = (done: number, total: number, words?: string) => void;

/**
 * One schema step. `up` runs inside a transaction together with the
 * `PRAGMA user_version = version` that records it; a failing step leaves the
 * archive as it was. Never edit a shipped migration: append a new file
 * (NNNN-name.ts) and list it in ./index.ts. A step that rewrites every item reports through
 * `progress` (optional: a step may ignore it, and `up(db)` stays a valid signature).
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Database, progress?: MigrationReport): void;
}
