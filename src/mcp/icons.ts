/**
 * Icons for the server and its tools (MCP 2025-11-25 `icons`), so a client can show which server and
 * which kind of tool a call belongs to. They are drawn like the Atoms tree: the tree's type colours
 * (core red, feature blue, util green; src/views/atomTree.ts) and its glyphs (a pulse for core, a
 * sparkle for feature), plus a small graph for the tools that look at the map.
 *
 * Every tool's entry in `tools/list` carries its icon inline, so each is a tiny SVG as a `data:` URI
 * (no request to any address, nothing for a client to fetch), shared by kind rather than one per tool:
 * the whole set adds about 2 KB to `tools/list`. The `mimeType` is given because VS Code cannot tell
 * a `data:` URI's type from its path and ignores an icon without one.
 */
import type { Icon } from '@modelcontextprotocol/sdk/types.js';

// The tree's chart colours, in short hex (every byte is repeated in each tool's entry).
const CORE = '#f44';
const FEATURE = '#39f';
const UTIL = '#8d8';
const EDGE = '#999';

/** An SVG as a `data:` URI, escaping only what a URI must (`#`, `<`, `>`, `%`); attributes use single quotes. */
export function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${svg.replace(/[%#<>]/g, (c) => encodeURIComponent(c))}`;
}

function icon(body: string, viewBox = '0 0 16 16'): Icon[] {
  return [{ src: svgDataUri(`<svg xmlns='http://www.w3.org/2000/svg' viewBox='${viewBox}'>${body}</svg>`), mimeType: 'image/svg+xml' }];
}

/** The activity bar's atom (media/icons/atom.svg) in the type colours: the server's own icon. */
export const SERVER_ICONS = icon(
  `<g fill='none' stroke='${FEATURE}' stroke-width='1.5'><ellipse cx='12' cy='12' rx='10' ry='4'/><ellipse cx='12' cy='12' rx='10' ry='4' transform='rotate(60 12 12)'/><ellipse cx='12' cy='12' rx='10' ry='4' transform='rotate(120 12 12)'/></g><circle cx='12' cy='12' r='2.5' fill='${CORE}'/>`,
  '0 0 24 24',
);

/** The kinds of tool, each with one icon. */
export type ToolKind = 'look' | 'change' | 'run';

export const TOOL_ICONS: Record<ToolKind, Icon[]> = {
  // Looking at the map (structure, graph, reading, searching, status): three atoms, one of each type.
  look: icon(
    `<path d='M8 3 4 12m4-9 4 9' stroke='${EDGE}'/><circle cx='8' cy='3' r='2.5' fill='${CORE}'/><circle cx='4' cy='12' r='2.5' fill='${FEATURE}'/><circle cx='12' cy='12' r='2.5' fill='${UTIL}'/>`,
  ),
  // Changing atoms (upsert, delete, restore): the feature sparkle.
  change: icon(`<path d='m8 1 2 5 5 2-5 2-2 5-2-5-5-2 5-2z' fill='${FEATURE}'/>`),
  // Running code (run_atom): the core pulse.
  run: icon(`<path d='M1 9h3l2-5 4 9 2-4h3' fill='none' stroke='${CORE}' stroke-width='2'/>`),
};

/** Which icon each tool shows; a tool missing here shows the `look` icon (tests require every tool listed). */
export const TOOL_KINDS: Readonly<Record<string, ToolKind>> = {
  get_code_structure: 'look',
  read_atoms: 'look',
  semantic_search: 'look',
  query_graph: 'look',
  get_status: 'look',
  atom_history: 'change',
  upsert_atom: 'change',
  upsert_atoms: 'change',
  delete_atom: 'change',
  rename_atom: 'change',
  run_atom: 'run',
  test_atoms: 'run',
};

export function toolIcons(name: string): Icon[] {
  return TOOL_ICONS[TOOL_KINDS[name] ?? 'look'];
}
