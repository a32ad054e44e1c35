/**
 * The graph's colours come from the VS Code theme: the webview's CSS variables, read when it starts
 * and whenever the theme changes. Cytoscape needs concrete colours, not `var(...)`, hence the reading.
 */
import type cytoscape from 'cytoscape';

export interface Theme {
  background: string;
  foreground: string;
  muted: string;
  edge: string;
  focus: string;
  error: string;
  core: string;
  feature: string;
  util: string;
  match: string;
  font: string;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export function readTheme(): Theme {
  return {
    background: cssVar('--vscode-editor-background', '#1e1e1e'),
    foreground: cssVar('--vscode-editor-foreground', '#d4d4d4'),
    muted: cssVar('--vscode-descriptionForeground', '#9d9d9d'),
    edge: cssVar('--vscode-editorLineNumber-foreground', '#6e7681'),
    focus: cssVar('--vscode-focusBorder', '#0078d4'),
    error: cssVar('--vscode-errorForeground', '#f48771'),
    // The tree colours types with the same chart colours (core red, feature blue, util green).
    core: cssVar('--vscode-charts-red', '#f14c4c'),
    feature: cssVar('--vscode-charts-blue', '#3794ff'),
    util: cssVar('--vscode-charts-green', '#89d185'),
    match: cssVar('--vscode-charts-yellow', '#cca700'),
    font: cssVar('--vscode-font-family', 'sans-serif'),
  };
}

export function graphStyle(t: Theme): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle',
        width: 'label',
        height: 22,
        'padding-left': '8px',
        'padding-right': '8px',
        label: 'data(label)',
        'text-valign': 'center',
        'font-size': 11,
        'font-family': t.font,
        color: t.foreground,
        'background-color': t.background,
        'border-width': 2,
        'border-color': t.muted,
        'min-zoomed-font-size': 7,
      },
    },
    { selector: 'node.t-core', style: { 'border-color': t.core, 'background-color': mix(t.core, t.background) } },
    { selector: 'node.t-feature', style: { 'border-color': t.feature, 'background-color': mix(t.feature, t.background) } },
    { selector: 'node.t-util', style: { 'border-color': t.util, 'background-color': mix(t.util, t.background) } },
    { selector: 'node.entry', style: { 'border-width': 4, 'border-style': 'double' } },
    { selector: 'node.unused', style: { 'border-style': 'dashed', color: t.muted } },
    { selector: 'node.cycle', style: { 'border-color': t.error, 'border-width': 3 } },
    {
      selector: 'edge',
      style: {
        width: 1.2,
        'curve-style': 'bezier',
        'line-color': t.edge,
        'target-arrow-color': t.edge,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.8,
      },
    },
    // A big graph's edges: no control points or arrow heads to compute for thousands of them.
    { selector: 'edge.fast', style: { 'curve-style': 'haystack', 'haystack-radius': 0 } },
    { selector: 'edge.cycle', style: { 'line-color': t.error, 'target-arrow-color': t.error, width: 2.5, 'line-style': 'dashed' } },
    // A big graph's summary: a box per group of atoms (its words and count on two lines), an edge per pair of
    // groups, as wide as the dependencies it stands for.
    { selector: 'node.group', style: { 'text-wrap': 'wrap', 'font-size': 13, height: 'label', 'padding-top': '8px', 'padding-bottom': '8px', 'padding-left': '12px', 'padding-right': '12px', 'border-width': 3, 'line-height': 1.3 } },
    { selector: 'edge.group-edge', style: { width: 'mapData(weight, 1, 120, 1.2, 7)', opacity: (e: cytoscape.EdgeSingular) => Math.min(1, 0.35 + Number(e.data('weight')) / 90), 'curve-style': 'straight', 'arrow-scale': 0.7 } },
    { selector: 'node.match', style: { 'overlay-color': t.match, 'overlay-opacity': 0.35, 'overlay-padding': 4 } },
    { selector: 'node.selected-node', style: { 'border-color': t.focus, 'border-width': 4, 'font-weight': 'bold' } },
    { selector: 'node.highlight', style: { 'border-width': 3 } },
    { selector: 'node.impacted', style: { 'border-color': t.match, 'border-width': 3 } },
    { selector: 'edge.highlight', style: { 'line-color': t.focus, 'target-arrow-color': t.focus, width: 2.5 } },
    { selector: '.faded', style: { opacity: 0.15 } },
    { selector: '.hidden', style: { display: 'none' } },
    { selector: 'node:selected', style: { 'overlay-opacity': 0 } },
  ];
}

/** A type colour toned down towards the background, for the node's fill (hex and rgb() colours). */
function mix(color: string, background: string): string {
  const a = parse(color);
  const b = parse(background);
  if (!a || !b) return background;
  const m = a.map((v, i) => Math.round(v * 0.22 + b[i]! * 0.78));
  return `rgb(${m[0]}, ${m[1]}, ${m[2]})`;
}

function parse(color: string): number[] | null {
  const hex = /^#([0-9a-f]{3,8})$/i.exec(color);
  if (hex) {
    const h = hex[1]!;
    const full = h.length <= 4 ? [...h.slice(0, 3)].map((c) => c + c).join('') : h.slice(0, 6);
    return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  }
  const rgb = /^rgba?\((\d+)[,\s]+(\d+)[,\s]+(\d+)/i.exec(color);
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}
