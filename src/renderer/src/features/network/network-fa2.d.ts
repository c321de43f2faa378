/** Types of the two graphology-layout-forceatlas2 files the network view uses (the package types only its main entry and supervisor). */
declare module 'graphology-layout-forceatlas2/iterate.js' {
  export default function iterate(settings: Record<string, unknown>, nodes: Float32Array, edges: Float32Array): void;
}
declare module 'graphology-layout-forceatlas2/helpers.js' {
  import type Graph from 'graphology';
  export function graphToByteArrays(
    graph: Graph,
    getEdgeWeight: (edge: string, attributes: Record<string, unknown>) => number,
  ): { nodes: Float32Array; edges: Float32Array };
  export function assignLayoutChanges(graph: Graph, nodes: Float32Array, outputReducer: null): void;
}
