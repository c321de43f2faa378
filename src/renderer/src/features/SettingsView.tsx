/**
 * Settings: API keys (name + value; the value field is cleared the moment it is submitted and the key
 * is never shown again — only its name and live/test mode), base URL or sandbox, pacing, budget, theme,
 * and the archive (a consistent copy to share or back up).
 */
import { AlertSettings } from './AlertEmailSettings';
import { useEffect, useRef, useState } from 'react';
import type { Settings } from '../../../shared/contract';
import { SETTINGS_TABLE } from '../../../shared/settings';
import { errorText } from '../lib/api';
import { useInfo, useLoupe, useSettings } from '../queries/hooks';
import { useAccountWrites } from '../queries/account';
import { useUi } from '../stores/ui';
import { SandboxPanel } from './SandboxPanel';
import { ArchivePanel } from './ArchivePanel';
import { ErrorBox, ErrorText, Field, When } from '../components/cells';
import { runWithToast } from '../components/WayOut';
import { keychainNotice } from '../lib/words';

/** stored settings an environment variable can override (LOUPE_RATE_LIMIT, LOUPE_MAX_IN_FLIGHT) */
const ENV_OVERRIDES = SETTINGS_TABLE.filter((s) => s.stored && s.env && s.name !== 'baseUrl');

export function SettingsView() {
  return (
    <div className="view">
      <div className="page" data-testid="settings-page">
        <div className="page-column">
          <SandboxPanel />
          <Keys />
          <Connection />
          <ArchivePanel />
        </div>
      </div>
    </div>
  );
}

function Keys() {
  const writes = useAccountWrites();
  const info = useInfo();
  const keys = useLoupe('keys.list', {});
  const toast = useUi((s) => s.toast);
  const ask = useUi((s) => s.ask);
  const [name, setName] = useState('');
  const [hasValue, setHasValue] = useState(false);
  const [busy, setBusy] = useState(false);
  const [msg, setMsg] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  // uncontrolled on purpose: the key never lives in React state, query caches or devtools
  const valueRef = useRef<HTMLInputElement>(null);

  const save = async () => {
    const el = valueRef.current;
    const key = el?.value.trim() ?? '';
    if (el) el.value = ''; // cleared immediately, before anything else happens
    setHasValue(false);
    setErr(null);
    setMsg(null);
    if (!key || !name.trim()) return;
    setBusy(true);
    try {
      const r = await writes.addKey(name.trim(), key);
      setMsg(`Saved “${r.name}”.${r.warning ? ` ${r.warning}` : ''} The key itself will not be shown again.`);
      setName('');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const paste = async () => {
    try {
      const t = await navigator.clipboard.readText();
      if (valueRef.current) valueRef.current.value = t.trim();
      setHasValue(!!t.trim());
    } catch {
      toast('warning', 'Clipboard is not readable here: paste with Ctrl/Cmd+V into the field.');
    }
  };
  const act = runWithToast;
  const i = info.data;
  return (
    <section className="panel">
      <h3>API keys</h3>
      <div className="muted small">
        {i?.secretBackend === 'keyring'
          ? 'Keys are kept in the OS keychain'
          : i?.secretBackend === 'safeStorage'
            ? 'Keys are kept in the OS-encrypted store'
            : i?.secretBackend === 'memory'
              ? 'Keys are kept in memory only, for this session'
              : i?.secretBackend === 'env'
                ? 'The key comes from the LOUPE_API_KEY environment variable'
                : i?.secretBackend === 'unavailable'
                  ? 'Keys cannot be stored: no OS keychain is available here (set LOUPE_API_KEY instead)'
                  : 'Keys are kept in the OS keychain when one is available'}
        ; the app never shows a key after it is saved and never sends it anywhere but the service. Work is spread over every key in use
        (each key has its own rate limit; all draw on one balance). To rotate a key: add the new one, mark the old one “retiring”, check the
        new one shows a recent “last used”, then revoke the old one in the service dashboard and remove it here.
        <KeychainNotice info={i} keyCount={(keys.data ?? []).length} />
      </div>
      <form
        className="row gap wrap"
        autoComplete="off"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Field label="Name" required>
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={64}
            placeholder="e.g. research-main"
            data-testid="key-name"
            autoComplete="off"
          />
        </Field>
        <Field label="Key" required hint="sdr_live_… or sdr_test_… (from the service dashboard)">
          <input
            ref={valueRef}
            type="password"
            defaultValue=""
            onChange={(e) => setHasValue(!!e.target.value.trim())}
            placeholder="paste the key"
            data-testid="key-value"
            autoComplete="new-password"
            spellCheck={false}
            style={{ width: 340 }}
          />
        </Field>
        <button type="button" className="btn" onClick={() => void paste()} title="Paste from the clipboard">
          Paste
        </button>
        <button type="submit" className="btn primary" disabled={busy || !name.trim() || !hasValue} data-testid="key-save">
          Save key
        </button>
      </form>
      {msg ? (
        <div className="small" data-testid="key-saved">
          {msg}
        </div>
      ) : null}
      <ErrorText text={err} />
      <ErrorBox error={keys.error} />
      <ul className="keylist" data-testid="key-list">
        {(keys.data ?? []).length === 0 ? <li className="muted small">No key yet{i?.sandbox ? ': the sandbox needs none' : ''}.</li> : null}
        {(keys.data ?? []).map((k) => (
          <li key={k.name} data-testid="key-item">
            <strong>{k.name}</strong>
            <span className={`chip ${k.mode === 'live' ? 'tone-pos' : k.mode === 'test' ? 'tone-info' : 'tone-muted'}`}>{k.mode}</span>
            {k.active ? <span className="chip tone-info">in use</span> : null}
            {k.retiring ? (
              <span className="chip tone-muted" title="Gets no new work while another key can take it">
                retiring
              </span>
            ) : null}
            {k.refused ? (
              <span
                className="chip tone-warn"
                title={`The service answered ${k.refused}: the key is out of use until you replace it (add it again under the same name)`}
              >
                refused by the service
              </span>
            ) : null}
            {!k.looksValid ? (
              <span className="chip tone-warn" title="The value did not look like a service key when it was added">
                unusual format
              </span>
            ) : null}
            <span className="muted small">
              {k.addedAt ? (
                <>
                  added <When v={k.addedAt} />
                </>
              ) : (
                'from the environment'
              )}
              {k.lastUsedAt ? (
                <>
                  {' · last used '}
                  <When v={k.lastUsedAt} />
                </>
              ) : (
                ' · not used yet'
              )}
            </span>
            <div className="spacer" />
            {k.retiring ? (
              <button className="btn small" onClick={() => void act(() => writes.activateKey(k.name), `“${k.name}” is in use again`)}>
                Use again
              </button>
            ) : k.active && k.addedAt ? (
              <button
                className="btn small"
                title="Rotation: no new work goes to this key while another key can take it"
                onClick={() => void act(() => writes.retireKey(k.name), `“${k.name}” is retiring: new work goes to the other keys`)}
              >
                Retire
              </button>
            ) : null}
            <button
              className="btn small ghost"
              onClick={async () => {
                if (
                  await ask({
                    title: `Remove key “${k.name}”?`,
                    lines: ['It is deleted from this computer. Revoke it in the service dashboard if it leaked.'],
                    okLabel: 'Remove',
                    danger: true,
                  })
                )
                  await act(() => writes.removeKey(k.name), `Removed “${k.name}”`);
              }}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Connection() {
  const writes = useAccountWrites();
  const s = useSettings();
  const info = useInfo();
  const toast = useUi((x) => x.toast);
  const [draft, setDraft] = useState<Settings | null>(null);
  useEffect(() => {
    if (s.data && !draft) setDraft(s.data);
  }, [s.data, draft]);
  if (!draft) return <ErrorBox error={s.error} />;
  const save = async (patch: Partial<Settings>) => {
    try {
      const next = await writes.updateSettings(patch);
      // what was saved comes back as stored; edits not saved yet in the other sections stay in the form
      setDraft((d) => ({ ...(d ?? next), ...Object.fromEntries(Object.keys(patch).map((k) => [k, next[k as keyof Settings]])) }));
      toast('info', 'Settings saved');
    } catch (e) {
      toast('error', errorText(e));
    }
  };
  const choose = (patch: Partial<Settings>) => (setDraft({ ...draft, ...patch }), void save(patch));
  return (
    <>
      <section className="panel">
        <h3>Service</h3>
        <div className="row gap wrap">
          <label className="check">
            <input
              type="radio"
              checked={draft.baseUrl === null}
              onChange={() => setDraft({ ...draft, baseUrl: null })}
              data-testid="mode-sandbox"
            />{' '}
            Built-in sandbox (synthetic data) unless a key is set
          </label>
          <label className="check">
            <input
              type="radio"
              checked={draft.baseUrl !== null}
              onChange={() => setDraft({ ...draft, baseUrl: draft.baseUrl ?? 'https://' })}
            />{' '}
            Base URL
          </label>
          {draft.baseUrl !== null ? (
            <input
              value={draft.baseUrl}
              onChange={(e) => setDraft({ ...draft, baseUrl: e.target.value })}
              style={{ width: 320 }}
              data-testid="base-url"
            />
          ) : null}
          <button className="btn" onClick={() => void save({ baseUrl: draft.baseUrl })}>
            Save
          </button>
        </div>
      </section>
      <section className="panel">
        <h3>Pacing and budget</h3>
        <div className="row gap wrap">
          <Field label="Requests per window" hint="the service allows 60 per sliding 60 s per key">
            <input
              type="number"
              min={1}
              max={60}
              value={draft.rateLimit.requests}
              onChange={(e) => setDraft({ ...draft, rateLimit: { ...draft.rateLimit, requests: Number(e.target.value) } })}
              style={{ width: 80 }}
            />
          </Field>
          <Field label="Window (s)">
            <input
              type="number"
              min={1}
              max={3600}
              value={draft.rateLimit.windowSeconds}
              onChange={(e) => setDraft({ ...draft, rateLimit: { ...draft.rateLimit, windowSeconds: Number(e.target.value) } })}
              style={{ width: 80 }}
            />
          </Field>
          <Field label="Max in flight" hint="the service allows 10 concurrent requests per key">
            <input
              type="number"
              min={1}
              max={10}
              value={draft.maxInFlight}
              onChange={(e) => setDraft({ ...draft, maxInFlight: Number(e.target.value) })}
              style={{ width: 70 }}
            />
          </Field>
          <Field label="Ask above (credits)" hint="confirm before any run whose estimate exceeds this">
            <input
              type="number"
              min={0}
              value={draft.askAboveCredits}
              onChange={(e) => setDraft({ ...draft, askAboveCredits: Number(e.target.value) })}
              style={{ width: 100 }}
              data-testid="ask-above"
            />
          </Field>
          <Field
            label="Longest wait (seconds)"
            hint="when the service asks to wait longer than this, the run stops and can be resumed later"
          >
            <input
              type="number"
              min={1}
              max={86400}
              value={draft.maxWaitSeconds}
              onChange={(e) => setDraft({ ...draft, maxWaitSeconds: Number(e.target.value) })}
              style={{ width: 90 }}
              data-testid="max-wait"
            />
          </Field>
          <Field
            label="Request deadline (seconds)"
            hint="one attempt is abandoned after this and retried the cheapest legal way; heavy endpoints need a minute or more"
          >
            <input
              type="number"
              min={5}
              max={600}
              value={draft.attemptTimeoutSeconds}
              onChange={(e) => setDraft({ ...draft, attemptTimeoutSeconds: Number(e.target.value) })}
              style={{ width: 80 }}
              data-testid="attempt-timeout"
            />
          </Field>
          <button
            className="btn primary"
            onClick={() =>
              void save({
                rateLimit: draft.rateLimit,
                maxInFlight: draft.maxInFlight,
                askAboveCredits: draft.askAboveCredits,
                maxWaitSeconds: draft.maxWaitSeconds,
                attemptTimeoutSeconds: draft.attemptTimeoutSeconds,
              })
            }
            data-testid="settings-save"
          >
            Save
          </button>
        </div>
        <p className="muted small" data-testid="settings-env">
          {/* from the settings table (src/shared/settings.ts): the variables that override these for one process */}
          For one run, the environment wins over these:{' '}
          {ENV_OVERRIDES.map((s, i) => (
            <span key={s.env} title={s.help}>
              {i ? ', ' : ''}
              <code>{s.env}</code>
            </span>
          ))}
          .
        </p>
      </section>
      <section className="panel">
        <h3>You</h3>
        <div className="row gap wrap">
          <Field label="Your name" hint="tags, notes, label overrides and saved sets carry it, with their time; dataset bundles too">
            <input
              value={draft.authorName ?? ''}
              placeholder={info.data?.osUser ? `${info.data.osUser} (your user name)` : 'your user name'}
              maxLength={120}
              onChange={(e) => setDraft({ ...draft, authorName: e.target.value })}
              style={{ width: 240 }}
              data-testid="author-name"
            />
          </Field>
          <button
            className="btn"
            onClick={() => void save({ authorName: draft.authorName?.trim() ? draft.authorName.trim() : null })}
            data-testid="author-save"
          >
            Save
          </button>
        </div>
      </section>
      <ChoicePanel
        title="Appearance"
        label="Theme"
        value={draft.theme}
        testid="theme"
        options={THEME_WORDS}
        onChoose={(v) => choose({ theme: v as Settings['theme'] })}
      />
      <ChoicePanel
        title="Privacy"
        label="Pictures from other sites (avatars, thumbnails)"
        value={draft.remoteImages}
        testid="remote-images"
        options={REMOTE_IMAGE_WORDS}
        onChoose={(v) => choose({ remoteImages: v as Settings['remoteImages'] })}
      />
      <AlertSettings draft={draft} save={save} />
    </>
  );
}

const THEME_WORDS: Array<[string, string]> = [
  ['system', 'follow the system'],
  ['light', 'light'],
  ['dark', 'dark'],
];
const REMOTE_IMAGE_WORDS: Array<[string, string]> = [
  ['on-request', 'only when I click (the site learns nothing until then)'],
  ['always', 'load at once'],
];

/** A panel with one choice, saved as soon as it is made (Appearance, Privacy). */
function ChoicePanel({
  title,
  label,
  value,
  options,
  testid,
  onChoose,
}: {
  title: string;
  label: string;
  value: string;
  options: Array<[string, string]>;
  testid: string;
  onChoose: (v: string) => void;
}) {
  return (
    <section className="panel">
      <h3>{title}</h3>
      <Field label={label}>
        <select value={value} onChange={(e) => onChoose(e.target.value)} data-testid={testid}>
          {options.map(([v, words]) => (
            <option key={v} value={v}>
              {words}
            </option>
          ))}
        </select>
      </Field>
    </section>
  );
}

/** Where keys are kept, when no keychain answered: an error only when a key is needed or held (words.ts keychainNotice). */
function KeychainNotice({ info, keyCount }: { info: Parameters<typeof keychainNotice>[0]; keyCount: number }) {
  const notice = keychainNotice(info, keyCount);
  if (!notice) return null;
  return (
    <div className={notice.error ? 'errtext' : 'muted'} data-testid="keychain-notice" data-error={notice.error}>
      {notice.text}
    </div>
  );
}
