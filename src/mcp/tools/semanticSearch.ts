import { z } from 'zod';
import { defineTool } from '../tool.js';
import { formatAtom, formatAtomHeader } from '../format.js';
import type { AtomReader } from '../../store/reader.js';
import { typeFilter } from '../schemas.js';
import type { SearchHit } from '../../search/searchIndex.js';

export const semanticSearch = defineTool({
  name: 'semantic_search',
  title: 'Find atoms by meaning',
  description:
    'When no name is known: finds atoms by what they do ("make the character go up"), a name or code word ' +
    '("Math.hypot"), or a code fragment ("redo.length = 0"). Best first, [similarity] 0-1. ' +
    '"X, not Y" drops a sibling. detail summary: no code; context: with who uses each.',
  input: {
    query: z.string().trim().min(1).max(1000).describe('What it does, a name, a code word or fragment'),
    limit: z.number().int().min(1).max(20).optional().describe('Default 5'),
    type_filter: typeFilter,
    detail: z.enum(['full', 'summary', 'context']).optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ query, limit, type_filter, detail = 'full' }, { workspace }) {
    const { hits, semanticUnavailable, unembedded, modelStarting } = await workspace.search.search(query, { limit: limit ?? 5, type: type_filter });
    if (hits.length === 0) return `No atoms found matching: "${query}"`;
    const blocks = hits.map((hit) => formatHit(hit, detail, workspace.atoms));
    if (modelStarting) {
      blocks.unshift('// Ranked by words, names and code only: the search model is still starting (seconds after a start); the next search uses meaning too.');
    } else if (semanticUnavailable) {
      blocks.unshift(`// Ranked by words only: the embedding model is unavailable (${semanticUnavailable}).`);
    } else if (unembedded) {
      blocks.unshift(`// ${unembeddedNote(unembedded, workspace.atoms.size)}`);
    }
    return blocks.join('\n\n');
  },
});

/** Said above the results while a backlog of atoms is still being embedded. */
export function unembeddedNote(unembedded: number, total: number): string {
  const have = unembedded === 1 ? 'has' : 'have';
  return `${unembedded} of ${total} atoms ${have} no embedding yet (being computed in the background): only their words could rank them, so some may rank low or be missing. get_status shows the progress.`;
}

/**
 * `// player_jump (feature) [similarity: 0.847]`, then description, signature, dependencies and
 * code (detail context: and the atoms that depend on it; summary: no code). The number is the ranking
 * score (searchIndex.ts), so it falls from one result to the next.
 */
export function formatHit(hit: SearchHit, detail: 'full' | 'summary' | 'context', atoms: Pick<AtomReader, 'dependents'>): string {
  const similarity = hit.similarity === null ? 'n/a' : Math.max(0, hit.similarity).toFixed(3);
  const header = `${hit.atom.name} (${hit.atom.type}) [similarity: ${similarity}]`;
  if (detail === 'full') return formatAtom(hit.atom, header);
  // The contract's block with who uses each hit under `Depends on`: what a change to it reaches, without
  // a query_graph call per hit (an agent otherwise searches, reads, then asks the graph).
  if (detail === 'context') return formatAtom(hit.atom, header, atoms.dependents(hit.atom.name));
  // The same block without the code: about a tenth of the bytes for an agent that only picks what to read.
  return formatAtomHeader(hit.atom, header);
}
