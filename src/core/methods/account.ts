/**
 * The contract's `app.info`, `keys.*` and `settings.*` methods: which service and key are in use,
 * the key ring (values never leave the SecretStore; each key's last use from the ledger) and the
 * non-secret settings (settings.json; a change applies to the running request core at once).
 */
import type { AppInfo, KeyInfo, Settings } from '../../shared/contract';
import { namedFields } from '../../shared/patch';
import { osUserName } from '../author';
import { EMAIL_PASSWORD_SECRET, sendTestEmail } from '../watch';
import type { AppParts, Slice } from './parts';

/** each key's last call from the ledger, so a rotation can be confirmed before the old key is revoked */
function lastUse(archive: AppParts['archive'], list: KeyInfo[]): KeyInfo[] {
  let used: Map<string, number>;
  try {
    used = archive.lastUsedByKey();
  } catch {
    return list; // an archive that cannot be read now: the list without it
  }
  return list.map((k) => ({ ...k, lastUsedAt: used.get(k.name) ?? null }));
}

export function accountMethods(
  parts: Pick<AppParts, 'archive' | 'keys' | 'secrets' | 'settingsFile' | 'service' | 'dataDir' | 'door' | 'version' | 'author' | 'clock'>,
): Slice<'app'> & Slice<'keys'> & Slice<'settings'> {
  const { keys, settingsFile, service } = parts;
  const withLastUse = (list: KeyInfo[]) => lastUse(parts.archive, list);

  return {
    async 'app.info'(): Promise<AppInfo> {
      const want = service.wanted();
      const avail = await parts.secrets.available();
      const sb = want.sandbox ? await service.sandbox().catch(() => null) : null;
      return {
        version: parts.version,
        sandbox: want.sandbox,
        baseUrl: want.sandbox ? (sb?.url ?? '') : want.baseUrl,
        keySet: want.sandbox ? true : keys.hasKey(),
        activeKeyName: want.sandbox ? 'sandbox demo key' : keys.activeName(),
        secretBackend: keys.fromEnv ? 'env' : avail.ok ? parts.secrets.backend : 'unavailable',
        secretBackendMessage: avail.ok ? null : avail.message,
        dataDir: parts.dataDir,
        door: parts.door,
        author: parts.author(),
        osUser: osUserName(),
        serviceClock: { now: parts.clock.now(), at: Date.now() },
      };
    },

    async 'keys.list'() {
      return withLastUse(keys.list());
    },
    async 'keys.retire'(i) {
      return withLastUse(keys.retire(i.name, i.retiring));
    },
    async 'keys.add'(i) {
      const r = await keys.add(i.name, i.key, i.activate);
      // the desktop app and the web host stay on the sandbox they started on; the command line
      // starts anew with each command and uses a key whenever a base URL is given (docs/doors.md)
      const extra =
        parts.door !== 'cli' && service.startedInSandbox && !service.doorBaseUrl && !settingsFile.read().app.baseUrl
          ? 'Loupe is running on the built-in sandbox; the key is used from the next start, or at once if you set the service base URL.'
          : null;
      return { name: r.name, warning: [r.warning, extra].filter(Boolean).join(' ') || null, backend: keys.store.backend };
    },
    async 'keys.use'(i) {
      return withLastUse(keys.use(i.name));
    },
    async 'keys.remove'(i) {
      return keys.remove(i.name);
    },

    async 'settings.get'() {
      return settingsFile.read().app;
    },
    async 'settings.emailPassword'(i) {
      if (typeof i.password === 'string') await parts.secrets.set(EMAIL_PASSWORD_SECRET, i.password);
      else if (i.password === null) await parts.secrets.delete(EMAIL_PASSWORD_SECRET);
      const avail = await parts.secrets.available();
      const stored = avail.ok ? (await parts.secrets.get(EMAIL_PASSWORD_SECRET).catch(() => null)) !== null : false;
      return { stored, backend: avail.ok ? parts.secrets.backend : 'unavailable' };
    },
    async 'settings.testEmail'() {
      return sendTestEmail({ settings: () => settingsFile.read().app, secrets: parts.secrets, now: () => parts.clock.now() });
    },
    async 'settings.update'(patch) {
      // exactly the settings the patch names (src/shared/patch.ts)
      const named = namedFields(patch);
      const next = settingsFile.update((d) => {
        const set = settingSetters(d.app);
        for (const k of named) (set[k] as (v: unknown) => void)(patch[k]);
      }).app;
      service.applySettings(next, named.includes('rateLimit') || named.includes('maxInFlight'));
      return next;
    },
  };
}

/** One setter per stored setting: `settings.update` calls exactly those its patch names. */
function settingSetters(app: Settings): { [K in keyof Settings]-?: (v: Settings[K]) => void } {
  return {
    baseUrl: (v) => void (app.baseUrl = v ? v.replace(/\/+$/, '') : null),
    rateLimit: (v) => void (app.rateLimit = v),
    maxInFlight: (v) => void (app.maxInFlight = v),
    askAboveCredits: (v) => void (app.askAboveCredits = v),
    maxWaitSeconds: (v) => void (app.maxWaitSeconds = v),
    attemptTimeoutSeconds: (v) => void (app.attemptTimeoutSeconds = v),
    theme: (v) => void (app.theme = v),
    remoteImages: (v) => void (app.remoteImages = v),
    authorName: (v) => void (app.authorName = v),
    alertWebhookUrl: (v) => void (app.alertWebhookUrl = v),
    alertEmail: (v) => void (app.alertEmail = v),
  };
}
