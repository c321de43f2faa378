/**
 * The network view (issue 16): sigma.js draws the network of the library's rows in Chromium
 * (software WebGL under --disable-gpu), ForceAtlas2 runs in the app's own worker under the
 * renderer's CSP (the fixture fails on any CSP violation), search, edge-weight filter, a node's
 * items, the table view, GEXF / GraphML exports, axe-clean in light and dark.
 */
import { test, expect, shot } from './fixtures';
import { api, axeClean } from './page-helpers';

test.describe.configure({ timeout: 180_000 });

test('network view: drawn with WebGL, laid out in a worker, search, filter, items behind a node, exports, a table, accessible', async ({
  page,
}) => {
  // some posts with hashtags in the archive (the sandbox's captions carry them now and then)
  const walk = await api<{ walkId: string }>(page, 'walks.start', {
    target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'nasa' } },
    source: 'e2e',
    maxPages: 8,
  });
  await expect
    .poll(async () => (await api<{ status: string }>(page, 'walks.get', { walkId: walk.walkId })).status, { timeout: 90_000 })
    .not.toBe('running');
  const view = await api<{ nodes: Array<{ key: string; label: string; weight: number }>; edges: unknown[] }>(page, 'network.build', {
    query: {},
    network: 'co-hashtag',
  });
  expect(view.nodes.length, 'the archive has hashtags').toBeGreaterThan(1);

  await page.getByTestId('nav-library').click();
  await page.getByTestId('network-open').click();
  const panel = page.getByTestId('network-panel');
  await expect(panel.getByTestId('network-stats')).toContainText('nodes');
  const webgl = await page.evaluate(
    () => !!document.createElement('canvas').getContext('webgl2') || !!document.createElement('canvas').getContext('webgl'),
  );
  if (webgl) {
    const canvas = panel.getByTestId('network-canvas');
    await expect(canvas).toHaveAttribute('data-renderer', 'webgl');
    await expect(canvas.locator('canvas').first()).toBeVisible();
    await expect
      .poll(async () => Number(await canvas.getAttribute('data-renders')), {
        message: 'sigma renders frames while the worker lays the network out',
        timeout: 60_000,
      })
      .toBeGreaterThan(1);
    await expect(panel.getByText('Drag to pan', { exact: false })).toBeVisible({ timeout: 30_000 });
    await shot(page, 'network-drawing');
    // click the largest node where sigma drew it
    const top = await canvas.getAttribute('data-top-node');
    await expect.poll(async () => canvas.getAttribute('data-top-x')).not.toBeNull();
    const box = (await canvas.boundingBox())!;
    const x = Number(await canvas.getAttribute('data-top-x'));
    const y = Number(await canvas.getAttribute('data-top-y'));
    await page.mouse.click(box.x + x, box.y + y);
    const items = panel.getByTestId('network-items');
    await expect(items).toContainText(view.nodes.find((n) => n.key === top)!.label);
    await expect(items.getByTestId('network-item')).toHaveCount(view.nodes.find((n) => n.key === top)!.weight);
  } else {
    await expect(panel.getByTestId('network-no-webgl')).toBeVisible();
  }

  // search and the edge filter
  const second = view.nodes[1];
  await panel.getByTestId('network-search').fill(second.label.slice(1));
  await expect(panel.getByText(/\d+ found/)).toBeVisible();
  await panel.getByTestId('network-min-weight').fill('2');

  // the table (always there for the keyboard), a node's items, the drawer
  if (webgl) await panel.getByTestId('network-table-toggle').click();
  const table = panel.getByTestId('network-table');
  await expect(table).toBeVisible();
  await table.getByTestId('network-node').first().focus();
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('network-items').getByTestId('network-item').first()).toBeVisible();
  await panel.getByTestId('network-items').getByTestId('network-item').first().click();
  await expect(page.getByTestId('drawer')).toBeVisible();
  await page.keyboard.press('Escape');

  // exports of the whole network
  await panel.getByTestId('network-export-graphml').click();
  await expect(panel.getByTestId('network-export-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(panel.getByTestId('network-export-status')).toContainText(`co-hashtag network of`);
  await panel.getByTestId('network-export-gexf').click();
  await expect(panel.getByTestId('network-export-status')).toContainText('.gexf');

  await shot(page, 'network-table');
  for (const theme of ['light', 'dark'] as const) {
    await api(page, 'settings.update', { theme });
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.getByTestId('nav-library').click();
    await page.getByTestId('network-open').click();
    await expect(page.getByTestId('network-stats')).toContainText('nodes');
    await axeClean(page, `network drawing (${theme})`);
    if (webgl) await page.getByTestId('network-table-toggle').click();
    await page.getByTestId('network-node').first().click();
    await expect(page.getByTestId('network-item').first()).toBeVisible();
    await axeClean(page, `network table and items (${theme})`);
  }
});
