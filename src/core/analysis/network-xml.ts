/**
 * Network files for Gephi and other graph tools (docs/analysis.md "Network files"):
 *
 *  - GEXF through graphology-gexf's writer (the reference implementation Gephi's format is
 *    tested against), with every string made XML-safe first: its writer escapes markup but
 *    passes control characters through, and XML 1.0 forbids most of them (a parser stops there).
 *  - GraphML through the streaming writer below (graphology-graphml only parses): typed `<key>`
 *    declarations (boolean, int, long, double, string — a key takes the widest type any element
 *    gives it), escaped attribute values and text, written in ~64 KiB chunks with backpressure.
 *
 * Both are written to a temporary name beside the target and renamed when complete.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, stat, unlink, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type Graph from 'graphology';
import { xmlAttr, xmlSafe, xmlText } from '../text';
import { present } from '../../shared/maps';
import { freshPartial } from '../partial-files';

export { xmlAttr, xmlSafe, xmlText };

type Scalar = string | number | boolean;

function safeAttrs(a: Record<string, unknown>): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(a)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'string') out[xmlSafe(k)] = xmlSafe(v);
    else if (typeof v === 'number' || typeof v === 'boolean') out[xmlSafe(k)] = v;
    else out[xmlSafe(k)] = xmlSafe(JSON.stringify(v));
  }
  return out;
}

/**
 * The GEXF document of a graph (strings made XML-safe; node and edge keys too). The writer
 * (graphology-gexf, with its XML DOM) loads on the first GEXF export, not with the analyses.
 */
export async function gexfOf(graph: Graph): Promise<string> {
  // graphology-gexf is CommonJS (`module.exports = require(…)`): Node's import also names its `write`,
  // but the built command line's chunk (esbuild, code splitting) exports only `default` (the module's
  // exports), so `write` is taken from there (the built CLI said "t is not a function" before)
  const { write: gexfWrite } = (await import('graphology-gexf')).default;
  // keys become XML attributes: an unsafe key is re-keyed on a copy (never the case for Loupe's keys)
  let g = graph;
  if (graph.someNode((n) => xmlSafe(n) !== n)) {
    g = graph.nullCopy();
    graph.forEachNode((n, a) => g.mergeNode(xmlSafe(n), a));
    graph.forEachEdge((_e, a, s, t) => g.mergeEdge(xmlSafe(s), xmlSafe(t), a));
  }
  const doc = gexfWrite(g, {
    formatNode: (_key, attrs) => {
      const { label, ...rest } = safeAttrs(attrs);
      return { label: typeof label === 'string' ? label : String(label ?? _key), attributes: rest };
    },
    formatEdge: (_key, attrs) => {
      const { weight, ...rest } = safeAttrs(attrs);
      return { weight: typeof weight === 'number' ? weight : 1, attributes: rest };
    },
  });
  // graphology-gexf types an attribute by its values: a share that is 0 or 1 in every node would be
  // an integer in one file and a double in the next; a share is a double in every file
  return doc.replace(
    /(<attribute id="([^"]+)" title="[^"]*" type=")(integer|long)("\/>)/g,
    (m, a: string, id: string, _t: string, b: string) => (fixedType(id) === 'double' ? `${a}double${b}` : m),
  );
}

/**
 * The attributes whose type is fixed whatever values a network holds, so that it is the same in
 * every network file: label shares (`sponsored_share`, `intent_top_share`, `negative_share`) are
 * doubles even when every value is 0 or 1.
 */
function fixedType(name: string): KeyType | undefined {
  return name.endsWith('_share') ? 'double' : undefined;
}

type KeyType = 'boolean' | 'int' | 'long' | 'double' | 'string';
const WIDTH: Record<KeyType, number> = { boolean: 0, int: 1, long: 2, double: 3, string: 4 };

function typeOf(v: Scalar): KeyType {
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? (Math.abs(v) <= 0x7fffffff ? 'int' : 'long') : 'double';
  return 'string';
}

function widen(a: KeyType | undefined, b: KeyType): KeyType {
  if (a === undefined) return b;
  if (a === b) return a;
  // numbers widen among themselves; anything mixed with text or booleans becomes text
  if (a !== 'string' && b !== 'string' && a !== 'boolean' && b !== 'boolean') return WIDTH[a] > WIDTH[b] ? a : b;
  return 'string';
}

function valueText(v: Scalar, t: KeyType): string {
  if (t === 'string') return xmlText(typeof v === 'number' && !Number.isFinite(v) ? '' : String(v));
  if (t === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

/** Writes text to a stream in ~64 KiB chunks, waiting for the disk when its buffer is full. */
class XmlOut {
  private buf = '';
  private err: Error | null = null;
  constructor(private readonly ws: WriteStream) {
    ws.on('error', (e) => (this.err ??= e));
  }
  async put(s: string): Promise<void> {
    this.buf += s;
    if (this.buf.length >= 65_536) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.err) throw this.err;
    const s = this.buf;
    this.buf = '';
    // each wait removes both of its listeners (a leftover 'error' listener per drain piled up)
    if (s && !this.ws.write(s))
      await new Promise<void>((res, rej) => {
        const onError = (e: Error): void => {
          this.ws.off('drain', onDrain);
          rej(e);
        };
        const onDrain = (): void => {
          this.ws.off('error', onError);
          res();
        };
        this.ws.once('drain', onDrain);
        this.ws.once('error', onError);
      });
  }
  async end(): Promise<void> {
    await this.flush();
    await new Promise<void>((res, rej) => this.ws.end((e?: Error | null) => (e ? rej(e) : res())));
    if (this.err) throw this.err;
  }
}

/** Write `graph` as GraphML to a stream (see the module comment). */
export async function writeGraphml(graph: Graph, ws: WriteStream, signal?: AbortSignal): Promise<void> {
  const nodeTypes = new Map<string, KeyType>();
  const edgeTypes = new Map<string, KeyType>();
  graph.forEachNode((_n, a) => {
    for (const [k, v] of Object.entries(safeAttrs(a))) nodeTypes.set(k, fixedType(k) ?? widen(nodeTypes.get(k), typeOf(v)));
  });
  graph.forEachEdge((_e, a) => {
    for (const [k, v] of Object.entries(safeAttrs(a))) edgeTypes.set(k, fixedType(k) ?? widen(edgeTypes.get(k), typeOf(v)));
  });
  const nodeIds = new Map<string, string>();
  const edgeIds = new Map<string, string>();
  let k = 0;
  for (const name of nodeTypes.keys()) nodeIds.set(name, `n${k++}`);
  k = 0;
  for (const name of edgeTypes.keys()) edgeIds.set(name, `e${k++}`);

  const out = new XmlOut(ws);
  await out.put(
    '<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n',
  );
  for (const [name, t] of nodeTypes)
    await out.put(`  <key id="${nodeIds.get(name)}" for="node" attr.name="${xmlAttr(name)}" attr.type="${t}"/>\n`);
  for (const [name, t] of edgeTypes)
    await out.put(`  <key id="${edgeIds.get(name)}" for="edge" attr.name="${xmlAttr(name)}" attr.type="${t}"/>\n`);
  await out.put(`  <graph id="G" edgedefault="${graph.type === 'directed' ? 'directed' : 'undirected'}">\n`);
  const data = (ids: Map<string, string>, types: Map<string, KeyType>, attrs: Record<string, unknown>): string => {
    let s = '';
    for (const [name, v] of Object.entries(safeAttrs(attrs)))
      s += `      <data key="${ids.get(name)}">${valueText(v, present(types, name, 'attribute type'))}</data>\n`;
    return s;
  };
  let n = 0;
  for (const { node, attributes } of graph.nodeEntries()) {
    if ((++n & 1023) === 0) signal?.throwIfAborted();
    await out.put(`    <node id="${xmlAttr(node)}">\n${data(nodeIds, nodeTypes, attributes)}    </node>\n`);
  }
  let e = 0;
  for (const { source, target, attributes } of graph.edgeEntries()) {
    if ((++e & 1023) === 0) signal?.throwIfAborted();
    await out.put(
      `    <edge id="e${e}" source="${xmlAttr(source)}" target="${xmlAttr(target)}">\n${data(edgeIds, edgeTypes, attributes)}    </edge>\n`,
    );
  }
  await out.put('  </graph>\n</graphml>\n');
  await out.end();
}

/**
 * Write `graph` to `out` as GEXF or GraphML, under a temporary name renamed when complete (no
 * half file under the final name, ever). Returns the absolute path and the size in bytes.
 */
export async function writeNetworkFile(
  graph: Graph,
  format: 'gexf' | 'graphml',
  out: string,
  signal?: AbortSignal,
): Promise<{ path: string; bytes: number }> {
  const finalPath = resolve(out);
  const tmp = freshPartial(finalPath);
  try {
    if (format === 'gexf') await writeFile(tmp, await gexfOf(graph), { flag: 'wx' });
    else await writeGraphml(graph, createWriteStream(tmp, { flags: 'wx' }), signal);
    signal?.throwIfAborted();
    const bytes = (await stat(tmp)).size;
    await rename(tmp, finalPath);
    return { path: finalPath, bytes };
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
