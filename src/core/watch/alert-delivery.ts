/**
 * Alert delivery (issue 27 #1): a finished run's alerts — already in the inbox — posted to the
 * webhook address in Settings as Slack-compatible JSON: `{ "text": … }` (what Slack, Mattermost,
 * Rocket.Chat and Teams' Slack-compatible hooks read), plus a `loupe` object with the same facts
 * for a program. One POST per alert, 10 s each; a failure is said (a notice naming only the host:
 * a hook's path is its secret) and never loses the alert.
 */
import type { LoupeEvent, Settings } from '../../shared/contract';
import type { RaisedAlert } from './types';
import { emailDueAlerts, type EmailDeps } from './alert-email';

export interface SlackPayload {
  text: string;
  loupe: {
    kind: RaisedAlert['kind'];
    watchlist: { id: string; name: string };
    runId: string;
    items: number;
    expected: number | null;
    at: string;
    sample: string[];
  };
}

/** Slack's mrkdwn escapes: `&`, `<` and `>` (a post's text cannot make a link or a mention). */
function mrkdwn(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function slackPayload(a: RaisedAlert): SlackPayload {
  const lines = [`*Loupe · ${mrkdwn(a.listName)}*: ${mrkdwn(a.summary)}`, ...a.sample.map((s) => `• ${mrkdwn(s)}`)];
  return {
    text: lines.join('\n'),
    loupe: {
      kind: a.kind,
      watchlist: { id: a.watchlistId, name: a.listName },
      runId: a.runId,
      items: a.items,
      expected: a.expected,
      at: new Date(a.at).toISOString(),
      sample: a.sample,
    },
  };
}

/** The host of an address, for words: the rest of a hook's address is its secret. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the webhook';
  }
}

/** Posts each alert; throws with the cause (status or network error) on the first that fails. */
export async function postWebhook(url: string, alerts: RaisedAlert[], o: { fetch?: typeof fetch; timeoutMs?: number } = {}): Promise<void> {
  const f = o.fetch ?? fetch;
  for (const a of alerts) {
    let r: Response;
    try {
      r = await f(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(slackPayload(a)),
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
      });
    } catch (e) {
      throw new Error(`${hostOf(url)} could not be reached (${e instanceof Error ? e.message : String(e)})`);
    }
    await r.arrayBuffer().catch(() => undefined);
    if (!r.ok) throw new Error(`${hostOf(url)} answered HTTP ${r.status}`);
  }
}

/**
 * The watch service's `deliver`, after every finished run: the run's alerts to the webhook in
 * Settings, if any (a failure becomes a notice); then every alert due for e-mail — this run's and
 * any an earlier run could not send — through the SMTP server in Settings (alert-email.ts): a
 * failure is kept on the alert with its cause and retried on the next run.
 */
export function alertDeliverer(d: {
  settings(): Settings;
  emit(e: LoupeEvent): void;
  log?(line: string): void;
  fetch?: typeof fetch;
  email?: Omit<EmailDeps, 'settings'>;
}): (alerts: RaisedAlert[]) => Promise<void> {
  return async (alerts) => {
    const url = d.settings().alertWebhookUrl;
    if (url && alerts.length > 0) {
      try {
        await postWebhook(url, alerts, { fetch: d.fetch });
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        d.log?.(`alert delivery: ${why}`);
        d.emit({
          type: 'notice',
          level: 'warning',
          message: `An alert could not be posted to the webhook: ${why}. It is in the alert inbox; check the address in Settings.`,
        });
      }
    }
    if (d.email) {
      const r = await emailDueAlerts({ ...d.email, settings: d.settings });
      if (r.failed.length > 0) {
        d.log?.(`alert e-mail: ${r.failed[0]}`);
        d.emit({
          type: 'notice',
          level: 'warning',
          message: `${r.failed.length === 1 ? 'An alert' : `${r.failed.length} alerts`} could not be e-mailed: ${r.failed[0]}. ${r.failed.length === 1 ? 'It is' : 'They are'} in the alert inbox and will be sent on the next run.`,
        });
      }
    }
  };
}
