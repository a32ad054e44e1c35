/**
 * A BM25 full-text index over a few text fields, scored exactly as MiniSearch 7 scores (BM25+ with
 * k = 1.2, b = 0.7, d = 0.5; prefix and fuzzy expansion of query terms; OR combination; a
 * document's score times the number of query terms it matched), and kept small.
 *
 * MiniSearch keeps a Map per term and field and a Map entry per posting: about 75 bytes a posting
 * (500,000 postings at 10,000 atoms), and most of the full-text build's time. Here a posting is
 * two integers (document, frequency), and every posting list lives in one Int32Array (Postings):
 * a typed array of its own per list cost about 190 bytes of objects for a few bytes of postings,
 * 36 MiB at 50,000 atoms. A document lists its terms by number, and the term dictionary is
 * MiniSearch's own radix tree (SearchableMap), so prefix and fuzzy matches are found, and ties
 * broken, in the same order. test/unit/search-fulltext.test.ts holds the two side by side.
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

interface Doc {
  readonly id: string;
  readonly tag: string;
  /** Per field: its number of distinct tokens. */
  readonly lengths: number[];
  /** The ids of the terms it is listed under, to take it out again. */
  terms: number[];
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
  /** Term -> term id. */
  private readonly dictionary = new SearchableMap<number>();
  /** Terms by id; ids of removed terms are given out again. */
  private readonly termKeys: Array<string | undefined> = [];
  private readonly freeTermIds: number[] = [];
  /** Per term id and field (`id * fields + field`): where its list starts in `postings`, plus one; 0: none. */
  private lists: Int32Array<ArrayBuffer> = new Int32Array(256);
  private readonly postings = new Postings();
  private readonly docs = new Map<number, Doc>();
  private readonly shortIds = new Map<string, number>();
  private averageLengths: number[] = [];
  private nextId = 0;

  constructor(private readonly options: FullTextOptions) {}

  get size(): number {
    return this.docs.size;
  }

  /** Bytes the posting lists take, room to grow and holes included. */
  get postingBytes(): number {
    return this.postings.data.byteLength;
  }

  has(id: string): boolean {
    return this.shortIds.has(id);
  }

  /** Adds a document, or replaces the one with the same id. */
  put(id: string, tag: string, texts: readonly string[]): void {
    this.take(id);
    const { fields, tokenize, processTerm } = this.options;
    const shortId = this.nextId++;
    this.shortIds.set(id, shortId);
    const doc: Doc = { id, tag, lengths: new Array<number>(fields.length).fill(0), terms: [] };
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
    doc.terms = termIds.slice();
    this.compactIfWasteful();
  }

  remove(id: string): void {
    this.take(id);
    this.compactIfWasteful();
  }

  private take(id: string): void {
    const shortId = this.shortIds.get(id);
    if (shortId === undefined) return;
    const doc = this.docs.get(shortId)!;
    const count = this.docs.size;
    doc.lengths.forEach((length, field) => {
      this.averageLengths[field] = count === 1 ? 0 : (this.averageLengths[field]! * count - length) / (count - 1);
    });
    const fields = this.options.fields.length;
    for (const termId of doc.terms) {
      let empty = true;
      for (let field = 0; field < fields; field++) {
        const slot = termId * fields + field;
        const at = this.lists[slot]! - 1;
        if (at < 0) continue;
        if (this.postings.remove(at, shortId) === 0) {
          this.postings.release(at);
          this.lists[slot] = 0;
        } else empty = false;
      }
      if (empty) {
        this.dictionary.delete(this.termKeys[termId]!);
        this.termKeys[termId] = undefined;
        this.freeTermIds.push(termId);
      }
    }
    this.docs.delete(shortId);
    this.shortIds.delete(id);
  }

  /** Gives back the room lists keep to grow (after a bulk load: about a third of their size). */
  trim(): void {
    this.lists = this.postings.compact(this.lists, true);
  }

  /** Closes the holes that lists which moved or emptied left, once they are as large as what is in use. */
  private compactIfWasteful(): void {
    if (this.postings.wasteful()) this.lists = this.postings.compact(this.lists, false);
  }

  clear(): void {
    this.dictionary.clear();
    this.termKeys.length = 0;
    this.lists = new Int32Array(256);
    this.postings.clear();
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
    let fuzzyMatches: Map<string, [number, number]> | undefined;
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

  private score(queryTerm: string, termId: number | undefined, weight: number, termBoost: number, boosts: number[], results: Map<number, Partial>): void {
    if (termId === undefined) return;
    const total = this.docs.size;
    const data = this.postings.data;
    for (let field = 0; field < boosts.length; field++) {
      const at = this.lists[termId * boosts.length + field]! - 1;
      if (at < 0) continue;
      const used = data[at + 1]!;
      const matching = used / 2;
      const average = this.averageLengths[field]!;
      const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
      const factor = weight * termBoost * boosts[field]!;
      for (let i = at + HEAD, end = at + HEAD + used; i < end; i += 2) {
        const shortId = data[i]!;
        const frequency = data[i + 1]!;
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
    const fields = this.options.fields.length;
    let termId = this.dictionary.get(key);
    if (termId === undefined) {
      termId = this.freeTermIds.pop() ?? this.termKeys.length;
      this.termKeys[termId] = key;
      this.dictionary.set(key, termId);
      if ((termId + 1) * fields > this.lists.length) {
        const grown = new Int32Array(Math.max((termId + 1) * fields, this.lists.length * 2));
        grown.set(this.lists);
        this.lists = grown;
      }
    }
    const slot = termId * fields + field;
    let at = this.lists[slot]! - 1;
    if (at < 0) {
      at = this.postings.allocate(2);
      this.lists[slot] = at + 1;
    }
    const moved = this.postings.add(at, shortId);
    if (moved === undefined) return; // this document was in the list: its frequency went up
    this.lists[slot] = moved + 1;
    if (!termIds.includes(termId)) termIds.push(termId);
  }
}

/** A list's head: [capacity, used], then `used` integers of postings (document, frequency). */
const HEAD = 2;
/** Holes worth closing: this many integers, and as many as the lists in use hold. */
const MIN_WASTE = 4096;

/**
 * Every posting list in one Int32Array. A list is a block [capacity, used, document, frequency,
 * ...] at some offset, its postings ordered by document (short ids only grow). A list that
 * outgrows its block moves to one twice the size at the end; the hole it leaves, and the block of
 * a list that empties, count as waste until `compact` copies the lists in use, back to back, into
 * a fresh array.
 */
class Postings {
  data = new Int32Array(4096);
  private end = 0;
  private waste = 0;

  /** A block for `capacity` integers of postings; where it starts. */
  allocate(capacity: number): number {
    const size = HEAD + capacity;
    if (this.end + size > this.data.length) {
      const grown = new Int32Array(Math.max(this.end + size, Math.ceil(this.data.length * 1.5)));
      grown.set(this.data.subarray(0, this.end));
      this.data = grown;
    }
    const at = this.end;
    this.end += size;
    this.data[at] = capacity;
    this.data[at + 1] = 0;
    return at;
  }

  /** The block at `at` is no longer used. */
  release(at: number): void {
    this.waste += HEAD + this.data[at]!;
  }

  /**
   * Adds a posting of `shortId` (the highest document yet) to the list at `at`: its frequency
   * goes up when the document is the list's last one already (undefined), else a posting is
   * appended, moving the list to a larger block when full; returns where the list is then.
   */
  add(at: number, shortId: number): number | undefined {
    const used = this.data[at + 1]!;
    if (used > 0 && this.data[at + HEAD + used - 2] === shortId) {
      this.data[at + HEAD + used - 1]!++;
      return undefined;
    }
    if (used + 2 > this.data[at]!) {
      const moved = this.allocate(Math.max(2, used * 2));
      this.data.copyWithin(moved + HEAD, at + HEAD, at + HEAD + used);
      this.release(at);
      at = moved;
    }
    this.data[at + HEAD + used] = shortId;
    this.data[at + HEAD + used + 1] = 1;
    this.data[at + 1] = used + 2;
    return at;
  }

  /** Takes `shortId`'s posting out of the list at `at`; the integers left in use. */
  remove(at: number, shortId: number): number {
    const used = this.data[at + 1]!;
    let low = 0;
    let high = used / 2 - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const found = this.data[at + HEAD + mid * 2]!;
      if (found === shortId) {
        const from = at + HEAD + mid * 2;
        this.data.copyWithin(from, from + 2, at + HEAD + used);
        this.data[at + 1] = used - 2;
        return used - 2;
      }
      if (found < shortId) low = mid + 1;
      else high = mid - 1;
    }
    return used;
  }

  wasteful(): boolean {
    return this.waste >= MIN_WASTE && this.waste * 2 >= this.end;
  }

  /**
   * Copies the lists in use (`lists`: where each starts, plus one; 0: none) into a fresh array,
   * back to back; `tight`: with no room to grow (after a bulk load), else with their capacity.
   * Returns `lists` with the new places.
   */
  compact(lists: Int32Array<ArrayBuffer>, tight: boolean): Int32Array<ArrayBuffer> {
    let size = 0;
    for (const entry of lists) if (entry > 0) size += HEAD + (tight ? this.data[entry] : this.data[entry - 1])!;
    const data = new Int32Array(Math.max(size, 16));
    let end = 0;
    for (let slot = 0; slot < lists.length; slot++) {
      const at = lists[slot]! - 1;
      if (at < 0) continue;
      const used = this.data[at + 1]!;
      const capacity = tight ? used : this.data[at]!;
      data[end] = capacity;
      data.set(this.data.subarray(at + 1, at + HEAD + used), end + 1);
      lists[slot] = end + 1;
      end += HEAD + capacity;
    }
    this.data = data;
    this.end = end;
    this.waste = 0;
    return lists;
  }

  clear(): void {
    this.data = new Int32Array(4096);
    this.end = 0;
    this.waste = 0;
  }
}

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
