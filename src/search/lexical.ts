/**
 * The full-text half of search: a BM25 index (fullText.ts, scored as MiniSearch scores) over what
 * an agent might type to name an atom: its name's words, description, port names and
 * descriptions, and the identifiers its code uses. Updated synchronously on every change, so a
 * search right after an upsert sees the new words.
 */
import type { Atom, AtomType } from '../atoms/model.js';
import { FullTextIndex, type FullTextState } from './fullText.js';
import { relatedWords } from './vocabulary.js';
import { textHash } from '../util/textHash.js';
import { normalizeTerm, splitWords, terms, withoutCode } from './words.js';

/** The indexed fields, in the order atomTexts gives their texts. */
export const FIELDS = ['words', 'description', 'ports', 'identifiers'] as const;

export interface RankedName {
  name: string;
  score: number;
}

/**
 * What the second pass reads of an atom, kept from when it was put so a query reads no code:
 * its name's stemmed words, the identifiers its code uses (lowercase), its dependencies.
 */
export interface AtomWords {
  name: PackedWords;
  code: PackedWords;
  dependencies: readonly string[];
}

/** What the second pass asks of a set of words. */
export interface WordLookup {
  has(word: string): boolean;
}

/**
 * A few dozen words kept as one string (" a b c "): a Set per atom for its code identifiers and
 * name words, with the keys to count them, took 25 MiB at 10,000 atoms; this takes about 3.
 */
export class PackedWords implements WordLookup, Iterable<string> {
  /** `packed` as `pack` gives it. */
  constructor(private readonly packed: string) {}

  /** The words a PackedWords keeps: each once, in order, none empty or with white space. */
  static distinct(words: Iterable<string>): string[] {
    return [...new Set(words)].filter((w) => w.length > 0 && !/\s/.test(w));
  }

  /** Words that are `distinct` already, as one string: one join, a flat string, where a template keeps a tree of three. */
  static join(distinct: readonly string[]): string {
    return distinct.length === 0 ? ' ' : ` ${distinct.join(' ')} `;
  }

  has(word: string): boolean {
    return word.length > 0 && !/\s/.test(word) && this.packed.includes(` ${word} `);
  }

  *[Symbol.iterator](): Iterator<string> {
    for (const w of this.packed.split(' ')) if (w.length > 0) yield w;
  }
}

/** How much a match in each field counts; the name says most about what an atom does. */
export const BOOST = { words: 3, description: 2, ports: 1.5, identifiers: 0.5 };
/** The field weights for a query written like code (rank.ts: identifier-like). */
export const CODE_BOOST = { ...BOOST, identifiers: 2 };
/** Weight of a related word (see vocabulary.ts) against a word the query itself used. */
export const RELATED_WEIGHT = 0.35;

/** Field weights, and prefix matches from 4 letters and one typo from 6 (two from 10), at lower weights. */
export const QUERY_DEFAULTS = {
  boost: BOOST,
  prefix: (term: string) => term.length >= 4,
  fuzzy: (term: string) => (term.length >= 6 ? 0.15 : false) as number | false,
  weights: { fuzzy: 0.3, prefix: 0.5 },
};

/** An atom's words as the index keeps them: packed (PackedWords.join), wrapped only when asked. */
interface KeptWords {
  name: string;
  code: string;
  dependencies: readonly string[];
}

/** What LexicalIndex.state gives and restore takes. */
export interface LexicalState {
  index: FullTextState;
  words: Array<[name: string, nameWords: string, codeWords: string]>;
  /** How many atoms use each code identifier and name word (LexicalIndex.idf). */
  frequency: { code: Array<[string, number]>; name: Array<[string, number]> };
}

export class LexicalIndex {
  /** How many atoms use each code identifier (lowercase) and each name word: rare ones say more. */
  private readonly frequency = { code: new Map<string, number>(), name: new Map<string, number>() };
  private readonly wordsOf = new Map<string, KeptWords>();
  private readonly index = fullTextIndex();

  get size(): number {
    return this.index.size;
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  /** Adds or replaces an atom. */
  put(atom: Atom): void {
    const texts = atomTexts(atom);
    this.index.put(atom.name, atom.type, texts);
    this.count(atom, texts);
  }

  /**
   * Fills this empty index with many atoms (distinct names) in two passes (FullTextIndex.load):
   * `put` each, then `finish`; only then can it be searched or changed.
   */
  load(): { put(atom: Atom): void; finish(): void } {
    if (this.wordsOf.size > 0) throw new Error('load() fills an empty index: clear it first');
    const load = this.index.load();
    return {
      put: (atom) => {
        const texts = atomTexts(atom);
        load.put(atom.name, atom.type, texts);
        this.count(atom, texts);
      },
      finish: () => load.finish(),
    };
  }

  /**
   * The index as plain data (a snapshot on disk, search/lexicalSnapshot.ts): the full-text index's
   * state and each atom's kept words, `[name, name words, code words]` (packed).
   */
  state(): LexicalState {
    const words: LexicalState['words'] = [];
    for (const [name, kept] of this.wordsOf) words.push([name, kept.name, kept.code]);
    return { index: this.index.state(), words, frequency: { code: [...this.frequency.code], name: [...this.frequency.name] } };
  }

  /**
   * Fills this empty index with a `state()`; each atom's dependencies are its own (`atom(name)`,
   * undefined for an atom the state has and the store has not: it is removed after). Throws,
   * leaving it empty, when the state does not hold together.
   */
  restore(state: LexicalState, atom: (name: string) => Atom | undefined): void {
    if (this.wordsOf.size > 0) throw new Error('restore() fills an empty index: clear it first');
    this.index.restore(state.index);
    try {
      if (state.words.length !== this.index.size) throw new Error('full-text state: kept words do not match the documents');
      for (const [name, nameWords, codeWords] of state.words) {
        if (!this.index.has(name)) throw new Error('full-text state: kept words of an atom it does not hold');
        this.wordsOf.set(name, { name: nameWords, code: codeWords, dependencies: atom(name)?.dependencies ?? [] });
      }
      // As kept, not counted again from the words: counting them was most of a restore.
      for (const [word, n] of state.frequency.code) this.frequency.code.set(word, n);
      for (const [word, n] of state.frequency.name) this.frequency.name.set(word, n);
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  /** Keeps the atom's words for the second pass, and counts them. */
  private count(atom: Atom, texts: ReturnType<typeof atomTexts>): void {
    this.uncount(atom.name);
    const name = PackedWords.distinct(terms(atom.name));
    const code = PackedWords.distinct(texts[3].toLowerCase().split(' '));
    const words: KeptWords = {
      name: PackedWords.join(name),
      code: PackedWords.join(code),
      // The atom's own list: an atom is replaced on change, never changed in place.
      dependencies: atom.dependencies,
    };
    tally(this.frequency.code, code, 1);
    tally(this.frequency.name, name, 1);
    this.wordsOf.set(atom.name, words);
  }

  /** The atom's name words, code identifiers and dependencies, as last put. */
  words(name: string): AtomWords | undefined {
    const kept = this.wordsOf.get(name);
    return kept && { name: new PackedWords(kept.name), code: new PackedWords(kept.code), dependencies: kept.dependencies };
  }

  remove(name: string): void {
    this.index.remove(name);
    this.uncount(name);
  }

  clear(): void {
    this.index.clear();
    this.frequency.code.clear();
    this.frequency.name.clear();
    this.wordsOf.clear();
  }

  /**
   * Inverse document frequency of a code identifier (any case) or a stemmed name word, highest for
   * one no atom uses: `imul` in one atom weighs far more than `Math` in most of them.
   */
  idf(kind: 'code' | 'name', word: string): number {
    const n = this.frequency[kind].get(kind === 'code' ? word.toLowerCase() : word) ?? 0;
    return Math.log(1 + this.index.size / (n + 0.5));
  }

  private uncount(name: string): void {
    const words = this.wordsOf.get(name);
    if (!words) return;
    tally(this.frequency.code, new PackedWords(words.code), -1);
    tally(this.frequency.name, new PackedWords(words.name), -1);
    this.wordsOf.delete(name);
  }

  /**
   * Best matches first; only atoms of `type` when given. With `expand`, words related to the
   * query's words (vocabulary.ts) count too, at a lower weight.
   */
  search(query: string, limit: number, type?: AtomType, expand = false): RankedName[] {
    const related = expand ? relatedWords(query) : [];
    const hits =
      related.length === 0
        ? this.index.search(query, { tag: type }, limit)
        : this.index.searchEither([{ query }, { query: related.join(' '), options: { termBoost: RELATED_WEIGHT, prefix: false, fuzzy: false } }], type, limit);
    return hits.map(named);
  }

  /**
   * The query's own words and its related words, ranked apart: the second pass (rank.ts) lets a
   * related word widen what is found without outweighing a word the query used. Related words
   * come from the plain words only: `padStart` is an API, not the words pad and start (whose
   * related words, zero and begin, pointed "toString(16) padStart" at a score counter).
   */
  searchApart(query: string, limit: number, type?: AtomType, codeLike = false): { own: RankedName[]; related: RankedName[] } {
    // A query written like code is looked for in the code as much as in the name. A word shortened
    // as agents shorten names (`pointInPoly`) meets the longer word even where stemming changed it.
    const own = this.index.search(query, codeLike ? { tag: type, boost: CODE_BOOST, typedPrefix: true } : { tag: type, typedPrefix: true }, limit);
    const words = relatedWords(withoutCode(query));
    const related = words.length === 0 ? [] : this.index.search(words.join(' '), { tag: type, prefix: false, fuzzy: false }, limit);
    return { own: own.map(named), related: related.map(named) };
  }
}

function named(hit: { id: string; score: number }): RankedName {
  return { name: hit.id, score: hit.score };
}

/** Counts each of `words` once more (`by` 1) or once less (-1) in `counts`; a count of 0 leaves the map. */
function tally(counts: Map<string, number>, words: Iterable<string>, by: 1 | -1): void {
  for (const k of words) {
    const n = (counts.get(k) ?? 0) + by;
    if (n <= 0) counts.delete(k);
    else counts.set(k, n);
  }
}

/** The full-text index over FIELDS, with the query defaults every search starts from. */
export function fullTextIndex(): FullTextIndex {
  return new FullTextIndex({ fields: FIELDS, tokenize: splitWords, processTerm: normalizeTerm, defaults: QUERY_DEFAULTS });
}

/** An atom that `indexingSignature` indexes: camelCase, snake_case, an acronym, stems, ports, strings and comments. */
const PROBE: Atom = {
  name: 'parse_csv_rows',
  type: 'util',
  description: 'Splits comma-separated values into rows, handling quoted fields; returns how many were found.',
  inputs: [{ name: 'text', type: 'string', description: 'the CSV text' }],
  outputs: [{ name: 'rows', type: 'number', description: 'rows found' }],
  code: "function parse_csv_rows(text) {\n  const lineBreak = /\\r?\\n/; // countRows\n  return String(text).split(lineBreak).filter((l) => l.length > 0 && l !== 'EOF_MARKER').length;\n}\n",
  dependencies: [],
  version: 1,
  created_at: '',
  updated_at: '',
};
let signature: string | undefined;

/**
 * What indexing makes of a fixed atom, hashed: a snapshot of the index (lexicalSnapshot.ts) made by
 * code that splits, stems or fields words otherwise does not match it, and is not taken.
 */
export function indexingSignature(): string {
  signature ??= textHash(
    JSON.stringify([FIELDS, terms(PROBE.name), atomTexts(PROBE).map((text) => splitWords(text).map((token) => normalizeTerm(token)))]),
  );
  return signature;
}

/** The texts of FIELDS, in their order. */
export function atomTexts(atom: Atom): [words: string, description: string, ports: string, identifiers: string] {
  const ports = [...atom.inputs, ...atom.outputs].map((p) => `${p.name} ${p.description ?? ''}`).join(' ');
  return [splitWords(atom.name).join(' '), withAcronyms(atom.description ?? ''), ports, identifiersOf(atom)];
}

/**
 * A description's own text plus the acronyms of its hyphenated phrases, so "BFS" finds
 * "breadth-first search", "CSV" finds "comma-separated values".
 */
function withAcronyms(description: string): string {
  const acronyms = [...description.matchAll(/\b([A-Za-z]+(?:-[A-Za-z]+)+)(?:\s+([A-Za-z]+))?/g)].flatMap((m) => {
    const parts = m[1]!.split('-');
    const short = parts.map((p) => p[0]).join('');
    return m[2] ? [short, short + m[2][0]] : [short];
  });
  return acronyms.length === 0 ? description : `${description} ${acronyms.join(' ').toLowerCase()}`;
}

/**
 * Distinct identifier-like words of the code, strings and comments included (`'high_score'`
 * says as much as a variable name), keywords and the atom's own name left out. A regular
 * expression rather than a JavaScript tokenizer: this runs for every atom when a workspace's
 * index is built, and 10,000 atoms must not take seconds.
 */
function identifiersOf(atom: Atom): string {
  const seen = new Set<string>();
  // match() gives the words themselves; matchAll an object per match.
  for (const word of atom.code.match(IDENTIFIER) ?? []) {
    if (word !== atom.name && !JS_KEYWORDS.has(word)) seen.add(word);
  }
  return [...seen].join(' ');
}

const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

const JS_KEYWORDS = new Set(
  ('break case catch class const continue debugger default delete do else export extends false finally for function ' +
    'if import in instanceof let new null return super switch this throw true try typeof undefined var void while with yield ' +
    'async await of static get set').split(' '),
);
