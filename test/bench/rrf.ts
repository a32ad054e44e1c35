/**
 * Round 0's ranking, reciprocal rank fusion of the words' and the meaning's rankings, which the
 * bench times beside the shipped second pass (rank.ts). It lives here, not in the product: it is
 * composed from the index's words-only and meaning-only modes, fused as round 0 fused them, the
 * atom the query names pinned first.
 */
import type { Atom, AtomType } from '../../src/atoms/model.js';
import { reciprocalRankFusion } from '../../src/search/fusion.js';
import type { SearchIndex, SearchResult } from '../../src/search/searchIndex.js';
import type { SearchStore } from '../../src/search/searchStore.js';
import { asAtomName, terms } from '../../src/search/words.js';

/** As round 0: the words' ranking counts 1.5 times the meaning's, 50 candidates from each. */
const LEXICAL_WEIGHT = 1.5;
const CANDIDATES = 50;

/**
 * Atoms the query names: 2 for the exact name ("math_clamp", "math clamp", "mathClamp"),
 * 1 when every query word is a word of the name ("clamp" -> math_clamp).
 */
function pinnedNames(source: Pick<SearchStore, 'get'>, query: string, candidates: readonly string[], type: AtomType | undefined): Map<string, number> {
  const pins = new Map<string, number>();
  const ofType = (atom: Atom | undefined): atom is Atom => atom !== undefined && (!type || atom.type === type);
  const exact = source.get(asAtomName(query));
  if (ofType(exact)) pins.set(exact.name, 2);
  const words = terms(query);
  if (words.length === 0) return pins;
  for (const name of candidates) {
    if (pins.has(name)) continue;
    const nameWords = new Set(terms(name));
    if (words.every((w) => nameWords.has(w))) pins.set(name, 1);
  }
  return pins;
}

/**
 * Round 0's search over `index` (whose atoms `source` holds): best matches first, at most `limit`
 * (default 5), cosine ≥ `threshold` (default 0.3) unless the query's words found or name the atom.
 * An atom only the words found has no similarity here (round 0 looked its cosine up for display).
 */
export async function searchRrf(
  index: SearchIndex,
  source: Pick<SearchStore, 'get'>,
  query: string,
  options: { limit?: number; type?: AtomType; threshold?: number; expand?: boolean } = {},
): Promise<SearchResult> {
  const { limit = 5, type, threshold = 0.3, expand } = options;
  const text = query.trim();
  const words = await index.search(text, { mode: 'lexical', limit: CANDIDATES, type, expand });
  const meaning = await index.search(text, { mode: 'semantic', limit: CANDIDATES, type, threshold: -1 });
  const lexicalRanking = words.hits.map((h) => h.atom.name);
  const semanticRanking = meaning.semanticUnavailable ? [] : meaning.hits.map((h) => h.atom.name);
  const similarity = new Map(meaning.hits.map((h) => [h.atom.name, h.cosine] as const));
  const foundByWords = new Set(lexicalRanking);
  const pins = pinnedNames(source, text, lexicalRanking, type);

  const fused = reciprocalRankFusion([
    { names: lexicalRanking, weight: LEXICAL_WEIGHT },
    { names: semanticRanking, weight: 1 },
  ]);
  for (const name of pins.keys()) if (!fused.has(name)) fused.set(name, 0);
  const ranked = [...fused.entries()]
    .filter(([name]) => source.get(name) !== undefined)
    .sort((a, b) => (pins.get(b[0]) ?? 0) - (pins.get(a[0]) ?? 0) || b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name]) => name);

  const hits: SearchResult['hits'] = [];
  for (const name of ranked) {
    if (hits.length >= limit) break;
    const sim = similarity.get(name) ?? null;
    const pinned = pins.has(name);
    if (!pinned && !foundByWords.has(name) && sim !== null && sim < threshold) continue;
    hits.push({ atom: source.get(name)!, similarity: sim, cosine: sim, pinned });
  }
  if (meaning.semanticUnavailable) return { hits, semanticUnavailable: meaning.semanticUnavailable };
  return meaning.unembedded ? { hits, unembedded: meaning.unembedded } : { hits };
}
