/**
 * What `import Database from 'better-sqlite3'` means inside the Electron bundles (the alias is in
 * electron.vite.config.ts; Node — tests, CLI, web host — imports the package itself).
 *
 * The package's JavaScript is the same for Node and Electron; only the compiled binary differs.
 * Under Electron this hands every new connection the Electron-ABI binary that src/main/native.ts
 * finds, through better-sqlite3's own `nativeBinding` option; the constructor, its statics
 * (SqliteError) and `instanceof` stay the package's (a Proxy, not a subclass).
 */
import { createRequire } from 'node:module';
import { basename, dirname } from 'node:path';
import { currentSqliteBinding } from './native';

type DatabaseConstructor = typeof import('better-sqlite3');
type Options = NonNullable<ConstructorParameters<DatabaseConstructor>[1]>;

const Real = createRequire(import.meta.url)('better-sqlite3/lib/index.js') as DatabaseConstructor;
// built, this module may sit in out/main/chunks (shared by index.js and a worker thread's bundle,
// e.g. the migrations' prepare-worker.js): the bundle's folder is then its parent
const here = import.meta.dirname;
const binding = currentSqliteBinding(basename(here) === 'chunks' ? dirname(here) : here).path;

/** better-sqlite3's constructor, every new connection of which loads `binding` (null: unchanged). */
export function withNativeBinding(Real: DatabaseConstructor, binding: string | null): DatabaseConstructor {
  if (!binding) return Real;
  const withBinding = (args: unknown[]): unknown[] => {
    const [file, options] = args as [unknown, Options | undefined];
    return [file, { ...options, nativeBinding: options?.nativeBinding ?? binding }];
  };
  const proxy: DatabaseConstructor = new Proxy(Real, {
    construct: (target, args, newTarget) =>
      Reflect.construct(target, withBinding(args), newTarget === proxy ? target : newTarget) as object,
    apply: (target, _this, args) => Reflect.construct(target, withBinding(args)),
  });
  return proxy;
}

const Database = withNativeBinding(Real, binding);
export default Database;
