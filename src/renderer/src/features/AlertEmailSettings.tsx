/**
 * Settings → Alerts → E-mail (issue 27 #1): the SMTP server a watchlist run's alerts are also
 * e-mailed through. The settings go to settings.json (`alertEmail`); the password goes straight to
 * the OS keychain (`settings.emailPassword`: the field is cleared the moment it is saved and never
 * shown again). "Send test e-mail" sends one message through what is saved and says what came of it.
 */
import { useState } from 'react';
import { alertEmailProblem, EMAIL_SECURITY, EMAIL_SECURITY_WORDS, type AlertEmail, type EmailSecurity } from '../../../shared/alert-email';
import { api, errorText } from '../lib/api';
import { useLoupe } from '../queries/hooks';
import { Field } from '../components/cells';
import type { Settings } from '../../../shared/contract';
import { AlertDeliverySettings } from './AlertDeliverySettings';

/** Settings → Alerts: the webhook, then e-mail. */
export function AlertSettings({ draft, save }: { draft: Settings; save: (patch: Partial<Settings>) => Promise<void> }) {
  return (
    <>
      <AlertDeliverySettings value={draft.alertWebhookUrl} save={(v) => void save({ alertWebhookUrl: v })} />
      <AlertEmailSettings value={draft.alertEmail} save={(v) => save({ alertEmail: v })} />
    </>
  );
}

interface Draft {
  host: string;
  port: string;
  security: EmailSecurity;
  user: string;
  from: string;
  to: string;
}

const PORTS: Record<EmailSecurity, string> = { starttls: '587', tls: '465', none: '25' };

function draftOf(e: AlertEmail | null): Draft {
  return e
    ? { host: e.host, port: String(e.port), security: e.security, user: e.user ?? '', from: e.from, to: e.to.join(', ') }
    : { host: '', port: '587', security: 'starttls', user: '', from: '', to: '' };
}

function valueOf(d: Draft): unknown {
  return {
    host: d.host.trim(),
    port: Number(d.port),
    security: d.security,
    user: d.user.trim() ? d.user.trim() : null,
    from: d.from.trim(),
    to: d.to.split(/[,;\s]+/).filter(Boolean),
  };
}

export function AlertEmailSettings({ value, save }: { value: AlertEmail | null; save: (v: AlertEmail | null) => Promise<void> }) {
  const [d, setD] = useState<Draft>(() => draftOf(value));
  const [password, setPassword] = useState('');
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const stored = useLoupe('settings.emailPassword', {});
  const problem = d.host.trim() === '' && !value ? null : alertEmailProblem(valueOf(d));
  const set = (patch: Partial<Draft>) => {
    setD({ ...d, ...patch });
    setResult(null);
  };

  const saveAll = async () => {
    const pass = password;
    setPassword(''); // cleared at once, never shown again
    setResult(null);
    try {
      await save(valueOf(d) as AlertEmail);
      if (pass) await api.call('settings.emailPassword', { password: pass });
      await stored.refetch();
    } catch (e) {
      setResult({ ok: false, message: errorText(e) });
    }
  };
  const test = async () => {
    setBusy(true);
    setResult(null);
    try {
      setResult(await api.call('settings.testEmail', {}));
    } catch (e) {
      setResult({ ok: false, message: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    await save(null);
    await api.call('settings.emailPassword', { password: null });
    await stored.refetch();
    setD(draftOf(null));
    setResult(null);
  };

  return (
    <section className="panel" aria-labelledby="alert-email-title">
      <h3 id="alert-email-title">E-mail</h3>
      <p className="muted small">
        Alerts can also be e-mailed through your SMTP server. An alert that cannot be sent stays in the inbox with the reason and is sent on
        the next run.
      </p>
      <EmailFields d={d} set={set} password={password} setPassword={setPassword} stored={!!stored.data?.stored} />
      <div className="row gap wrap">
        <button className="btn" disabled={!!problem || d.host.trim() === ''} onClick={() => void saveAll()} data-testid="alert-email-save">
          Save
        </button>
        <button className="btn" disabled={!value || busy} onClick={() => void test()} data-testid="alert-email-test">
          {busy ? 'Sending…' : 'Send test e-mail'}
        </button>
        {value ? (
          <button className="btn" onClick={() => void stop()} data-testid="alert-email-off">
            Stop e-mailing alerts
          </button>
        ) : null}
        <span className="muted small">
          {value ? (stored.data?.stored || !value.user ? '' : 'No password stored yet.') : 'Not set: alerts are not e-mailed.'}
        </span>
      </div>
      {problem ? (
        <p className="errtext small" role="alert" data-testid="alert-email-problem">
          {problem}
        </p>
      ) : null}
      {result ? (
        <p
          className={result.ok ? 'small' : 'errtext small'}
          role="status"
          data-testid="alert-email-result"
          data-ok={result.ok ? 'true' : 'false'}
        >
          {result.message}
        </p>
      ) : null}
    </section>
  );
}

/** The form's fields (the password field is never filled from what is stored). */
function EmailFields({
  d,
  set,
  password,
  setPassword,
  stored,
}: {
  d: Draft;
  set: (p: Partial<Draft>) => void;
  password: string;
  setPassword: (v: string) => void;
  stored: boolean;
}) {
  const passwordState = stored ? 'A password is kept in the OS keychain; type a new one to replace it.' : 'No password stored.';
  return (
    <>
      <div className="row gap wrap">
        <Field label="SMTP server">
          <input
            value={d.host}
            onChange={(e) => set({ host: e.target.value })}
            placeholder="smtp.example.org"
            style={{ width: 220 }}
            data-testid="alert-email-host"
          />
        </Field>
        <Field label="Port">
          <input
            value={d.port}
            inputMode="numeric"
            onChange={(e) => set({ port: e.target.value })}
            style={{ width: 70 }}
            data-testid="alert-email-port"
          />
        </Field>
        <Field label="Security">
          <select
            value={d.security}
            onChange={(e) =>
              set({
                security: e.target.value as EmailSecurity,
                port: d.port === PORTS[d.security] ? PORTS[e.target.value as EmailSecurity] : d.port,
              })
            }
            data-testid="alert-email-security"
          >
            {EMAIL_SECURITY.map((s) => (
              <option key={s} value={s}>
                {EMAIL_SECURITY_WORDS[s]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <div className="row gap wrap">
        <Field label="User name" hint="Leave empty when the server takes mail without signing in">
          <input
            value={d.user}
            onChange={(e) => set({ user: e.target.value })}
            autoComplete="off"
            style={{ width: 200 }}
            data-testid="alert-email-user"
          />
        </Field>
        <Field label="Password" hint={passwordState}>
          <input
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
            placeholder={stored ? '•••••• (stored)' : ''}
            style={{ width: 180 }}
            data-testid="alert-email-password"
          />
        </Field>
      </div>
      <div className="row gap wrap">
        <Field label="From">
          <input
            value={d.from}
            onChange={(e) => set({ from: e.target.value })}
            placeholder="loupe@example.org"
            style={{ width: 220 }}
            data-testid="alert-email-from"
          />
        </Field>
        <Field label="To" hint="One or more addresses, separated by commas">
          <input
            value={d.to}
            onChange={(e) => set({ to: e.target.value })}
            placeholder="team@example.org"
            style={{ width: 300 }}
            data-testid="alert-email-to"
          />
        </Field>
      </div>
    </>
  );
}
