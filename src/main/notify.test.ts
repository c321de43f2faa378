/** Desktop notification bodies carry no markup on Linux and no bidi trick anywhere (issue 27 #19). */
import { describe, expect, it, vi } from 'vitest';
import { FakeNotification } from './testing/fake-electron';
import { alertNotifier, notificationText } from './notify';

vi.mock('electron', async () => (await import('./testing/fake-electron')).fakeElectron());

describe('alert notifications', () => {
  it('escape markup in the body on Linux, leave it as text elsewhere', () => {
    const body = '3 new in <b>Brand</b> & <a href="https://evil.example">win</a> <img src="https://evil.example/x.png">';
    const linux = notificationText(body, 'linux');
    expect(linux).not.toMatch(/[<>]/);
    expect(linux).toBe(
      '3 new in &lt;b&gt;Brand&lt;/b&gt; &amp; &lt;a href="https://evil.example"&gt;win&lt;/a&gt; &lt;img src="https://evil.example/x.png"&gt;',
    );
    expect(notificationText(body, 'darwin')).toBe(body);
    expect(notificationText('gpj.\u202Eexe.evil', 'win32')).toBe('gpj.\\u202eexe.evil');
  });

  it('the notifier shows what notificationText gives', () => {
    FakeNotification.shown = [];
    const notify = alertNotifier({ onClick: () => {}, platform: 'linux' });
    expect(notify('Watchlist <i>x</i>', 'new: <b>bold</b>')).toBe(true);
    const n = FakeNotification.shown.at(-1)!;
    expect(n.options.body).toBe('new: &lt;b&gt;bold&lt;/b&gt;');
    expect(n.options.title).toBe('Watchlist <i>x</i>');
  });
});
