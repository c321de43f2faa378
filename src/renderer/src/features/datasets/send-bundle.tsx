/**
 * A bundle .zip chosen on this computer, sent to Loupe (docs/datasets.md "In the app"): the app
 * never names a path for the core to read — it sends the file's bytes in parts of 1 MiB
 * (`datasets.upload`, in order) and verifies, imports or rehydrates it by the id the core gave.
 * The same at both doors (the desktop's renderer and the web page).
 */
import { useRef, type ReactNode } from 'react';
import type { BundleRef } from '../../../../shared/contract-datasets';
import { api } from '../../lib/api';

const PART = 1024 * 1024;

function base64Of(blob: Blob): Promise<string> {
  return new Promise((ok, fail) => {
    const r = new FileReader();
    r.onload = () => ok(String(r.result).replace(/^data:[^,]*,/, ''));
    r.onerror = () => fail(r.error ?? new Error('The file could not be read.'));
    r.readAsDataURL(blob);
  });
}

/** Sends the file; `onSent(bytes)` after each part. */
export async function sendBundle(file: File, onSent?: (bytes: number) => void): Promise<BundleRef> {
  const part = (at: number) => base64Of(file.slice(at, at + PART));
  let r = await api.call('datasets.upload', { offset: 0, data: await part(0) });
  onSent?.(r.bytes);
  while (r.bytes < file.size) {
    r = await api.call('datasets.upload', { upload: r.upload, offset: r.bytes, data: await part(r.bytes) });
    onSent?.(r.bytes);
  }
  return { upload: r.upload };
}

/** What a picker says about folders: a folder cannot be sent from a page. */
export const FOLDER_NOTE =
  'A bundle .zip on this computer. A bundle folder: zip it first, or use the command line (loupe dataset import / verify / rehydrate <folder>).';

/** A button that opens the file chooser for a bundle .zip and hands the chosen file on. */
export function BundlePicker(p: { onFile: (f: File) => void; disabled: boolean; testid: string; title: string; children: ReactNode }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button className="btn small" onClick={() => input.current?.click()} disabled={p.disabled} data-testid={p.testid} title={p.title}>
        {p.children}
      </button>
      <input
        ref={input}
        type="file"
        accept=".zip,application/zip"
        hidden
        aria-hidden="true"
        tabIndex={-1}
        data-testid={`${p.testid}-file`}
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = ''; // the same file can be chosen again
          if (f) p.onFile(f);
        }}
      />
    </>
  );
}
