import type Database from 'better-sqlite3';

/**
 * The archive's SQLite connection type. Its own module so that what `db.ts` loads while opening a
 * connection (the migrations, the SQL functions of core/analysis/term-filter.ts) can name the type
 * without importing `db.ts` back (no import cycle; scripts/structure.mjs).
 */
export type Db = Database.Database;
