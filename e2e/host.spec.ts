/**
 * The web door in a real browser: the page loads under the strict CSP with the token from the
 * URL, the contract works from the page's origin, and a foreign origin is refused.
 */
import { test, expect, shot } from './fixtures';

test('the app loads from the host URL under a strict CSP and reaches the core', async ({ page, host }) => {
  const res = await page.request.get(host.origin + '/', { headers: {} });
  expect(res.headers()['content-security-policy']).toContain("default-src 'self'");
  expect(res.headers()['content-security-policy']).not.toContain("script-src 'self' 'unsafe-inline'");
  await expect(page.locator('#root')).not.toBeEmpty();
  // the page's own origin may call the contract with the token it was given
  const info = await page.evaluate(async (token) => {
    const r = await fetch('/api/app.info', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-loupe-token': token },
      body: '{}',
    });
    return r.json();
  }, host.token);
  expect(info).toMatchObject({ ok: true, result: { sandbox: true, door: 'web', keySet: true } });
  await shot(page, 'host-start');
});

test('a page on another origin cannot use the API even with the token', async ({ page, host }) => {
  await page.goto('about:blank');
  const status = await page.evaluate(
    async ({ origin, token }) => {
      try {
        const r = await fetch(`${origin}/api/app.info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-loupe-token': token },
          body: '{}',
        });
        return r.status;
      } catch {
        return 'blocked';
      }
    },
    { origin: host.origin, token: host.token },
  );
  // either the browser blocks the cross-origin preflight or the host answers 403
  expect([403, 'blocked']).toContain(status);
});
