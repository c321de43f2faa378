/**
 * Issue 14 #5: no window.prompt anywhere in the renderer (Electron does not implement it); the
 * Library's six actions ask through an in-app dialog that is a labelled modal with real controls.
 * (Keyboard use — focus, Tab trap, Enter, Esc — is driven in Chromium by e2e/issue14.spec.ts; the
 * source scan is src/host/renderer-source.test.ts.)
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DialogFor } from './Dialog';
import { useUi } from '../stores/ui';

describe('in-app dialogs instead of window.prompt', () => {
  it('a text dialog is a labelled modal with an input, Cancel and OK', async () => {
    const p = useUi.getState().askText({ title: 'Save result set', label: 'Name', okLabel: 'Save' });
    const html = renderToStaticMarkup(createElement(DialogFor, { d: useUi.getState().dialog! }));
    expect(html).toMatch(/role="dialog"/);
    expect(html).toMatch(/aria-modal="true"/);
    expect(html).toMatch(/aria-labelledby="ask-dialog-title"/);
    expect(html).toMatch(/<h2 id="ask-dialog-title"[^>]*>Save result set<\/h2>/);
    expect(html).toMatch(/<label class="field"><span class="field-label">Name<\/span><input/);
    expect(html).toMatch(/data-testid="ask-cancel"/);
    useUi.getState().closeDialog();
    expect(await p).toBeNull();
  });

  it('the label dialog offers the spec values, not free text', async () => {
    const p = useUi.getState().askLabel({ title: 'Override a label', okLabel: 'Override' });
    const html = renderToStaticMarkup(createElement(DialogFor, { d: useUi.getState().dialog! }));
    expect(html).toMatch(/<option value="negative" title="negative">negative<\/option>/);
    expect(html).toMatch(/<option value="intent" title="intent">Intent<\/option>/);
    useUi.getState().closeDialog();
    expect(await p).toBeNull();
  });
});
