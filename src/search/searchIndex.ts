/**
 * Finds atoms by meaning and by words. Owns the full-text index, the vector index and the
 * embedding queue, and keeps all three in step with the store through its change events.
 * The store is the source of truth: its vectors sit in `.atomic/vectors.bin` (store/vectors/), the
 * database says which atom's vector is in which slot (with the model id and a hash of the embedded
 * text), and the in-memory vector index is filled from them after an open.
 *
 * Nothing heavy happens at construction or activation: the full-text index and the vector index
 * are filled in the background after an open, and the embedding model starts in its own process
 * only when something needs embedding.
 */
import { join } from 'node:path';
import type { Atom, AtomType } from '../atoms/model.js';
import { embeddingText } from '../atoms/signature.js';
import { Emitter, type Disposable } from '../util/event.js';
import { nextTurn } from '../util/turn.js';
import { writeFileAtomic } from '../util/atomicFile.js';
import { readPlainFile } from '../util/safeFile.js';
import { silentLogger, type Logger } from '../util/log.js';
import { cosine, type EmbeddingProvider } from './embeddings/provider.js';
import { hasTextHash, textHash } from '../util/textHash.js';
import { EmbedQueue, type EmbedJobResult } from './embedQueue.js';
import { CachingProvider, VectorCache } from './embeddings/vectorCache.js';
import { reciprocalRankFusion } from './fusion.js';
import { LexicalIndex } from './lexical.js';
import { atomFingerprint, decodeLexicalSnapshot, encodeLexicalSnapshot, type SnapshotSeal } from './lexicalSnapshot.js';
import { atomsHolding, conversionAgreement, nameConversion, queryShape, reversedName, scoreCandidates, type Candidate, type Conversion, type Rarity } from './rank.js';
import type { SearchStore, SearchStoreChange, StoredEmbedding } from './searchStore.js';
import { VectorIndex, VectorSlab, type VectorEntry } from './vectorIndex.js';
import { decodeVectorSnapshot, encodeVectorSnapshot, type KeptVector } from './vectorSnapshot.js';
import { asAtomName, terms } from './words.js';

/** A stored vector as the index keeps it (compactVector). */
type IndexedEmbedding = Omit<StoredEmbedding, 'vector'> & { vector: Int8Array };

/** The contract's cut-off: results whose cosine similarity is below it are not shown. */
export const SIMILARITY_THRESHOLD = 0.3;
/**
 * The words' ranking counts 1.5 times the meaning's in the fusion: USE-lite is the weaker
 * ranker here (chosen on the tuned queries of npm run eval:search: recall@5 0.94 -> 0.98; the
 * held-out queries moved the same way, recall@1 0.60 -> 0.62).
 */
const LEXICAL_WEIGHT = 1.5;
/** How many candidates each ranking contributes to the fusion. */
const CANDIDATES = 50;
/** How many of the best candidates named for a conversion have their direction judged. */
const DIRECTION_CANDIDATES = 10;
/** Query vectors kept (and a query's parts': a conversion's sides, names' sides). */
const QUERY_CACHE = 200;
/** How many nearest atoms the second pass knows the cosine of (vectra scores them all anyway). */
const COSINE_CANDIDATES = 150;
/** After the provider fails, how long search goes by words alone before trying again. */
const RETRY_PROVIDER_MS = 60_000;
/** The longest a search waits for the embeddings of atoms just changed. */
const READ_YOUR_WRITES_WAIT_MS = 30_000;
/**
 * How long after opening the backlog of unembedded atoms waits before the model starts, unless
 * a search or an edit needs the model sooner: opening a workspace stays cheap.
 */
const BACKLOG_DELAY_MS = 5_000;
/** Stored vectors read, and atoms checked against them, per turn of the event loop at open. */
const RECONCILE_SLICE = 2_000;
/** The full-text build's slices: this long on the event loop, then a turn (a slice of 500 atoms took up to 170 ms). */
const LEXICAL_SLICE_MS = 20;
/** Below this many atoms the full-text index is built at each open (~80 ms at 1,000) and no snapshot is kept. */
const LEXICAL_SNAPSHOT_MIN_ATOMS = 1_000;
/** A snapshot is not worth restoring when more than this share of its atoms changed since: building costs as much. */
const LEXICAL_SNAPSHOT_MAX_STALE = 0.25;
/** After the index was built (or restored with changes), its snapshot is written this much later. */
const LEXICAL_SAVE_DELAY_MS = 10_000;
/** A larger file is not a snapshot this program wrote (50,000 atoms: about 40 MB). */
const MAX_LEXICAL_SNAPSHOT_BYTES = 512 * 1024 * 1024;
/** Below this many atoms the vector index is read from the store at each open (~30 ms at 1,000) and no snapshot is kept. */
const VECTOR_SNAPSHOT_MIN_ATOMS = 1_000;
/** A vector snapshot is not worth restoring when more than this share of the atoms are not in it as they are now. */
const VECTOR_SNAPSHOT_MAX_STALE = 0.1;
/** A larger file is not a vector snapshot this program wrote (50,000 atoms of 512 dimensions: about 30 MB). */
const MAX_VECTOR_SNAPSHOT_BYTES = 512 * 1024 * 1024;
/**
 * A search finishes a small backlog before it answers, so the first search of a session ranks
 * those atoms by meaning too (the model embeds one text in 70–90 ms: 40 atoms take about 3 s). A
 * larger backlog is not waited for: the answer says how many atoms only their words could rank.
 * The same bound holds for atoms just changed (read your writes).
 */
const BACKLOG_WAIT_MAX_ATOMS = 40;
const BACKLOG_WAIT_MS = 5_000;

/**
 * 'fused' is the product (rank.ts's second pass); 'lexical' and 'semantic' are each ranking alone
 * (the evaluation measures them; the bench composes round 0's reciprocal rank fusion from them,
 * test/bench/rrf.ts).
 */
export type SearchMode = 'fused' | 'lexical' | 'semantic';

export interface SearchOptions {
  limit?: number;
  type?: AtomType;
  /** Which rankings to use; 'fused' is the product, the others exist to measure it. */
  mode?: SearchMode;
  /** Cosine cut-off; the contract's 0.3 unless set (the evaluation measures without it too). */
  threshold?: number;
  /** Let related words (vocabulary.ts) count in the full-text ranking; default true. */
  expand?: boolean;
}

export interface SearchHit {
  atom: Atom;
  /**
   * The number shown as `[similarity: …]`, 0..1, in the order of the ranking: the ranking score
   * (rank.ts) in the product's fused mode, the cosine in the semantic and lexical modes; null
   * when meaning was unavailable (the answer is then ranked by words).
   */
  similarity: number | null;
  /** Cosine similarity of query and atom, or null when no vector could be compared. */
  cosine: number | null;
  /** True when the query names the atom (exactly, or every query word is in the name). */
  pinned: boolean;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Set when meaning could not be used (the model failed); hits are then ranked by words. */
  semanticUnavailable?: string;
  /** Atoms that had no vector yet (a backlog still being embedded): only their words could rank them. */
  unembedded?: number;
  /**
   * Set when the model had not answered yet since the start and did not within `coldQueryWaitMs`:
   * this answer is ranked by words, names and code; the model goes on starting for the next one.
   */
  modelStarting?: true;
}

/** The query's vector did not come within the cold start's wait (SearchIndexOptions.coldQueryWaitMs). */
class ModelStarting extends Error {
  constructor() {
    super('the search model is still starting');
  }
}

export interface IndexProgress {
  phase: 'indexing' | 'embedding';
  done: number;
  total: number;
}

export interface SearchIndexOptions {
  logger?: Logger;
  /** Where earlier versions kept a vector index file (removed when found); defaults to `<atomicDir>/vectors`. */
  vectorsDir?: string;
  /** Delay that coalesces commits to the in-memory vector index. */
  flushDelayMs?: number;
  /** Delay before atoms found unembedded at open are embedded (default 5 s); 0 starts at once. */
  backlogDelayMs?: number;
  /** How long a search waits for a small backlog to be embedded (default 5 s). */
  backlogWaitMs?: number;
  /** How long a search waits for the vectors of a few atoms just changed (default 30 s: a stalled model). */
  readYourWritesWaitMs?: number;
  /** The full-text build's slice between turns (default LEXICAL_SLICE_MS); 0 yields after every atom. */
  lexicalSliceMs?: number;
  /**
   * Keep the full-text index in this file between sessions (lexicalSnapshot.ts), sealed with
   * `seal`: a start restores it and indexes again only the atoms changed since, instead of
   * building it from every atom. Unset: built at every open (tests, benches).
   */
  lexicalSnapshot?: { file: string; seal: SnapshotSeal };
  /**
   * Keep the vector index in this file between sessions (vectorSnapshot.ts), sealed with `seal`,
   * written at close: a start takes the vectors of the atoms unchanged since, and reads only the
   * others from the store. Unset: read from the store at every open (tests, benches).
   */
  vectorSnapshot?: { file: string; seal: SnapshotSeal };
  /**
   * Keep atoms' vectors in this user's cache too (embeddings/vectorCache.ts), and take them from
   * it: `true` for the user's cache folder, or a folder. Off by default (tests, benches); the
   * workspace turns it on unless ATOMIC_EMBED_CACHE=0.
   */
  vectorCache?: boolean | string;
  /**
   * How long a search waits for the query's vector while the model has not answered once since the
   * start (its process loads in seconds): past that the answer is ranked by words, names and code
   * and says so (`modelStarting`), and the model goes on loading. Unset: a search waits for the
   * model (tests, benches and the eval, whose figures assume meaning); the workspace sets it.
   */
  coldQueryWaitMs?: number;
}

export class SearchIndex implements Disposable {
  private readonly lexical = new LexicalIndex();
  /** Settles when the full-text index holds every atom; unset until first needed. */
  private lexicalReady: Promise<void> | undefined;
  /** The full-text index: empty (never built, or cleared by a reload), being built, or holding the store's atoms. */
  private lexicalState: 'empty' | 'building' | 'loaded' = 'empty';
  /**
   * Atoms changed since the full-text index last took changes: it takes them in the turn after the
   * write's (the write then waits on its file system calls meanwhile), while it is being built only
   * after, and before any search reads it (`wordIndex`).
   */
  private readonly lexicalPending = new Set<string>();
  private lexicalTimer: ReturnType<typeof setImmediate> | undefined;
  private lexicalGeneration = 0;
  /** Whether the snapshot on disk holds the full-text index as it stands (lexicalSnapshot). */
  private lexicalSaved = false;
  private lexicalSaveTimer: NodeJS.Timeout | undefined;
  /** The snapshot's write in progress, if any (close waits for it). */
  private lexicalSaving: Promise<void> | undefined;
  /**
   * Whether the vector snapshot on disk holds the index as it stands: set by a restore that took
   * every atom from it, unset by any change of the index after.
   */
  private vectorsSaved = false;
  /** Whether the first open's reconcile has run (the snapshot is tried then only). */
  private vectorSnapshotTried = false;
  /** Whether the index has been loaded once: a close before that keeps the snapshot there is. */
  private vectorsLoaded = false;
  /**
   * For each atom whose indexed vector is known to be its current text's, the atom (the store's
   * object) it is current for: what the vector snapshot keeps at close, without hashing every
   * atom's text then (50,000 atoms: ~0.5 s of a close an agent gives 4 s). Set where a vector is
   * indexed as current; an atom's change takes its entry away until a current vector is indexed
   * again. A path that sets nothing only leaves that vector out of the snapshot.
   */
  private readonly currentFor = new Map<string, Atom>();
  private readonly vectors: VectorIndex;
  private readonly queue: EmbedQueue;
  private readonly progressEmitter = new Emitter<IndexProgress>();
  /** Fires while the vector index is rebuilt and while a backlog of atoms is embedded. */
  readonly onProgress = this.progressEmitter.event;
  private readonly log: Logger;
  private subscription: Disposable | undefined;
  private opened: Promise<void> | undefined;
  private providerFailure: { message: string; at: number } | undefined;
  private readonly queryCache = new Map<string, Float32Array>();
  /** Queries being embedded ahead of their search (startQuery). */
  private readonly queryInFlight = new Map<string, Promise<Float32Array>>();
  /** Change handling still under way; a search waits for it (read your writes). */
  private readonly settling = new Set<Promise<void>>();
  private disposed = false;
  /** Whether the model has answered once since the start (its process is up): coldQueryWaitMs applies until then. */
  private modelAnswered = false;
  private backlogTimer: NodeJS.Timeout | undefined;
  /** This user's cache of vectors by model and text (vectorCache.ts), when the options ask for it. */
  private readonly cache: VectorCache | undefined;
  private cacheFailureLogged = false;

  constructor(
    private readonly source: SearchStore,
    private readonly provider: EmbeddingProvider,
    private readonly options: SearchIndexOptions = {},
  ) {
    this.log = options.logger ?? silentLogger;
    this.vectors = new VectorIndex(options.vectorsDir ?? join(source.atomicDir, 'vectors'), {
      flushDelayMs: options.flushDelayMs,
      onError: (err) => this.log.warn(`search: could not save the vector index: ${err.message}`),
    });
    this.cache =
      options.vectorCache && provider.dimensions > 0
        ? new VectorCache(provider.modelId, provider.dimensions, typeof options.vectorCache === 'string' ? options.vectorCache : undefined)
        : undefined;
    const cacheFailed = (err: Error) => {
      if (!this.cacheFailureLogged) this.log.warn(`search: the user's embedding cache could not be used (${err.message}); atoms are embedded as before`);
      this.cacheFailureLogged = true;
    };
    // The catch-up's model starts once the words index is built: every search waits on that build,
    // and on two cores the model's cold start (two processes, ~1 s of CPU each) took a core from it
    // (a fresh clone of 1,000 atoms: its first search ~0.3 s later). The user's cache answers before.
    const model = wordsFirst(provider, () => this.wordsIndexed());
    this.queue = new EmbedQueue(this.cache ? new CachingProvider(model, this.cache, cacheFailed) : model, {
      textOf: (name) => {
        const atom = this.source.get(name);
        return atom ? embeddingText(atom) : undefined;
      },
      embedded: (results) => this.storeVectors(results),
      failed: (err) => this.noteProviderFailure(err),
      progress: (done, total) => this.progressEmitter.fire({ phase: 'embedding', done, total }),
    });
  }

  /**
   * Subscribes to store changes and loads the vector index in the background. Returns at once;
   * the promise settles when the index is loaded (or rebuilt) and stale atoms are queued.
   */
  open(): Promise<void> {
    if (this.opened) return this.opened;
    if (!this.subscription) {
      this.subscription = this.source.onDidChange((e) => this.onChange(e));
      const delay = this.options.backlogDelayMs ?? BACKLOG_DELAY_MS;
      if (delay <= 0) this.queue.allowBackground();
      else {
        this.backlogTimer = setTimeout(() => this.queue.allowBackground(), delay);
        this.backlogTimer.unref?.();
      }
    }
    const opened = this.loadVectors();
    this.opened = opened;
    // A failure (a full disk, a folder that cannot be written) is logged, and the next search tries
    // again; meanwhile search goes by words. Every derived promise handles it: an unhandled
    // rejection would end a headless server.
    opened.catch((err: Error) => {
      this.log.error(`search: could not open the vector index: ${err.message}; the next search tries again`);
      if (this.opened === opened) this.opened = undefined;
    });
    // Built in slices in the background, so the first search need not wait for it.
    const buildLexical = () => void this.ensureLexical();
    opened.then(buildLexical, buildLexical);
    return opened;
  }

  /** Settles once the open has loaded the vectors and the full-text index (or given up on either). */
  async loaded(): Promise<void> {
    await this.open().catch(() => {});
    await this.ensureLexical().catch(() => {});
  }

  /**
   * A search is coming (a person opened a search box): the index is opened and the model's process
   * started now, so that the query, typed meanwhile, need not wait for either. Costs what that first
   * search would have; the model's process ends when idle as usual. Not while every atom waits for
   * its vector (`meaningMayRank`): the query's meaning could rank nothing yet, and the catch-up
   * starts the model once the words index is built.
   */
  warm(): void {
    const warm = () => {
      if (!this.modelAnswered && !this.providerFailedRecently() && this.meaningMayRank()) this.provider.warm?.();
    };
    this.afterVectorsLoad(warm);
  }

  /** Best matches first, at most `limit` (default 5), cosine ≥ 0.3 unless the query names the atom. */
  async search(query: string, options: SearchOptions = {}): Promise<SearchResult> {
    const limit = options.limit ?? 5;
    const mode = options.mode ?? 'fused';
    this.queue.allowBackground();
    const threshold = options.threshold ?? SIMILARITY_THRESHOLD;
    if (mode === 'fused') this.startQueryIfUseful(queryShape(query.trim()).wanted);
    await this.open().catch(() => {});
    await this.ensureLexical();
    // Read your writes: atoms just changed are embedded and indexed before the query is answered,
    // while they are a few (bounded: should the model stall, the changed atoms are still found by
    // their words). Many (an agent's thousand writes, a checkout) are not waited for: their vectors
    // take minutes, and the answer says how many atoms only their words could rank, as for a backlog.
    await withinMs(this.options.readYourWritesWaitMs ?? READ_YOUR_WRITES_WAIT_MS, async () => {
      while (this.settling.size > 0) await Promise.all(this.settling);
      if (this.queue.urgentCount <= BACKLOG_WAIT_MAX_ATOMS) await this.queue.urgentSettled();
    });
    // Atoms still without a vector (written by a process that closed before embedding them, or
    // embedded by another model): a small backlog is finished first, within a bound.
    const meaningUsable = mode !== 'lexical' && !this.providerFailedRecently();
    const backlog = this.queue.pending;
    if (meaningUsable && backlog > 0 && backlog <= BACKLOG_WAIT_MAX_ATOMS) {
      await withinMs(this.options.backlogWaitMs ?? BACKLOG_WAIT_MS, () => this.queue.idle());
    }
    const unembedded = meaningUsable ? this.queue.pending : 0;

    const text = query.trim();
    if (mode === 'fused') return this.rankedSearch(text, limit, threshold, options.type, unembedded, options.expand ?? true);

    const lexicalRanking =
      mode === 'semantic' ? [] : this.wordIndex.search(text, CANDIDATES, options.type, options.expand ?? true).map((h) => h.name);
    const foundByWords = new Set(lexicalRanking);

    let queryVector: Float32Array | undefined;
    let meaningLost: Error | undefined;
    let semanticRanking: string[] = [];
    const similarity = new Map<string, number>();
    if (mode !== 'lexical') {
      try {
        queryVector = await this.queryVector(text);
        for (const hit of await this.vectors.query(queryVector, CANDIDATES, options.type)) {
          semanticRanking.push(hit.name);
          similarity.set(hit.name, hit.similarity);
        }
      } catch (err) {
        meaningLost = err as Error;
        semanticRanking = [];
      }
    }

    // As in rankedSearch: while a word-found atom waits for its vector, meaning would favour the
    // atoms that have one over it, so the words rank alone.
    if (unembedded > 0 && lexicalRanking.some((name) => !this.vectors.meta(name))) semanticRanking = [];

    const fused = reciprocalRankFusion([
      { names: lexicalRanking, weight: LEXICAL_WEIGHT },
      { names: semanticRanking, weight: 1 },
    ]);

    const ranked = [...fused.entries()]
      .filter(([name]) => this.source.get(name) !== undefined)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name]) => name);

    const hits: SearchHit[] = [];
    for (const name of ranked) {
      if (hits.length >= limit) break;
      const atom = this.source.get(name)!;
      let sim = similarity.get(name) ?? null;
      if (sim === null && queryVector) {
        const v = await this.vectors.vector(name);
        sim = v ? cosine(queryVector, v) : null;
      }
      // The threshold cuts what only meaning found: an atom the query's words found is related by
      // those words whatever its cosine. No similarity at all means the atom has no vector yet.
      if (!foundByWords.has(name) && sim !== null && sim < threshold) continue;
      hits.push({ atom, similarity: sim, cosine: sim, pinned: false });
    }
    if (meaningLost) return withoutMeaning(hits, meaningLost);
    return unembedded > 0 ? { hits, unembedded } : { hits };
  }

  /**
   * The product's ranking: the words (the query's own and, apart, its related words) and the
   * meaning each bring candidates; rank.ts scores them again with the size of each piece of
   * evidence, the name's words and the code's tokens. The atom the query names exactly comes
   * first at 1. The score, 0..1, is what `similarity` holds: the order follows it.
   */
  private async rankedSearch(
    text: string,
    limit: number,
    threshold: number,
    type: AtomType | undefined,
    unembedded: number,
    expand: boolean,
  ): Promise<SearchResult> {
    const shape = queryShape(text);
    const words = this.wordIndex.searchApart(shape.wanted, CANDIDATES, type, shape.codeTokens.length > 0);
    const own = words.own;
    const related = expand ? words.related : [];
    let meaningLost: Error | undefined;
    const cosines = new Map<string, number>();
    let floor: number | null = null;
    // While a backlog waits for vectors, an atom the words found without a vector yet leaves meaning
    // out of every score below (meaningFair), so the query's vector is not waited for: during a fresh
    // clone's catch-up the model is busy or still starting, and the answer would wait for nothing.
    const meaningLeftOut = unembedded > 0 && [...own, ...related].some((h) => !this.vectors.meta(h.name));
    if (!meaningLeftOut) {
      try {
        const queryVector = await this.queryVector(shape.wanted);
        const near = await this.vectors.query(queryVector, COSINE_CANDIDATES, type);
        for (const hit of near) cosines.set(hit.name, hit.similarity);
        // Atoms beyond the nearest COSINE_CANDIDATES are at most this similar.
        if (near.length >= COSINE_CANDIDATES) floor = near.at(-1)!.similarity;
      } catch (err) {
        meaningLost = err as Error;
      }
    }
    const foundByWords = new Set([...own, ...related].map((h) => h.name));
    const pins = this.pinnedNames(text, own.map((h) => h.name), type);
    const exact = [...pins].find(([, level]) => level === 2)?.[0];

    const ownBest = own[0]?.score ?? 0;
    const relatedBest = related[0]?.score ?? 0;
    const byName = new Map<string, Candidate>();
    const candidate = (name: string): Candidate | undefined => {
      const atom = this.source.get(name);
      if (!atom) return undefined;
      let c = byName.get(name);
      if (!c) {
        const cos = cosines.get(name) ?? (meaningLost || !this.vectors.meta(name) ? null : floor);
        c = { name, lexical: 0, related: 0, cosine: cos, code: atom.code, words: this.wordIndex.words(name) };
        byName.set(name, c);
      }
      return c;
    };
    for (const h of own) {
      const c = candidate(h.name);
      if (c) c.lexical = ownBest > 0 ? h.score / ownBest : 0;
    }
    for (const h of related) {
      const c = candidate(h.name);
      if (c) c.related = relatedBest > 0 ? h.score / relatedBest : 0;
    }
    // The meaning's own candidates: its nearest CANDIDATES (cosines holds them best first).
    for (const name of [...cosines.keys()].slice(0, CANDIDATES)) candidate(name);
    for (const name of pins.keys()) candidate(name);
    // A query copied from code: the atoms whose code holds it (a scan, only for such a query).
    if (shape.literal) {
      for (const name of atomsHolding(shape.literal, this.source.all(), type, CANDIDATES)) {
        candidate(name)!.literal = true;
        foundByWords.add(name);
      }
    }

    // While a backlog waits for vectors, a candidate without one would get nothing from meaning
    // and lose to any candidate that has one, however well the words match (even to an atom found
    // by meaning alone): meaning is left out for every candidate until each has a vector, so the
    // words rank them all alike. The answer counts the atoms that wait (`unembedded`).
    const scored = [...byName.values()];
    const meaningFair = meaningLost !== undefined || scored.every((c) => c.cosine !== null);
    const rarity: Rarity = (kind, word) => this.wordIndex.idf(kind, word);
    const score = () => scoreCandidates(shape, meaningFair ? scored : scored.map((c) => ({ ...c, cosine: null })), rarity);
    let scores = score();
    if (shape.conversion && !meaningLost && !meaningLeftOut && (await this.judgeDirections(shape.conversion, scores, byName))) {
      scores = score();
    }
    if (exact) scores.set(exact, 1);
    const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

    const hits: SearchHit[] = [];
    for (const [name, score] of ranked) {
      if (hits.length >= limit) break;
      const cos = cosines.get(name) ?? null;
      const pinned = pins.has(name);
      // The threshold cuts what only meaning found (by its cosine): an atom the query's words or
      // the name found is related by those words whatever its cosine.
      if (!pinned && !foundByWords.has(name) && cos !== null && cos < threshold) continue;
      hits.push({ atom: this.source.get(name)!, similarity: meaningLost || meaningLeftOut ? null : round3(score), cosine: cos, pinned });
    }
    if (meaningLost) return withoutMeaning(hits, meaningLost);
    return unembedded > 0 ? { hits, unembedded } : { hits };
  }

  /**
   * For a query that asks for a conversion ("camelCase to snake_case"): which way each of the best
   * candidates named for one converts (Candidate.direction), by the meaning of the query's two
   * sides against the name's. Only the first DIRECTION_CANDIDATES such names: their sides are
   * embedded (a few words each, cached like queries). Returns whether any direction was set.
   */
  private async judgeDirections(conversion: Conversion, scores: ReadonlyMap<string, number>, byName: ReadonlyMap<string, Candidate>): Promise<boolean> {
    const named = [...scores.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name]) => ({ candidate: byName.get(name)!, sides: nameConversion(name) }))
      // Only names whose reverse is an atom too: direction tells two siblings apart, and judging
      // a name alone (xp_to_next_level) would only add the noise of two small embeddings.
      .filter((n): n is { candidate: Candidate; sides: Conversion } => n.sides !== null && this.source.get(reversedName(n.sides)) !== undefined)
      .slice(0, DIRECTION_CANDIDATES);
    if (named.length === 0) return false;
    const phrases = [...new Set([conversion.from, conversion.to, ...named.flatMap((n) => [n.sides.from, n.sides.to])].filter((p) => p))];
    let vectors: Float32Array[];
    try {
      vectors = await this.embedTexts(phrases);
    } catch {
      return false;
    }
    const vectorOf = new Map(phrases.map((p, i) => [p, vectors[i]!]));
    const similarity = (a: string, b: string) => cosine(vectorOf.get(a)!, vectorOf.get(b)!);
    for (const n of named) n.candidate.direction = conversionAgreement(conversion, n.sides, similarity);
    return true;
  }

  /** Settles when the index is loaded and every queued atom is embedded and indexed. */
  async whenIdle(): Promise<void> {
    await this.open().catch(() => {});
    this.queue.allowBackground();
    await this.queue.idle();
    await this.vectors.flush();
  }

  /** Number of atoms that still wait for a vector. */
  get pendingEmbeddings(): number {
    return this.queue.pending;
  }

  async close(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.lexicalSaveTimer) clearTimeout(this.lexicalSaveTimer);
    // Kept for the next start while the store is still open (the workspace closes it after); a
    // write already under way finishes first, and one for changes since comes after it.
    await this.lexicalSaving;
    await this.saveLexical();
    // A full-text build in progress stops at its next slice (seconds of slices at 50,000 atoms).
    this.lexicalGeneration++;
    if (this.backlogTimer) clearTimeout(this.backlogTimer);
    if (this.lexicalTimer) clearImmediate(this.lexicalTimer);
    this.subscription?.dispose();
    this.queue.stop();
    // Disposing the provider fails an embedding in flight, which lets the queue finish.
    await this.provider.dispose();
    await this.queue.idle();
    await this.opened?.catch(() => {});
    await Promise.all(this.settling);
    // Kept for the next start, as the full-text index is, while the store is still open.
    await this.saveVectors();
    await this.vectors.dispose();
    this.progressEmitter.dispose();
  }

  dispose(): void {
    void this.close();
  }

  // ---- keeping in step with the store ----

  private onChange(e: SearchStoreChange): void {
    if (this.disposed) return;
    this.vectorsSaved = false;
    switch (e.kind) {
      case 'upsert':
        this.currentFor.delete(e.atom.name);
        this.lexicalLater(e.atom.name);
        this.queue.allowBackground();
        this.track(this.reconcile(e.atom.name, true));
        break;
      case 'delete':
        this.currentFor.delete(e.atom.name);
        this.lexicalLater(e.atom.name);
        this.queue.cancel(e.atom.name);
        if (this.vectors.meta(e.atom.name)) this.vectors.delete(e.atom.name);
        break;
      case 'reload':
        this.currentFor.clear();
        this.lexicalGeneration++;
        this.lexicalReady = undefined;
        this.lexicalState = 'empty';
        this.lexicalPending.clear();
        this.lexical.clear();
        this.track((this.opened ?? Promise.resolve()).then(() => this.reconcileAll()));
        break;
    }
  }

  /** An atom changed (or went): its words are indexed soon (see lexicalPending). */
  private lexicalLater(name: string): void {
    if (this.lexicalState === 'empty') return; // a build reads the store as it is then
    this.lexicalPending.add(name);
    if (this.lexicalState === 'loaded') this.lexicalTimer ??= setImmediate(() => this.takeLexicalChanges());
  }

  /** The changed atoms into the full-text index, once it is loaded. */
  private takeLexicalChanges(): void {
    if (this.lexicalTimer) clearImmediate(this.lexicalTimer);
    this.lexicalTimer = undefined;
    if (this.lexicalState !== 'loaded') return;
    if (this.lexicalPending.size > 0) this.lexicalSaved = false;
    for (const name of this.lexicalPending) {
      const atom = this.source.get(name);
      if (atom) this.lexical.put(atom);
      else this.lexical.remove(name);
    }
    this.lexicalPending.clear();
  }

  /** The full-text index with every change taken: what a search reads. */
  private get wordIndex(): LexicalIndex {
    this.takeLexicalChanges();
    return this.lexical;
  }

  private track(work: Promise<void>): void {
    const settled = work.catch((err) => this.log.warn(`search: could not index a change: ${(err as Error).message}`));
    this.settling.add(settled);
    void settled.finally(() => this.settling.delete(settled));
  }

  /** Settles once the full-text index holds the store's atoms; a build a reload abandoned is followed by the next. */
  private async ensureLexical(): Promise<void> {
    for (;;) {
      this.lexicalReady ??= this.buildLexical();
      const building = this.lexicalReady;
      await building;
      if (this.lexicalReady === building) return;
    }
  }

  /**
   * Fills the full-text index from the store in slices of LEXICAL_SLICE_MS (10,000 atoms take about
   * a second), yielding between them so the extension host stays responsive; in one load
   * (LexicalIndex.load), so the posting lists are laid out once at their size. Changes made
   * meanwhile are applied after. A reload starts a new build; this one then stops.
   */
  private async buildLexical(): Promise<void> {
    const generation = ++this.lexicalGeneration;
    this.lexicalState = 'building';
    this.lexicalPending.clear(); // the store is read as it is now; later changes are pending again
    this.lexical.clear();
    const restored = await this.restoreLexical(generation);
    if (restored || generation !== this.lexicalGeneration) return;
    const load = this.lexical.load();
    const atoms = this.source.all();
    const sliceMs = this.options.lexicalSliceMs ?? LEXICAL_SLICE_MS;
    let slice = performance.now();
    for (let i = 0; i < atoms.length; i++) {
      load.put(atoms[i]!);
      if (performance.now() - slice >= sliceMs) {
        await nextTurn();
        if (generation !== this.lexicalGeneration) return;
        slice = performance.now();
      }
    }
    load.finish();
    this.lexicalState = 'loaded';
    this.lexicalSaved = false;
    this.takeLexicalChanges();
    this.saveLexicalLater();
  }

  /**
   * Takes the full-text index from its snapshot (lexicalSnapshot.ts), when one was kept here and
   * most of its atoms are unchanged: those are restored as they were indexed, the changed and new
   * ones indexed again, the gone ones removed. Whether it did; false leaves the index empty.
   */
  private async restoreLexical(generation: number): Promise<boolean> {
    const snapshot = this.options.lexicalSnapshot;
    if (!snapshot) return false;
    let bytes: Buffer;
    try {
      bytes = await readPlainFile(snapshot.file, MAX_LEXICAL_SNAPSHOT_BYTES);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.log.info(`search: the full-text snapshot was not read (${code ?? (err as Error).message}); building the index`);
      return false;
    }
    if (generation !== this.lexicalGeneration) return false;
    const decoded = await decodeLexicalSnapshot(bytes, snapshot.seal, nextTurn);
    if (generation !== this.lexicalGeneration) return false;
    if (typeof decoded === 'string') {
      this.log.info(`search: the full-text snapshot was not used (${decoded}); building the index`);
      return false;
    }
    const atoms = this.source.all();
    const changed = atoms.filter((atom) => decoded.fingerprints.get(atom.name) !== atomFingerprint(atom));
    const gone = [...decoded.fingerprints.keys()].filter((name) => !this.source.get(name));
    if (changed.length + gone.length > LEXICAL_SNAPSHOT_MAX_STALE * Math.max(atoms.length, decoded.fingerprints.size)) return false;
    try {
      this.lexical.restore(decoded.state, (name) => this.source.get(name));
    } catch (err) {
      this.log.warn(`search: the full-text snapshot was not used (${(err as Error).message}); building the index`);
      return false;
    }
    for (const name of gone) this.lexical.remove(name);
    for (const atom of changed) this.lexical.put(atom);
    this.log.debug(`search: the full-text index restored from its snapshot, ${changed.length} atoms indexed again and ${gone.length} removed`);
    this.lexicalState = 'loaded';
    this.lexicalSaved = changed.length === 0 && gone.length === 0;
    this.takeLexicalChanges();
    if (!this.lexicalSaved) this.saveLexicalLater();
    return true;
  }

  /** Writes the full-text snapshot in LEXICAL_SAVE_DELAY_MS (a process killed later still leaves one). */
  private saveLexicalLater(): void {
    if (!this.options.lexicalSnapshot || this.lexicalSaveTimer || this.disposed) return;
    this.lexicalSaveTimer = setTimeout(() => {
      this.lexicalSaveTimer = undefined;
      void this.saveLexical();
    }, LEXICAL_SAVE_DELAY_MS);
    this.lexicalSaveTimer.unref?.();
  }

  /** Writes the full-text index's snapshot unless the file holds it as it stands (one write at a time); never throws. */
  private saveLexical(): Promise<void> {
    this.lexicalSaving ??= this.writeLexical().finally(() => (this.lexicalSaving = undefined));
    return this.lexicalSaving;
  }

  private async writeLexical(): Promise<void> {
    const snapshot = this.options.lexicalSnapshot;
    if (!snapshot || this.lexicalState !== 'loaded') return;
    this.takeLexicalChanges();
    if (this.lexicalSaved || this.lexical.size < LEXICAL_SNAPSHOT_MIN_ATOMS) return;
    // In this turn, while the index and the store agree (their changes were just taken).
    const fingerprint = (name: string) => {
      const atom = this.source.get(name);
      return atom && atomFingerprint(atom);
    };
    this.lexicalSaved = true; // a change while it is written sets it back (takeLexicalChanges)
    try {
      const bytes = await encodeLexicalSnapshot(this.lexical.state(), fingerprint, snapshot.seal, nextTurn);
      if (!bytes) {
        this.lexicalSaved = false;
        return;
      }
      // Derived data: replaced atomically, not fsynced (a short file after a power loss is not sealed, and is rebuilt).
      await writeFileAtomic(snapshot.file, bytes, 0o644, { durable: false });
    } catch (err) {
      this.lexicalSaved = false;
      this.log.warn(`search: could not save the full-text snapshot: ${(err as Error).message}`);
    }
  }

  private async loadVectors(): Promise<void> {
    await this.vectors.open();
    await this.reconcileAll();
    this.vectorsLoaded = true;
  }

  /**
   * Makes the vector index match the database for every atom: current vectors are indexed
   * from the database, stale or missing ones are queued for embedding, leftovers removed.
   */
  private async reconcileAll(): Promise<void> {
    const atoms = this.source.all();
    // Gone atoms, and vectors of another model (they may not even have the same length).
    for (const name of this.vectors.names()) {
      if (!this.source.get(name) || this.vectors.meta(name)?.model !== this.provider.modelId) this.vectors.delete(name);
    }
    if (await this.restoreVectors(atoms)) return;
    // Page by page, with turns between: 50,000 rows took 0.4 s in one piece, and tool calls
    // waited. Each row's fate is decided as its page is read (hashing every atom's text is the
    // costly part), and each vector compacted as it is read, into one buffer a page (VectorSlab):
    // nothing of a page but the entries to index outlives it.
    const entries: VectorEntry[] = [];
    const toEmbed: string[] = [];
    const withRow = new Set<string>();
    let left = atoms.length;
    for (let after: string | undefined = ''; after !== undefined; ) {
      const slab = new VectorSlab(Math.min(RECONCILE_SLICE, Math.max(left, 0)), this.provider.dimensions);
      const page: { embeddings: IndexedEmbedding[]; next: string | undefined } = this.source.embeddingsPage(after, RECONCILE_SLICE, (vector) => slab.take(vector));
      for (const row of page.embeddings) {
        const atom = this.source.get(row.name);
        if (!atom) continue;
        withRow.add(atom.name);
        if (!this.isCurrent(atom, row)) {
          toEmbed.push(atom.name);
          this.currentFor.delete(atom.name);
          continue;
        }
        this.currentFor.set(atom.name, atom);
        // By reference: the vectors read from the database are the index's only copy (vectorIndex.ts).
        if (!this.isIndexed(atom, row)) entries.push({ name: atom.name, vector: row.vector, meta: { type: atom.type, model: row.model, textHash: row.textHash } });
      }
      left -= page.embeddings.length;
      after = page.next;
      await nextTurn();
    }
    for (const atom of atoms) if (!withRow.has(atom.name)) toEmbed.push(atom.name);
    await this.indexAndQueue(entries, toEmbed);
  }

  /** The end of a reconcile: `entries` into the index, `toEmbed` from the user's cache or to the model. */
  private async indexAndQueue(entries: VectorEntry[], toEmbed: string[]): Promise<void> {
    if (entries.length > 0) {
      await this.vectors.fill(entries);
      this.progressEmitter.fire({ phase: 'indexing', done: entries.length, total: entries.length });
    }
    await this.vectors.flush();
    for (const name of await this.takeFromCache(toEmbed)) void this.queue.request(name, false);
  }

  /**
   * At the first open: the vectors of the snapshot kept at the last close (vectorSnapshot.ts) for
   * every atom whose fingerprint it holds, the others' from the store as a change of each would
   * read them (their stored vector if current, else queued). Whether it did; false when there is
   * none, it is not this model's, or too many atoms changed since (the store is read as before).
   */
  private async restoreVectors(atoms: readonly Atom[]): Promise<boolean> {
    const snapshot = this.options.vectorSnapshot;
    if (!snapshot || this.vectorSnapshotTried || atoms.length < VECTOR_SNAPSHOT_MIN_ATOMS) return false;
    this.vectorSnapshotTried = true;
    let bytes: Buffer;
    try {
      bytes = await readPlainFile(snapshot.file, MAX_VECTOR_SNAPSHOT_BYTES);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.log.info(`search: the vector snapshot was not read (${code ?? (err as Error).message}); reading the stored vectors`);
      return false;
    }
    const decoded = decodeVectorSnapshot(bytes, snapshot.seal);
    if (typeof decoded === 'string' || decoded.model !== this.provider.modelId || decoded.dimensions !== this.provider.dimensions) {
      this.log.info(`search: the vector snapshot was not used (${typeof decoded === 'string' ? decoded : 'another model'}); reading the stored vectors`);
      return false;
    }
    const entries: VectorEntry[] = [];
    const rest: Atom[] = [];
    for (const atom of atoms) {
      const kept = decoded.vectors.get(atom.name);
      if (kept && kept.fingerprint === atomFingerprint(atom)) {
        entries.push({ name: atom.name, vector: kept.vector, meta: { type: atom.type, model: decoded.model, textHash: kept.textHash } });
        this.currentFor.set(atom.name, atom);
      } else rest.push(atom);
    }
    if (rest.length > VECTOR_SNAPSHOT_MAX_STALE * atoms.length) {
      this.log.info(`search: the vector snapshot was not used (${rest.length} of ${atoms.length} atoms changed since); reading the stored vectors`);
      return false;
    }
    const toEmbed: string[] = [];
    for (const atom of rest) {
      const row = this.source.getEmbedding(atom.name);
      if (row && this.isCurrent(atom, row)) {
        entries.push({ name: atom.name, vector: row.vector, meta: { type: atom.type, model: row.model, textHash: row.textHash } });
        this.currentFor.set(atom.name, atom);
      } else toEmbed.push(atom.name);
    }
    this.log.debug(`search: the vector index restored from its snapshot, ${rest.length} atoms read from the store`);
    // Written again at close only if the file lacks some atom's vector as it is now, or something
    // changes from here on (a change unsets it, even one while the index is being filled).
    this.vectorsSaved = rest.length === 0;
    await this.indexAndQueue(entries, toEmbed);
    return true;
  }

  /**
   * At close: the vectors the index holds that are current for their atom's text, with each atom's
   * fingerprint, as the vector snapshot, unless it holds them as they stand. Never throws.
   */
  private async saveVectors(): Promise<void> {
    const snapshot = this.options.vectorSnapshot;
    if (!snapshot || this.vectorsSaved || !this.vectorsLoaded || this.vectors.size < VECTOR_SNAPSHOT_MIN_ATOMS) return;
    try {
      const kept = new Map<string, KeptVector>();
      for (const { name, vector, meta } of await this.vectors.entries()) {
        const atom = this.source.get(name);
        // A vector the model has not caught up with yet (its atom changed) is left to the store's row.
        if (!atom || meta.model !== this.provider.modelId || this.currentFor.get(name) !== atom) continue;
        kept.set(name, { fingerprint: atomFingerprint(atom), textHash: meta.textHash, vector });
      }
      const bytes = encodeVectorSnapshot(this.provider.modelId, this.provider.dimensions, kept, snapshot.seal);
      // Derived data: replaced atomically, not fsynced (a short file after a power loss is not sealed, and is read past).
      if (bytes) await writeFileAtomic(snapshot.file, bytes, 0o644, { durable: false });
      this.vectorsSaved = true;
    } catch (err) {
      this.log.warn(`search: could not save the vector snapshot: ${(err as Error).message}`);
    }
  }

  /**
   * Stores the vectors this user's cache has for these atoms' current texts (a clone of a
   * workspace embedded before on this machine, a branch switched back to) at once, without the
   * model; returns the atoms still to embed.
   */
  private async takeFromCache(names: readonly string[]): Promise<string[]> {
    if (!this.cache || names.length === 0) return [...names];
    const texts = new Map<string, string>();
    for (const name of names) {
      const atom = this.source.get(name);
      if (atom) texts.set(name, embeddingText(atom));
    }
    let found: Map<string, Float32Array>;
    try {
      found = await this.cache.get([...texts.values()].map(textHash));
    } catch {
      return [...names];
    }
    const results: EmbedJobResult[] = [];
    const left: string[] = [];
    for (const name of names) {
      const text = texts.get(name);
      const vector = text === undefined ? undefined : found.get(textHash(text));
      if (vector) results.push({ name, text: text!, vector });
      else left.push(name);
    }
    for (let i = 0; i < results.length; i += RECONCILE_SLICE) {
      await this.storeVectors(results.slice(i, i + RECONCILE_SLICE));
      if (i + RECONCILE_SLICE < results.length) await nextTurn();
    }
    return left;
  }

  private async reconcile(name: string, urgent: boolean): Promise<void> {
    await this.opened;
    const atom = this.source.get(name);
    if (!atom) return;
    const row = this.source.getEmbedding(name);
    // Queued, not waited for: a search waits for a few (see search), nobody else.
    if (!row || !this.isCurrent(atom, row)) {
      this.currentFor.delete(name);
      void this.queue.request(name, urgent);
      return;
    }
    this.currentFor.set(name, atom);
    if (!this.isIndexed(atom, row)) this.vectors.upsert(name, row.vector, { type: atom.type, model: row.model, textHash: row.textHash });
  }

  /** Whether the index holds this stored vector for this atom already. */
  private isIndexed(atom: Atom, row: Pick<StoredEmbedding, 'model' | 'textHash'>): boolean {
    const meta = this.vectors.meta(atom.name);
    return meta !== undefined && meta.model === row.model && meta.textHash === row.textHash && meta.type === atom.type;
  }

  private isCurrent(atom: Atom, row: Pick<StoredEmbedding, 'model' | 'textHash'> & { vector: ArrayLike<number> }): boolean {
    return (
      row.model === this.provider.modelId &&
      row.vector.length === this.provider.dimensions &&
      hasTextHash(embeddingText(atom), row.textHash)
    );
  }

  private async storeVectors(results: EmbedJobResult[]): Promise<void> {
    if (results.length === 0 || this.disposed) return;
    const rows = results.map((r) => ({
      name: r.name,
      model: this.provider.modelId,
      textHash: textHash(r.text),
      vector: r.vector,
    }));
    await this.source.putEmbeddings(rows);
    this.vectorsSaved = false;
    rows.forEach((row, i) => {
      const atom = this.source.get(row.name);
      if (!atom) return;
      this.vectors.upsert(row.name, row.vector, { type: atom.type, model: row.model, textHash: row.textHash });
      // The text embedded may be one the atom had before a change made while the model ran.
      if (embeddingText(atom) === results[i]!.text) this.currentFor.set(row.name, atom);
      else this.currentFor.delete(row.name);
    });
    this.providerFailure = undefined;
  }

  // ---- queries ----

  private providerFailedRecently(): boolean {
    const failure = this.providerFailure;
    return failure !== undefined && Date.now() - failure.at < RETRY_PROVIDER_MS;
  }

  /**
   * The query's vector; while the model has not answered once, waited for at most coldQueryWaitMs
   * (then ModelStarting, and the embedding goes on: its vector is cached for the next search).
   */
  private async queryVector(text: string): Promise<Float32Array> {
    const wait = this.options.coldQueryWaitMs;
    if (wait === undefined || this.modelAnswered) return this.embedQuery(text);
    const vector = this.embedQuery(text);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      // Not unref'd: someone awaits this answer, and the timer is cleared as soon as it comes.
      timer = setTimeout(() => reject(new ModelStarting()), wait);
    });
    vector.catch(() => {}); // a failure after the wait is noted by embedTexts; nobody awaits it then
    try {
      return await Promise.race([vector, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async embedQuery(text: string): Promise<Float32Array> {
    const early = this.queryInFlight.get(text);
    if (early) return early;
    return (await this.embedTexts([text]))[0]!;
  }

  /**
   * startQuery, once the vectors are loaded, unless no atom has one while some wait (a fresh
   * clone): then no query's meaning can rank anything (rankedSearch leaves meaning out), and the
   * model's cold start would only take a core from the words index the answer waits on.
   */
  private startQueryIfUseful(text: string): void {
    this.afterVectorsLoad(() => {
      if (this.meaningMayRank()) this.startQuery(text);
    });
  }

  /** Runs `then` now if the vectors are loaded, else once the open has loaded them (not if it fails). */
  private afterVectorsLoad(then: () => void): void {
    if (this.vectorsLoaded) then();
    else void this.open().then(then, () => {});
  }

  /** Whether a query's meaning may rank some atom: one has a vector, or none waits for one. */
  private meaningMayRank(): boolean {
    return this.vectors.size > 0 || this.queue.pending === 0;
  }

  /**
   * Settles once the words index is built (or its build failed), and a turn after: see `queue`.
   * Rejects once the index is closed: an embedding let through after the close would reach a
   * provider already disposed (one that holds its answers until then would never give them).
   */
  private async wordsIndexed(): Promise<void> {
    if (this.lexicalState !== 'loaded') {
      await this.ensureLexical().catch(() => {});
      await nextTurn(); // the search that waited on it answers first
    }
    if (this.disposed) throw new Error('the search index was closed');
  }

  /**
   * Starts embedding a query before the search has waited for the open, the full-text index and
   * the writes before it: after a start the model's process loads (a second or more) while those
   * are under way, instead of after them. rankedSearch then takes this vector (embedQuery).
   */
  private startQuery(text: string): void {
    if (this.queryCache.has(text) || this.queryInFlight.has(text) || this.providerFailedRecently()) return;
    const vector = this.embedTexts([text]).then((v) => v[0]!);
    this.queryInFlight.set(text, vector);
    const forget = () => this.queryInFlight.delete(text);
    vector.then(forget, forget);
  }

  /** Vectors of short texts (queries, a query's parts), those not cached in one call to the model. */
  private async embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    const found = new Map<string, Float32Array>();
    for (const t of texts) {
      const cached = this.queryCache.get(t);
      if (cached) found.set(t, cached);
    }
    const missing = [...new Set(texts.filter((t) => !found.has(t)))];
    if (missing.length > 0) {
      if (this.providerFailedRecently()) throw new Error(this.providerFailure!.message);
      try {
        const vectors = await this.provider.embed(missing);
        this.providerFailure = undefined;
        this.modelAnswered = true;
        missing.forEach((text, i) => {
          found.set(text, vectors[i]!);
          if (this.queryCache.size >= QUERY_CACHE) this.queryCache.delete(this.queryCache.keys().next().value!);
          this.queryCache.set(text, vectors[i]!);
        });
      } catch (err) {
        this.noteProviderFailure(err as Error);
        throw err;
      }
    }
    return texts.map((t) => found.get(t)!);
  }

  private noteProviderFailure(err: Error): void {
    if (this.disposed) return;
    if (!this.providerFailure) this.log.warn(`search: embeddings unavailable, searching by words only: ${err.message}`);
    this.providerFailure = { message: err.message, at: Date.now() };
  }

  /**
   * Atoms the query names: 2 for the exact name ("math_clamp", "math clamp", "mathClamp"),
   * 1 when every query word is a word of the name ("clamp" -> math_clamp).
   */
  private pinnedNames(query: string, candidates: readonly string[], type: AtomType | undefined): Map<string, number> {
    const pins = new Map<string, number>();
    const ofType = (atom: Atom | undefined): atom is Atom => atom !== undefined && (!type || atom.type === type);
    const exact = this.source.get(asAtomName(query));
    if (ofType(exact)) pins.set(exact.name, 2);
    const words = terms(query);
    if (words.length === 0) return pins;
    // An atom whose name holds every query word also matches those words, so it is a candidate.
    for (const name of candidates) {
      if (pins.has(name)) continue;
      const nameWords = new Set(terms(name));
      if (words.every((w) => nameWords.has(w))) pins.set(name, 1);
    }
    return pins;
  }
}

/** An answer ranked without meaning: the model was still starting, or failed (its message). */
function withoutMeaning(hits: SearchHit[], err: Error): SearchResult {
  return err instanceof ModelStarting ? { hits, modelStarting: true } : { hits, semanticUnavailable: err.message };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Runs `work`, but stops waiting for it after `ms`. The timer is not unref'd: a caller awaits the
 * answer, and with an unref'd timer a process whose `work` waits on nothing else (a stalled model)
 * ended with the answer still pending, instead of answering after `ms`.
 */
async function withinMs(ms: number, work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `provider` whose calls wait for `ready()` first (what the catch-up's model waits on: see SearchIndex's queue). */
function wordsFirst(provider: EmbeddingProvider, ready: () => Promise<void>): EmbeddingProvider {
  return {
    modelId: provider.modelId,
    dimensions: provider.dimensions,
    async embed(texts) {
      await ready();
      return provider.embed(texts);
    },
    memory: () => provider.memory?.() ?? { running: false },
    // The index disposes the provider itself (dispose()).
    dispose: async () => {},
  };
}
