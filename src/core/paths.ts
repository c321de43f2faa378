import { homedir } from 'node:os';
import { join } from 'node:path';
import { envValue } from '../shared/settings';

/**
 * Where Loupe keeps its data. The same folder for the desktop app, the web host
 * and the command line, so they share one archive:
 *   1. LOUPE_HOME (or the --data-dir flag, passed in as `override`)
 *   2. the platform's user-data folder, matching Electron's app.getPath('userData')
 *      for an app named "Loupe": ~/.config/Loupe (Linux, honours XDG_CONFIG_HOME),
 *      ~/Library/Application Support/Loupe (macOS), %APPDATA%\Loupe (Windows).
 */
export function defaultDataDir(env: Readonly<Record<string, string | undefined>> = process.env, override?: string): string {
  if (override) return override;
  const fromEnv = envValue(env, 'dataDir'); // LOUPE_HOME (the settings table, src/shared/settings.ts)
  if (fromEnv) return fromEnv;
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Loupe');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Loupe');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Loupe');
}

/** The archive's file inside a data folder. */
export function archivePath(dataDir: string): string {
  return join(dataDir, 'loupe.db');
}

/** Non-secret settings (key names, active key, pacing, budgets) inside a data folder. */
export function settingsPath(dataDir: string): string {
  return join(dataDir, 'settings.json');
}
