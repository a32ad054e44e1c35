/**
 * A BM25 full-text index over a few text fields, scored exactly as MiniSearch 7 scores (BM25+ with
 * k = 1.2, b = 0.7, d = 0.5; prefix and fuzzy expansion of query terms; OR combination; a
 * document's score times the number of query terms it matched), and kept small.
 *
 * MiniSearch keeps a Map per term and field and a Map entry per posting: about 75 bytes a posting
 * (500,000 postings at 10,000 atoms), and most of the full-text build's time. Here a posting is
 * two integers in a typed array (document, frequency), a document lists its terms by number, and
 * the term dictionary is MiniSearch's own radix tree (SearchableMap), so prefix and fuzzy matches
 * are found, and ties broken, in the same order. test/unit/search-fulltext.test.ts holds the two
 * side by side.
 *
 * One difference, on purpose: a replaced or removed document leaves the postings at once. MiniSearch
 * marks it discarded and counts its postings in document frequencies until a vacuum.
 */
import SearchableMap from 'minisearch/SearchableMap';

export interface FullTextOptions {
  /** The fields in the order they are scored; a document gives one text per field. */
  fields: readonly string[];
  /** Splits a text into tokens (a field's length is its number of distinct tokens). */
  tokenize: (text: string) => string[];
  /** The indexed form of a token, or null to leave it out. */
  processTerm: (token: string) => string | null;
  /** What a query uses unless it says otherwise. */
  defaults: QueryOptions;
}

export interface QueryOptions {
  /** Per field; 1 for a field not named. */
  boost?: Readonly<Record<string, number>>;
  /** Whether a query term also matches longer terms it begins. */
  prefix?: boolean | ((term: string) => boolean);
  /** Largest edit distance, as a fraction of the term's length (< 1) or a count; false: none. */
  fuzzy?: false | number | ((term: string) => number | false);
  /** Weights of prefix and fuzzy matches against an exact one. */
  weights?: { fuzzy: number; prefix: number };
  /** A weight per query term. */
  termBoost?: number;
  /** Only documents with this tag (search; searchEither takes it apart). */
  tag?: string;
}

export interface FullTextHit {
  id: string;
  score: number;
}

/**
 * A term's postings, per field: [used, document, frequency, document, frequency, ...], ordered by
 * document; `used` counts the integers after it, the rest is room to grow.
 */
interface Term {
  readonly key: string;
  readonly id: number;
  readonly lists: Array<Int32Array | undefined>;
}

interface Doc {
  readonly id: string;
  readonly tag: string;
  /** Per field: its number of distinct tokens. */
  readonly lengths: Int32Array;
  /** The ids of the terms it is listed under, to take it out again. */
  terms: Int32Array;
}

interface Partial {
  score: number;
  /** The query terms it matched (for the quality factor). */
  terms: string[];
}

const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const MAX_FUZZY = 6;
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };

export class FullTextIndex {
  private readonly dictionary = new SearchableMap<Term>();
  /** Terms by id; ids of removed terms are given out again. */
  private readonly termsById: Array<Term | undefined> = [];
  private readonly freeTermIds: number[] = [];
  private readonly docs = new Map<number, Doc>();
  private readonly shortIds = new Map<string, number>();
  private averageLengths: number[] = [];
  private nextId = 0;

  constructor(private readonly options: FullTextOptions) {}

  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.shortIds.has(id);
  }

  /** Adds a document, or replaces the one with the same id. */
  put(id: string, tag: string, texts: readonly string[]): void {
    this.remove(id);
    const { fields, tokenize, processTerm } = this.options;
    const shortId = this.nextId++;
    this.shortIds.set(id, shortId);
    const doc: Doc = { id, tag, lengths: new Int32Array(fields.length), terms: EMPTY };
    this.docs.set(shortId, doc);
    const termIds: number[] = [];
    for (let field = 0; field < fields.length; field++) {
      const tokens = tokenize(texts[field] ?? '');
      const length = new Set(tokens).size;
      doc.lengths[field] = length;
      // MiniSearch's running average, step for step, so scores match to the last bit.
      const count = this.docs.size - 1;
      this.averageLengths[field] = ((this.averageLengths[field] || 0) * count + length) / (count + 1);
      for (const token of tokens) {
        const key = processTerm(token);
        if (key) this.addPosting(termIds, shortId, field, key);
      }
    }
    doc.terms = Int32Array.from(termIds);
  }

  remove(id: string): void {
    const shortId = this.shortIds.get(id);
    if (shortId === undefined) return;
    const doc = this.docs.get(shortId)!;
    const count = this.docs.size;
    doc.lengths.forEach((length, field) => {
      this.averageLengths[field] = count === 1 ? 0 : (this.averageLengths[field]! * count - length) / (count - 1);
    });
    for (const termId of doc.terms) {
      const term = this.termsById[termId]!;
      let empty = true;
      for (let field = 0; field < term.lists.length; field++) {
        const list = term.lists[field];
        if (!list) continue;
        const at = positionOf(list, shortId);
        if (at > 0) {
          list.copyWithin(at, at + 2, list[0]! + 1);
          list[0]! -= 2;
        }
        if (list[0] === 0) term.lists[field] = undefined;
        else empty = false;
      }
      if (empty) {
        this.dictionary.delete(term.key);
        this.termsById[termId] = undefined;
        this.freeTermIds.push(termId);
      }
    }
    this.docs.delete(shortId);
    this.shortIds.delete(id);
  }

  /** Gives back the room lists keep to grow (after a bulk load: about a third of their size). */
  trim(): void {
    for (const term of this.termsById) {
      if (!term) continue;
      term.lists.forEach((list, field) => {
        if (list && list.length > list[0]! + 1) term.lists[field] = list.slice(0, list[0]! + 1);
      });
    }
  }

  clear(): void {
    this.dictionary.clear();
    this.termsById.length = 0;
    this.freeTermIds.length = 0;
    this.docs.clear();
    this.shortIds.clear();
    this.averageLengths = [];
  }

  /** Best first (ties in the order MiniSearch gives them); every matching document. */
  search(query: string, options: QueryOptions = {}): FullTextHit[] {
    return this.searchEither([{ query, options }], options.tag);
  }

  /**
   * Documents matching any of the queries, each with its own options (MiniSearch's nested query
   * combined with OR): a document's scores add up.
   */
  searchEither(queries: ReadonlyArray<{ query: string; options?: QueryOptions }>, tag?: string): FullTextHit[] {
    let combined: Map<number, Partial> | undefined;
    for (const { query, options } of queries) {
      const found = this.collect(query, { ...this.options.defaults, ...options });
      combined = combined ? orInto(combined, found) : found;
    }
    const hits: FullTextHit[] = [];
    for (const [shortId, { score, terms }] of combined ?? []) {
      const doc = this.docs.get(shortId)!;
      if (tag !== undefined && doc.tag !== tag) continue;
      hits.push({ id: doc.id, score: score * (terms.length || 1) });
    }
    return hits.sort((a, b) => b.score - a.score);
  }

  /** Each query term's matches, combined with OR. */
  private collect(query: string, o: QueryOptions): Map<number, Partial> {
    const boosts = this.options.fields.map((f) => (o.boost && Object.hasOwn(o.boost, f) ? o.boost[f] : 0) || 1);
    const weights = { ...DEFAULT_WEIGHTS, ...o.weights };
    let combined: Map<number, Partial> | undefined;
    for (const token of this.options.tokenize(query)) {
      const key = this.options.processTerm(token);
      if (!key) continue;
      const found = this.termResults(key, o, boosts, weights);
      combined = combined ? orInto(combined, found) : found;
    }
    return combined ?? new Map();
  }

  /** One query term: its exact match, then longer terms it begins, then terms a few edits away. */
  private termResults(key: string, o: QueryOptions, boosts: number[], weights: { fuzzy: number; prefix: number }): Map<number, Partial> {
    const termBoost = o.termBoost ?? 1;
    const results = new Map<number, Partial>();
    this.score(key, this.dictionary.get(key), 1, termBoost, boosts, results);
    const prefix = typeof o.prefix === 'function' ? o.prefix(key) : o.prefix === true;
    const fuzzy = typeof o.fuzzy === 'function' ? o.fuzzy(key) : (o.fuzzy ?? false);
    let fuzzyMatches: Map<string, [Term, number]> | undefined;
    if (fuzzy) {
      const maxDistance = fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(key.length * fuzzy)) : fuzzy;
      if (maxDistance) fuzzyMatches = this.dictionary.fuzzyGet(key, maxDistance);
    }
    if (prefix) {
      for (const [longer, term] of this.dictionary.atPrefix(key)) {
        const distance = longer.length - key.length;
        if (!distance) continue;
        fuzzyMatches?.delete(longer); // scored as a prefix match
        this.score(key, term, (weights.prefix * longer.length) / (longer.length + 0.3 * distance), termBoost, boosts, results);
      }
    }
    for (const [near, [term, distance]] of fuzzyMatches ?? []) {
      if (!distance) continue;
      this.score(key, term, (weights.fuzzy * near.length) / (near.length + distance), termBoost, boosts, results);
    }
    return results;
  }

  private score(queryTerm: string, term: Term | undefined, weight: number, termBoost: number, boosts: number[], results: Map<number, Partial>): void {
    if (!term) return;
    const total = this.docs.size;
    for (let field = 0; field < boosts.length; field++) {
      const list = term.lists[field];
      if (!list) continue;
      const end = list[0]! + 1;
      const matching = list[0]! / 2;
      const average = this.averageLengths[field]!;
      const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
      const factor = weight * termBoost * boosts[field]!;
      for (let i = 1; i < end; i += 2) {
        const shortId = list[i]!;
        const frequency = list[i + 1]!;
        const length = this.docs.get(shortId)!.lengths[field]!;
        const raw = idf * (BM25.d + (frequency * (BM25.k + 1)) / (frequency + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
        const weighted = factor * raw;
        const result = results.get(shortId);
        if (result) {
          result.score += weighted;
          if (!result.terms.includes(queryTerm)) result.terms.push(queryTerm);
        } else {
          results.set(shortId, { score: weighted, terms: [queryTerm] });
        }
      }
    }
  }

  private addPosting(termIds: number[], shortId: number, field: number, key: string): void {
    let term = this.dictionary.get(key);
    if (!term) {
      term = { key, id: this.freeTermIds.pop() ?? this.termsById.length, lists: [] };
      this.termsById[term.id] = term;
      this.dictionary.set(key, term);
    }
    let list = term.lists[field] ?? new Int32Array(3);
    const used = list[0]!;
    // This document has the highest short id yet, so its posting, if any, is the last one.
    if (used > 0 && list[used - 1] === shortId) {
      list[used]!++;
      return;
    }
    if (used + 3 > list.length) {
      const grown = new Int32Array(Math.max(3, used * 2 + 1));
      grown.set(list.subarray(0, used + 1));
      list = grown;
    }
    list[used + 1] = shortId;
    list[used + 2] = 1;
    list[0] = used + 2;
    term.lists[field] = list;
    if (!termIds.includes(term.id)) termIds.push(term.id);
  }
}

const EMPTY = new Int32Array(0);

/** MiniSearch's OR: scores add up, matched query terms are united, new documents go last. */
function orInto(into: Map<number, Partial>, from: Map<number, Partial>): Map<number, Partial> {
  for (const [shortId, partial] of from) {
    const existing = into.get(shortId);
    if (!existing) {
      into.set(shortId, partial);
      continue;
    }
    existing.score = existing.score + partial.score;
    for (const t of partial.terms) if (!existing.terms.includes(t)) existing.terms.push(t);
  }
  return into;
}

/** Where `shortId`'s posting starts in a list (see Term), or -1. */
function positionOf(list: Int32Array, shortId: number): number {
  let low = 0;
  let high = list[0]! / 2 - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = list[1 + mid * 2]!;
    if (at === shortId) return 1 + mid * 2;
    if (at < shortId) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
