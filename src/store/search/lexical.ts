/**
 * The full-text half of search: a MiniSearch (BM25) index over what an agent might type to
 * name an atom: its name's words, description, port names and descriptions, and the
 * identifiers its code uses. Updated synchronously on every change, so a search right after
 * an upsert sees the new words.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { Atom, AtomType } from '../../atoms/model.js';
import { relatedWords } from './vocabulary.js';
import { normalizeTerm, splitWords } from './words.js';

interface LexicalDoc {
  name: string;
  type: AtomType;
  words: string;
  description: string;
  ports: string;
  identifiers: string;
}

export interface RankedName {
  name: string;
  score: number;
}

/** How much a match in each field counts; the name says most about what an atom does. */
const BOOST = { words: 3, description: 2, ports: 1.5, identifiers: 0.5 };
/** Weight of a related word (see vocabulary.ts) against a word the query itself used. */
const RELATED_WEIGHT = 0.35;

export class LexicalIndex {
  private readonly index = new MiniSearch<LexicalDoc>({
    idField: 'name',
    fields: ['words', 'description', 'ports', 'identifiers'],
    storeFields: ['type'],
    tokenize: splitWords,
    processTerm: (term) => normalizeTerm(term),
    searchOptions: {
      boost: BOOST,
      combineWith: 'OR',
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
      weights: { fuzzy: 0.3, prefix: 0.5 },
    },
  });

  get size(): number {
    return this.index.documentCount;
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  /** Adds or replaces an atom. */
  put(atom: Atom): void {
    const doc = toDoc(atom);
    if (this.index.has(atom.name)) this.index.replace(doc);
    else this.index.add(doc);
  }

  remove(name: string): void {
    if (this.index.has(name)) this.index.discard(name);
  }

  clear(): void {
    this.index.removeAll();
  }

  /**
   * Best matches first; only atoms of `type` when given. With `expand`, words related to the
   * query's words (vocabulary.ts) count too, at a lower weight.
   */
  search(query: string, limit: number, type?: AtomType, expand = false): RankedName[] {
    const filter: SearchOptions = type ? { filter: (r) => r.type === type } : {};
    const related = expand ? relatedWords(query) : [];
    const hits =
      related.length === 0
        ? this.index.search(query, filter)
        : this.index.search(
            {
              combineWith: 'OR',
              queries: [query, { queries: [related.join(' ')], boostTerm: () => RELATED_WEIGHT, prefix: false, fuzzy: false }],
            },
            filter,
          );
    return hits.slice(0, limit).map((h) => ({ name: String(h.id), score: h.score }));
  }
}

function toDoc(atom: Atom): LexicalDoc {
  const ports = [...atom.inputs, ...atom.outputs].map((p) => `${p.name} ${p.description ?? ''}`).join(' ');
  return {
    name: atom.name,
    type: atom.type,
    words: splitWords(atom.name).join(' '),
    description: atom.description ?? '',
    ports,
    identifiers: identifiersOf(atom),
  };
}

/**
 * Distinct identifier-like words of the code, strings and comments included (`'high_score'`
 * says as much as a variable name), keywords and the atom's own name left out. A regular
 * expression rather than a JavaScript tokenizer: this runs for every atom when a workspace's
 * index is built, and 10,000 atoms must not take seconds.
 */
function identifiersOf(atom: Atom): string {
  const seen = new Set<string>();
  for (const match of atom.code.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const word = match[0];
    if (word !== atom.name && !JS_KEYWORDS.has(word)) seen.add(word);
  }
  return [...seen].join(' ');
}

const JS_KEYWORDS = new Set(
  ('break case catch class const continue debugger default delete do else export extends false finally for function ' +
    'if import in instanceof let new null return super switch this throw true try typeof undefined var void while with yield ' +
    'async await of static get set').split(' '),
);
