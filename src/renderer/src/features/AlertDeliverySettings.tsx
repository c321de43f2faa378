/**
 * Settings → Alerts (issue 27 #1): the webhook address a watchlist run's alerts are also posted to,
 * as Slack-compatible JSON. Checked here in local words before anything is saved; empty removes it.
 */
import { useState } from 'react';
import { Field } from '../components/cells';

/** Why `text` is not a webhook address (null: it is, or it is empty = none). */
export function webhookProblem(text: string): string | null {
  const t = text.trim();
  if (t === '') return null;
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return 'That is not a web address: paste the whole address the chat service gave you, starting with https://.';
  }
  return u.protocol === 'https:' || u.protocol === 'http:'
    ? null
    : `A webhook address starts with https:// (this one starts with ${u.protocol}//).`;
}

export function AlertDeliverySettings({ value, save }: { value: string | null; save: (url: string | null) => void }) {
  const [text, setText] = useState(value ?? '');
  const problem = webhookProblem(text);
  return (
    <section className="panel">
      <h3>Alerts</h3>
      <p className="muted small">
        Every alert a watchlist run raises is in Watchlists → Alerts. It can also be posted to a chat channel through an incoming webhook
        (Slack, Mattermost, Rocket.Chat…).
      </p>
      <div className="row gap wrap">
        <Field label="Webhook address" hint="Slack-compatible JSON; leave empty for none">
          <input
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="https://hooks.slack.com/services/…"
            style={{ width: 380 }}
            aria-invalid={!!problem}
            data-testid="alert-webhook"
          />
        </Field>
        <button
          className="btn"
          disabled={!!problem}
          onClick={() => save(text.trim() === '' ? null : text.trim())}
          data-testid="alert-webhook-save"
        >
          Save
        </button>
      </div>
      {problem ? (
        <p className="errtext small" role="alert" data-testid="alert-webhook-problem">
          {problem}
        </p>
      ) : null}
    </section>
  );
}
