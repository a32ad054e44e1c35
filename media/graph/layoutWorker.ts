/**
 * The layered layout of a big graph, off the webview's main thread: dagre (through cytoscape-dagre, on a
 * headless cytoscape) takes seconds for a thousand atoms, and the page stays responsive meanwhile.
 * In: the visible nodes with their drawn sizes, the edges and the dagre options. Out: the positions.
 */
import cytoscape from 'cytoscape';
import dagre from 'cytoscape-dagre';

cytoscape.use(dagre);

export interface LayoutRequest {
  id: number;
  nodes: { id: string; w: number; h: number }[];
  edges: { id: string; source: string; target: string }[];
  options: Record<string, unknown>;
}

export interface LayoutResult {
  id: number;
  positions: Record<string, { x: number; y: number }>;
  error?: string;
}

const scope = self as unknown as { onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null; postMessage(m: LayoutResult): void };

scope.onmessage = (event) => {
  const { id, nodes, edges, options } = event.data;
  try {
    const cy = cytoscape({
      headless: true,
      styleEnabled: true,
      elements: [
        ...nodes.map((n) => ({ group: 'nodes' as const, data: { id: n.id, w: n.w, h: n.h } })),
        ...edges.map((e) => ({ group: 'edges' as const, data: e })),
      ],
      style: [{ selector: 'node', style: { width: 'data(w)', height: 'data(h)' } }],
    });
    cy.layout({ ...options, name: 'dagre', fit: false, animate: false } as cytoscape.LayoutOptions).run();
    const positions: LayoutResult['positions'] = {};
    cy.nodes().forEach((n) => {
      positions[n.id()] = n.position();
    });
    cy.destroy();
    scope.postMessage({ id, positions });
  } catch (err) {
    scope.postMessage({ id, positions: {}, error: (err as Error).message });
  }
};
