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
import { releaseBuffer } from '../util/release.js';

/** MiniSearch's radix tree node: edges to nodes below, and '' to the value (a term id) of a key that ends here. */
type RadixTree = SearchableMap<number>['_tree'];

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
  /**
   * With prefix matching, also the longer terms that begin with a token as typed where its indexed
   * form does not begin the token: stemming makes `poly` `poli`, which `polygon` does not begin.
   * MiniSearch has no such option (off by default).
   */
  typedPrefix?: boolean;
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
  /** The ids of the terms it is listed under (packIds), to take it out again. */
  terms: string;
  /** Its place in the scoring arrays (Scores): dense, given out again after a removal. */
  readonly slot: number;
}

const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const MAX_FUZZY = 6;
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 };

export class FullTextIndex {
  /** Term -> term id. */
  private dictionary = new SearchableMap<number>();
  /** Terms by id; ids of removed terms are given out again. */
  private readonly termKeys: Array<string | undefined> = [];
  private readonly freeTermIds: number[] = [];
  /** Per term id: the short id plus one of the last document that listed it (addDocument). */
  private termStamps: Int32Array<ArrayBuffer> = new Int32Array(256);
  /** Per term id and field (`id * fields + field`): where its list starts in `postings`, plus one; 0: none. */
  private lists: Int32Array<ArrayBuffer> = new Int32Array(256);
  private readonly postings = new Postings();
  /**
   * Documents by short id. Short ids only grow, so a posting list holds documents in the order
   * they were added (MiniSearch's order, which ties keep) and sorted (`Postings.remove` searches
   * it); the scoring arrays are indexed by the dense `Doc.slot` instead.
   */
  private readonly docs = new Map<number, Doc>();
  private readonly shortIds = new Map<string, number>();
  private averageLengths: number[] = [];
  private nextId = 0;
  /** Documents by slot (Doc.slot), and the slots of removed ones, to give out again. */
  private readonly bySlot: Array<Doc | undefined> = [];
  /**
   * Per slot and field (`slot * fields + field`): the document's number of distinct tokens in the
   * field. An array per document took 4.6 MiB at 50,000 atoms; this takes 0.8.
   */
  private fieldLengths = new Int32Array(256);
  private readonly freeSlots: number[] = [];
  /** A search's running scores, kept between searches (a search allocates no object per match). */
  private readonly scores = new Scores();
  /** The load in progress (`load`), if any: lists then hold counts, and nothing may be read. */
  private loading: FullTextLoad | undefined;
  /**
   * While loading, the term ids also by a hash map: the radix tree's exact lookup walks and slices
   * its keys, a tenth of a 10,000-atom build; dropped when the load finishes.
   */
  private loadingTermIds: Map<string, number> | undefined;

  constructor(private readonly options: FullTextOptions) {}

  get size(): number {
    return this.docs.size;
  }

  /** Bytes the posting lists take, room to grow and holes included. */
  get postingBytes(): number {
    return this.postings.data.byteLength;
  }

  /** The bytes of the postings array up to the end of its last list (the rest is room to grow). */
  get postingBytesLaid(): number {
    return this.postings.laid * 4;
  }

  has(id: string): boolean {
    return this.shortIds.has(id);
  }

  /** Adds a document, or replaces the one with the same id. */
  put(id: string, tag: string, texts: readonly string[]): void {
    this.notLoading();
    this.take(id);
    const shortId = this.nextId;
    this.addDocument(id, tag, texts, (slot) => this.addPosting(slot, shortId));
    this.compactIfWasteful();
  }

  /**
   * Fills this empty index with many documents, in two passes: `put` tokenizes each and counts
   * its postings; `finish` lays every list out at its exact size and writes the postings, and
   * only then can the index be searched or changed. Putting them one by one grows each list by
   * doubling and the one array of lists by half again, leaving garbage four times the postings
   * (170 MiB for 20 at 50,000 atoms) until a collection. The documents must have distinct ids;
   * `clear` abandons a load.
   */
  load(): FullTextLoad {
    if (this.loading || this.docs.size > 0) throw new Error('load() fills an empty index: clear it first');
    const load: FullTextLoad = {
      put: (id, tag, texts) => {
        if (this.loading !== load) throw new Error('this load was abandoned (the index was cleared)');
        if (this.shortIds.has(id)) throw new Error(`"${id}" is loaded already`);
        const shortId = this.nextId;
        // The document's frequency per list, in arrays kept across documents (a Map per document
        // was an eighth of a build): `touched` in the order first seen, zeroed again after.
        this.addDocument(id, tag, texts, (slot) => {
          frequencies = withRoom(frequencies, slot + 1);
          if (frequencies[slot]!++ > 0) return false;
          touched.push(slot);
          return true;
        });
        spool.push(shortId);
        spool.push(touched.length);
        for (const slot of touched) {
          spool.push(slot);
          spool.push(frequencies[slot]!);
          frequencies[slot] = 0;
          this.lists[slot]!++; // while loading, a list's number of postings
        }
        touched.length = 0;
      },
      finish: () => {
        if (this.loading !== load) throw new Error('this load was abandoned (the index was cleared)');
        this.loading = undefined;
        this.loadingTermIds = undefined;
        this.postings.layOut(this.lists);
        const next = spool.reader();
        for (let docs = this.docs.size; docs > 0; docs--) {
          const shortId = next();
          for (let n = next(); n > 0; n--) {
            const slot = next();
            this.postings.append(this.lists[slot]! - 1, shortId, next());
          }
        }
        spool.release();
      },
    };
    const spool = new Spool();
    let frequencies = new Int32Array(256);
    const touched: number[] = [];
    this.loading = load;
    this.loadingTermIds = new Map();
    return load;
  }

  /**
   * Numbers a new document and its terms: `posting(slot)` is told of each token under its list
   * (term and field), and says whether the document is new to that list.
   */
  private addDocument(id: string, tag: string, texts: readonly string[], posting: (slot: number) => boolean): void {
    const { fields, tokenize, processTerm } = this.options;
    const shortId = this.nextId++;
    this.shortIds.set(id, shortId);
    const doc: Doc = { id, tag, terms: '', slot: this.freeSlots.pop() ?? this.bySlot.length };
    this.docs.set(shortId, doc);
    this.bySlot[doc.slot] = doc;
    this.fieldLengths = withRoom(this.fieldLengths, (doc.slot + 1) * fields.length);
    const termIds: number[] = [];
    // Marks the terms listed for this document: one compare, where termIds.includes scanned them all.
    const stamp = shortId + 1;
    for (let field = 0; field < fields.length; field++) {
      const tokens = tokenize(texts[field] ?? '');
      const length = new Set(tokens).size;
      this.fieldLengths[doc.slot * fields.length + field] = length;
      // MiniSearch's running average, step for step, so scores match to the last bit.
      const count = this.docs.size - 1;
      this.averageLengths[field] = ((this.averageLengths[field] || 0) * count + length) / (count + 1);
      for (const token of tokens) {
        const key = processTerm(token);
        if (!key) continue;
        const termId = this.termIdOf(key);
        if (posting(termId * fields.length + field) && this.termStamps[termId] !== stamp) {
          this.termStamps[termId] = stamp;
          termIds.push(termId);
        }
      }
    }
    doc.terms = packIds(termIds);
  }

  remove(id: string): void {
    this.notLoading();
    this.take(id);
    this.compactIfWasteful();
  }

  private take(id: string): void {
    const shortId = this.shortIds.get(id);
    if (shortId === undefined) return;
    const doc = this.docs.get(shortId)!;
    const count = this.docs.size;
    const fields = this.options.fields.length;
    for (let field = 0; field < fields; field++) {
      const length = this.fieldLengths[doc.slot * fields + field]!;
      this.averageLengths[field] = count === 1 ? 0 : (this.averageLengths[field]! * count - length) / (count - 1);
    }
    for (const termId of unpackIds(doc.terms)) {
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
    this.bySlot[doc.slot] = undefined;
    this.freeSlots.push(doc.slot);
  }

  /** Closes the holes that lists which moved or emptied left, once they are as large as what is in use. */
  private compactIfWasteful(): void {
    if (this.postings.wasteful()) this.postings.compact(this.lists);
  }

  clear(): void {
    this.loading = undefined;
    this.loadingTermIds = undefined;
    this.dictionary.clear();
    this.termKeys.length = 0;
    this.termStamps = new Int32Array(256);
    this.lists = new Int32Array(256);
    this.postings.clear();
    this.freeTermIds.length = 0;
    this.docs.clear();
    this.shortIds.clear();
    this.bySlot.length = 0;
    this.freeSlots.length = 0;
    this.fieldLengths = new Int32Array(256);
    this.averageLengths = [];
  }

  /**
   * The index as plain data, for a snapshot on disk (search/lexicalSnapshot.ts); `restore` takes
   * it back into an empty index. A copy: the index may change while it is written out.
   */
  state(): FullTextState {
    this.notLoading();
    const fields = this.options.fields.length;
    const docs: FullTextState['docs'] = [];
    for (const [shortId, doc] of this.docs) docs.push([shortId, doc.id, doc.tag, doc.terms, doc.slot]);
    return {
      // The radix tree itself, node by node in its own order: restored so, it lists prefix and
      // fuzzy matches in the same order, and scores add up in the same order, to the bit. (Terms
      // inserted again, even in that order, split nodes otherwise.)
      terms: treeOf(this.dictionary._tree),
      termCount: this.termKeys.length,
      freeTermIds: [...this.freeTermIds],
      docs,
      nextId: this.nextId,
      slotCount: this.bySlot.length,
      freeSlots: [...this.freeSlots],
      averageLengths: [...this.averageLengths],
      lists: this.lists.slice(0, this.termKeys.length * fields),
      postings: this.postings.data.slice(0, this.postings.laid),
      waste: this.postings.wasted,
      fieldLengths: this.fieldLengths.slice(0, this.bySlot.length * fields),
    };
  }

  /** Fills this empty index with a `state()` of an index with the same options; throws (leaving it empty) when the state does not hold together. */
  restore(state: FullTextState): void {
    if (this.loading || this.docs.size > 0 || this.termKeys.length > 0) throw new Error('restore() fills an empty index: clear it first');
    try {
      this.restoreState(state);
    } catch (err) {
      this.clear();
      throw err;
    }
  }

  private restoreState(state: FullTextState): void {
    const fields = this.options.fields.length;
    const { termCount, slotCount, nextId } = state;
    const laid = state.postings.length;
    const fail = (what: string): never => {
      throw new Error(`full-text state: ${what}`);
    };
    if (state.lists.length !== termCount * fields) fail('lists do not match the terms');
    if (state.fieldLengths.length !== slotCount * fields) fail('field lengths do not match the slots');
    if (state.averageLengths.length > fields) fail('too many field averages');
    for (const at of state.lists) if (at < 0 || at > laid) fail('a list outside the postings');
    this.termKeys.length = termCount;
    const build = (entries: TermTree, prefix: string): RadixTree => {
      const node = new Map<string, unknown>();
      for (const [edge, child] of entries) {
        if (edge === '') {
          if (typeof child !== 'number' || !(child >= 0 && child < termCount) || this.termKeys[child] !== undefined) fail('a term id out of place');
          this.termKeys[child as number] = prefix;
          node.set(edge, child);
        } else {
          if (!Array.isArray(child) || node.has(edge)) fail('a term tree out of shape');
          node.set(edge, build(child as TermTree, prefix + edge));
        }
      }
      return node as RadixTree;
    };
    this.dictionary = new SearchableMap<number>(build(state.terms, ''));
    if (state.freeTermIds.some((id) => !(id >= 0 && id < termCount) || this.termKeys[id] !== undefined)) fail('a free term id in use');
    this.freeTermIds.push(...state.freeTermIds);
    this.termStamps = new Int32Array(Math.max(256, termCount));
    this.lists = new Int32Array(Math.max(256, termCount * fields));
    this.lists.set(state.lists);
    this.postings.restore(state.postings, state.waste);
    this.bySlot.length = slotCount;
    for (const [shortId, id, tag, terms, slot] of state.docs) {
      if (!(shortId >= 0 && shortId < nextId) || this.docs.has(shortId) || this.shortIds.has(id)) fail('a document twice');
      if (!(slot >= 0 && slot < slotCount) || this.bySlot[slot] !== undefined) fail('a slot out of place');
      const doc: Doc = { id, tag, terms, slot };
      this.docs.set(shortId, doc);
      this.shortIds.set(id, shortId);
      this.bySlot[slot] = doc;
    }
    if (state.freeSlots.some((slot) => !(slot >= 0 && slot < slotCount) || this.bySlot[slot] !== undefined)) fail('a free slot in use');
    this.freeSlots.push(...state.freeSlots);
    this.fieldLengths = new Int32Array(Math.max(256, slotCount * fields));
    this.fieldLengths.set(state.fieldLengths);
    this.averageLengths = [...state.averageLengths];
    this.nextId = nextId;
  }

  /** Best first (ties in the order MiniSearch gives them); every matching document, or the `limit` best. */
  search(query: string, options: QueryOptions = {}, limit?: number): FullTextHit[] {
    return this.searchEither([{ query, options }], options.tag, limit);
  }

  /**
   * Documents matching any of the queries, each with its own options (MiniSearch's nested query
   * combined with OR): a document's scores add up.
   *
   * MiniSearch sums a term's matches in a Map of its own, ORs the terms of a query into one, and
   * the queries into another; each with an object and an array per document matched (about 10 MiB
   * a search at 50,000 atoms). Scores does the same sums in the same order, over typed arrays kept
   * between searches, so the scores are MiniSearch's to the bit and ties keep their order.
   */
  searchEither(queries: ReadonlyArray<{ query: string; options?: QueryOptions }>, tag?: string, limit?: number): FullTextHit[] {
    this.notLoading();
    const { tokenize, processTerm } = this.options;
    // Each distinct query term once, numbered: the quality factor counts those a document matched.
    const numbers = new Map<string, number>();
    const parsed = queries.map(({ query, options }) => {
      const keys: Array<{ key: string; typed: string }> = [];
      for (const token of tokenize(query)) {
        const key = processTerm(token);
        if (!key) continue;
        keys.push({ key, typed: token.toLowerCase() });
        if (!numbers.has(key)) numbers.set(key, numbers.size);
      }
      return { keys, options: { ...this.options.defaults, ...options } };
    });
    const scores = this.scores;
    scores.start(this.bySlot.length, numbers.size);
    for (const { keys, options } of parsed) {
      const boosts = this.options.fields.map((f) => (options.boost && Object.hasOwn(options.boost, f) ? options.boost[f] : 0) || 1);
      const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
      for (const { key, typed } of keys) {
        scores.startTerm(numbers.get(key)!);
        this.termResults(key, options.typedPrefix && !typed.startsWith(key) ? typed : undefined, options, boosts, weights);
        scores.endTerm();
      }
      scores.endQuery();
    }
    const include = tag === undefined ? undefined : (slot: number) => this.bySlot[slot]!.tag === tag;
    return scores.best(limit, include).map(({ slot, score }) => ({ id: this.bySlot[slot]!.id, score }));
  }

  /**
   * One query term: its exact match, then longer terms it begins (or `typed`, its token as typed,
   * begins), then terms a few edits away.
   */
  private termResults(key: string, typed: string | undefined, o: QueryOptions, boosts: number[], weights: { fuzzy: number; prefix: number }): void {
    const termBoost = o.termBoost ?? 1;
    this.score(this.dictionary.get(key), 1, termBoost, boosts);
    const prefix = typeof o.prefix === 'function' ? o.prefix(key) : o.prefix === true;
    const fuzzy = typeof o.fuzzy === 'function' ? o.fuzzy(key) : (o.fuzzy ?? false);
    let fuzzyMatches: Map<string, [number, number]> | undefined;
    if (fuzzy) {
      const maxDistance = fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(key.length * fuzzy)) : fuzzy;
      if (maxDistance) fuzzyMatches = this.dictionary.fuzzyGet(key, maxDistance);
    }
    if (prefix) {
      const scorePrefixMatch = (longer: string, term: number, distance: number) => {
        fuzzyMatches?.delete(longer); // scored as a prefix match
        this.score(term, (weights.prefix * longer.length) / (longer.length + 0.3 * distance), termBoost, boosts);
      };
      this.eachLonger(key, undefined, scorePrefixMatch);
      // The typed form's longer terms: none of them begins with the key (it does not begin `typed`).
      if (typed) this.eachLonger(typed, key, scorePrefixMatch);
    }
    for (const [near, [term, distance]] of fuzzyMatches ?? []) {
      if (!distance) continue;
      this.score(term, (weights.fuzzy * near.length) / (near.length + distance), termBoost, boosts);
    }
  }

  /** Each term longer than `start` that begins with it, but `skip`, with how many letters longer. */
  private eachLonger(start: string, skip: string | undefined, visit: (longer: string, term: number, distance: number) => void): void {
    for (const [longer, term] of this.dictionary.atPrefix(start)) {
      const distance = longer.length - start.length;
      if (distance > 0 && longer !== skip) visit(longer, term, distance);
    }
  }

  /** Adds a matching term's BM25 to the current query term's scores (Scores.add). */
  private score(termId: number | undefined, weight: number, termBoost: number, boosts: number[]): void {
    if (termId === undefined) return;
    const total = this.docs.size;
    const data = this.postings.data;
    const scores = this.scores;
    for (let field = 0; field < boosts.length; field++) {
      const at = this.lists[termId * boosts.length + field]! - 1;
      if (at < 0) continue;
      const used = data[at + 1]!;
      const matching = used / 2;
      const average = this.averageLengths[field]!;
      const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
      const factor = weight * termBoost * boosts[field]!;
      for (let i = at + HEAD, end = at + HEAD + used; i < end; i += 2) {
        const doc = this.docs.get(data[i]!)!;
        const frequency = data[i + 1]!;
        const length = this.fieldLengths[doc.slot * boosts.length + field]!;
        const raw = idf * (BM25.d + (frequency * (BM25.k + 1)) / (frequency + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
        scores.add(doc.slot, factor * raw);
      }
    }
  }

  private notLoading(): void {
    if (this.loading) throw new Error('the index is being loaded: finish the load first');
  }

  /** The id of a term, numbered when new. */
  private termIdOf(key: string): number {
    let termId = this.loadingTermIds ? this.loadingTermIds.get(key) : this.dictionary.get(key);
    if (termId !== undefined) return termId;
    termId = this.freeTermIds.pop() ?? this.termKeys.length;
    this.termKeys[termId] = key;
    this.termStamps = withRoom(this.termStamps, termId + 1);
    this.termStamps[termId] = 0;
    this.dictionary.set(key, termId);
    this.loadingTermIds?.set(key, termId);
    const fields = this.options.fields.length;
    this.lists = withRoom(this.lists, (termId + 1) * fields);
    return termId;
  }

  /** Adds a posting of `shortId` (the newest document) to a list; whether it is new to the list. */
  private addPosting(slot: number, shortId: number): boolean {
    let at = this.lists[slot]! - 1;
    if (at < 0) {
      at = this.postings.allocate(2);
      this.lists[slot] = at + 1;
    }
    const moved = this.postings.add(at, shortId);
    if (moved === undefined) return false; // this document was in the list: its frequency went up
    this.lists[slot] = moved + 1;
    return true;
  }
}

/** A radix tree of terms (MiniSearch's SearchableMap) node by node: each entry an edge and the node below it, or '' and the id of the term that ends there. */
export type TermTree = Array<[edge: string, child: TermTree | number]>;

/** The dictionary's tree as a TermTree, each node's entries in its Map's order. */
function treeOf(node: RadixTree): TermTree {
  const entries: TermTree = [];
  for (const [edge, child] of node) entries.push([edge, typeof child === 'number' ? child : treeOf(child)]);
  return entries;
}

/** What FullTextIndex.state gives and restore takes. */
export interface FullTextState {
  /** The term dictionary (its ids at the leaves). */
  terms: TermTree;
  /** Term ids given out so far (those not in `terms` are free). */
  termCount: number;
  freeTermIds: number[];
  /** In the order they were added. */
  docs: Array<[shortId: number, id: string, tag: string, terms: string, slot: number]>;
  nextId: number;
  slotCount: number;
  freeSlots: number[];
  averageLengths: number[];
  /** `termCount` times the fields: where each list starts in `postings`, plus one; 0: none. */
  lists: Int32Array;
  /** Every list's block, holes included. */
  postings: Int32Array;
  /** Integers of `postings` in blocks no list uses. */
  waste: number;
  /** `slotCount` times the fields. */
  fieldLengths: Int32Array;
}

/**
 * Term ids packed in a string: a character each below 32,768, two above (15 bits a character,
 * the high bit saying another follows). A document's ids as a number[] took 8 bytes each plus
 * room to grow, 22 MiB at 50,000 atoms; packed, 2 bytes each (1 while all are below 256).
 */
export function packIds(ids: readonly number[]): string {
  const codes: number[] = [];
  for (const id of ids) {
    if (id < 0x8000) codes.push(id);
    else codes.push(0x8000 | (id >>> 15), id & 0x7fff);
  }
  return String.fromCharCode(...codes);
}

export function unpackIds(packed: string): number[] {
  const ids: number[] = [];
  for (let i = 0; i < packed.length; i++) {
    const code = packed.charCodeAt(i);
    ids.push(code < 0x8000 ? code : ((code & 0x7fff) << 15) | packed.charCodeAt(++i));
  }
  return ids;
}

/** `array`, or a copy of it twice as long (at least `length`) when it is shorter than `length`. */
function withRoom(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  if (length <= array.length) return array;
  const grown = new Int32Array(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/** A load in progress (FullTextIndex.load). */
export interface FullTextLoad {
  /** Adds a document (its id not in the index yet). */
  put(id: string, tag: string, texts: readonly string[]): void;
  /** Writes the posting lists; the index is usable again. */
  finish(): void;
}

/** Integers per chunk of a Spool (256 KiB). */
const SPOOL_CHUNK = 65_536;

/**
 * Integers appended in chunks, so growing copies nothing, and read back once, in order; each
 * chunk's memory is given back once read (releaseBuffer).
 */
class Spool {
  private readonly chunks: Array<Int32Array | undefined> = [];
  private last = new Int32Array(0);
  private used = 0;

  push(value: number): void {
    if (this.used === this.last.length) {
      this.last = new Int32Array(SPOOL_CHUNK);
      this.chunks.push(this.last);
      this.used = 0;
    }
    this.last[this.used++] = value;
  }

  /** Gives back the chunks not read yet (the last one, once every integer was read). */
  release(): void {
    for (const chunk of this.chunks) if (chunk) releaseBuffer(chunk);
    this.chunks.length = 0;
    this.last = new Int32Array(0);
    this.used = 0;
  }

  /** Reads the integers in the order pushed, one per call; each chunk is released once read. */
  reader(): () => number {
    let chunk = 0;
    let at = 0;
    return () => {
      if (at === SPOOL_CHUNK) {
        releaseBuffer(this.chunks[chunk]!);
        this.chunks[chunk++] = undefined;
        at = 0;
      }
      return this.chunks[chunk]![at++]!;
    };
  }
}

/** A list's head: [capacity, used], then `used` integers of postings (document, frequency). */
const HEAD = 2;
/** Holes worth closing: this many integers, and as many as the lists in use hold. */
const MIN_WASTE = 4096;

/**
 * Every posting list in one Int32Array. A list is a block [capacity, used, document, frequency,
 * ...] at some offset, its postings ordered by document (short ids only grow). A list that
 * outgrows its block moves to one a quarter larger at the end; the hole it leaves, and the block of
 * a list that empties, count as waste until `compact` copies the lists in use, back to back, into
 * a fresh array.
 */
class Postings {
  data = new Int32Array(4096);
  private end = 0;
  private waste = 0;

  /** Integers up to the end of the last list. */
  get laid(): number {
    return this.end;
  }

  /** Integers in blocks no list uses (until `compact`). */
  get wasted(): number {
    return this.waste;
  }

  /** Starts afresh from `laid` (a `data` up to its end, as `laid` gives it) with `waste` integers of holes; room to grow after it, as `layOut` leaves. */
  restore(laid: Int32Array, waste: number): void {
    if (!(waste >= 0 && waste <= laid.length)) throw new Error('full-text state: postings waste out of range');
    releaseBuffer(this.data);
    this.data = new Int32Array(Math.max(laid.length + (laid.length >> 4), 4096));
    this.data.set(laid);
    this.end = laid.length;
    this.waste = waste;
  }

  /** A block for `capacity` integers of postings; where it starts. */
  allocate(capacity: number): number {
    const size = HEAD + capacity;
    if (this.end + size > this.data.length) {
      // By an eighth: the array is most of the index (20 MiB at 50,000 atoms), and half again
      // for the first few lists an edit moves was 10 MiB kept for good.
      const grown = new Int32Array(Math.max(this.end + size, this.data.length + (this.data.length >> 3)));
      grown.set(this.data.subarray(0, this.end));
      releaseBuffer(this.data);
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
      // A quarter more room, not double: a common word's list holds a posting of most documents.
      const moved = this.allocate(used + Math.max(2, (used >> 2) & ~1));
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
   * back to back with their capacity, and writes their new places into `lists`.
   */
  compact(lists: Int32Array): void {
    let size = 0;
    for (const entry of lists) if (entry > 0) size += HEAD + this.data[entry - 1]!;
    const data = new Int32Array(Math.max(size, 16));
    let end = 0;
    for (let slot = 0; slot < lists.length; slot++) {
      const at = lists[slot]! - 1;
      if (at < 0) continue;
      const capacity = this.data[at]!;
      data.set(this.data.subarray(at, at + HEAD + this.data[at + 1]!), end);
      lists[slot] = end + 1;
      end += HEAD + capacity;
    }
    releaseBuffer(this.data);
    this.data = data;
    this.end = end;
    this.waste = 0;
  }

  /**
   * Starts afresh with a block per list of the size `lists` counts (postings; 0: no list), back
   * to back, and writes where each starts, plus one, into `lists`. `append` fills them.
   */
  layOut(lists: Int32Array): void {
    let size = 0;
    for (const count of lists) if (count > 0) size += HEAD + count * 2;
    // Room after the lists for the first edits' moves: without it, the first list that moved
    // copied the whole array (20 MiB at 50,000 atoms) into one an eighth larger.
    releaseBuffer(this.data);
    this.data = new Int32Array(Math.max(size + (size >> 4), 4096));
    let end = 0;
    for (let slot = 0; slot < lists.length; slot++) {
      const count = lists[slot]!;
      if (count === 0) continue;
      this.data[end] = count * 2;
      lists[slot] = end + 1;
      end += HEAD + count * 2;
    }
    this.end = end;
    this.waste = 0;
  }

  /** Appends a posting to the list at `at`, which has room for it (`layOut`), `shortId` its highest yet. */
  append(at: number, shortId: number, frequency: number): void {
    const used = this.data[at + 1]!;
    this.data[at + HEAD + used] = shortId;
    this.data[at + HEAD + used + 1] = frequency;
    this.data[at + 1] = used + 2;
  }

  clear(): void {
    releaseBuffer(this.data);
    this.data = new Int32Array(4096);
    this.end = 0;
    this.waste = 0;
  }
}

/**
 * A search's sums, by document slot, in three levels as MiniSearch keeps them: a query term's
 * (its exact, prefix and fuzzy matches), a query's (its terms ORed), and the search's (its
 * queries ORed). Which query terms a document matched is a bit each. Arrays grow with the index
 * and are reused between searches.
 */
class Scores {
  private capacity = 0;
  private words = 0;
  private readonly term = new Level();
  private readonly query = new Level();
  private readonly total = new Level();
  /** The query terms each slot matched, `words` 32-bit words a slot, valid where stamped this search. */
  private matched = new Uint32Array(0);
  private matchedStamp = new Int32Array(0);
  /** Generations are numbered in one sequence, so a stamp of an earlier one is never current. */
  private counter = 0;
  private search = 0;
  private bit = 0;

  /** A new search over `slots` document slots and `terms` distinct query terms. */
  start(slots: number, terms: number): void {
    const words = Math.max(1, Math.ceil(terms / 32));
    if (slots > this.capacity || words > this.words) {
      this.capacity = Math.max(slots, Math.ceil(this.capacity * 1.5));
      this.words = Math.max(words, this.words);
      for (const level of [this.term, this.query, this.total]) level.grow(this.capacity);
      this.matched = new Uint32Array(this.capacity * this.words);
      this.matchedStamp = new Int32Array(this.capacity);
    }
    if (this.counter > 0x3fffffff) {
      // Long before stamps would wrap: cleared, between searches.
      for (const stamps of [this.term.stamp, this.query.stamp, this.total.stamp, this.matchedStamp]) stamps.fill(0);
      this.counter = 0;
    }
    this.search = ++this.counter;
    this.total.reset(this.search);
    this.query.reset(++this.counter);
  }

  /** The query term numbered `number` (start's count) is scored next. */
  startTerm(number: number): void {
    this.term.reset(++this.counter);
    this.bit = number;
  }

  add(slot: number, score: number): void {
    this.term.add(slot, score);
    const at = slot * this.words;
    if (this.matchedStamp[slot] !== this.search) {
      this.matchedStamp[slot] = this.search;
      this.matched.fill(0, at, at + this.words);
    }
    this.matched[at + (this.bit >>> 5)]! |= 1 << (this.bit & 31);
  }

  /** The term's scores ORed into its query's. */
  endTerm(): void {
    this.query.orFrom(this.term);
  }

  /** The query's scores ORed into the search's; the next query starts empty. */
  endQuery(): void {
    this.total.orFrom(this.query);
    this.query.reset(++this.counter);
  }

  /**
   * The search's documents (those `include` takes), best first: each score times the number of
   * query terms it matched, ties in the order first matched (as a stable sort of MiniSearch's
   * results gives them). With `limit`, only that many, picked with a heap of that size: a common
   * word matches tens of thousands of documents, and the caller wants a few of them.
   */
  best(limit: number | undefined, include?: (slot: number) => boolean): Array<{ slot: number; score: number }> {
    // The term level is free once the search is scored: finals by the order first matched.
    const finals = this.term.values;
    const slots = this.term.order;
    let n = 0;
    for (let i = 0; i < this.total.count; i++) {
      const slot = this.total.order[i]!;
      if (include && !include(slot)) continue;
      let count = 0;
      for (let w = slot * this.words, end = w + this.words; w < end; w++) count += bitCount(this.matched[w]!);
      finals[n] = this.total.values[slot]! * (count || 1);
      slots[n++] = slot;
    }
    // Position i before j: a higher score, or the same score matched first.
    const before = (i: number, j: number) => finals[i]! > finals[j]! || (finals[i] === finals[j] && i < j);
    let chosen: number[];
    if (limit === undefined || n <= limit) chosen = Array.from({ length: n }, (_, i) => i);
    else {
      // A heap of the `limit` best so far, the worst of them on top.
      const heap: number[] = [];
      const down = (at: number) => {
        for (;;) {
          const l = 2 * at + 1;
          const r = l + 1;
          let worst = at;
          if (l < heap.length && before(heap[worst]!, heap[l]!)) worst = l;
          if (r < heap.length && before(heap[worst]!, heap[r]!)) worst = r;
          if (worst === at) return;
          [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
          at = worst;
        }
      };
      for (let i = 0; i < n; i++) {
        if (heap.length < limit) {
          heap.push(i);
          for (let at = heap.length - 1; at > 0; ) {
            const parent = (at - 1) >> 1;
            if (!before(heap[parent]!, heap[at]!)) break;
            [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
            at = parent;
          }
        } else if (limit > 0 && before(i, heap[0]!)) {
          heap[0] = i;
          down(0);
        }
      }
      chosen = heap;
    }
    return chosen.sort((i, j) => (before(i, j) ? -1 : 1)).map((i) => ({ slot: slots[i]!, score: finals[i]! }));
  }
}

/**
 * One level of Scores: a sum per slot, valid where its stamp is the level's generation, and the
 * slots in the order first written. OR (`orFrom`) adds a slot's score to the one it has, or takes
 * it as it is, as MiniSearch's OR of two result maps does (new documents go last).
 */
class Level {
  values = new Float64Array(0);
  stamp = new Int32Array(0);
  order = new Int32Array(0);
  count = 0;
  private generation = 0;

  /** New, empty arrays (stamp 0 is never a generation). */
  grow(capacity: number): void {
    this.values = new Float64Array(capacity);
    this.stamp = new Int32Array(capacity);
    this.order = new Int32Array(capacity);
  }

  /** Empty, as of `generation` (a number no earlier reset used). */
  reset(generation: number): void {
    this.generation = generation;
    this.count = 0;
  }

  add(slot: number, score: number): void {
    if (this.stamp[slot] !== this.generation) {
      this.stamp[slot] = this.generation;
      this.values[slot] = score;
      this.order[this.count++] = slot;
    } else this.values[slot]! += score;
  }

  /** `from`'s sums ORed into this level's, in the order `from` first had them. */
  orFrom(from: Level): void {
    for (let i = 0; i < from.count; i++) {
      const slot = from.order[i]!;
      if (this.stamp[slot] !== this.generation) {
        this.stamp[slot] = this.generation;
        this.values[slot] = from.values[slot]!;
        this.order[this.count++] = slot;
      } else this.values[slot] = this.values[slot]! + from.values[slot]!;
    }
  }
}

function bitCount(n: number): number {
  n -= (n >>> 1) & 0x55555555;
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
