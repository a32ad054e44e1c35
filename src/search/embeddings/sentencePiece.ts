/**
 * USE-lite's sentencepiece tokenizer, giving the very ids of @energetic-ai/embeddings' Tokenizer
 * (test/unit/sentence-piece.test.ts compares them), in time linear in the text's length times the
 * longest piece. The package's copies the rest of the text at every position
 * (`symbols.slice(i)`), quadratic in the text: a 2 KB atom spent ~8% of its embedding there.
 */

/** The model's vocabulary: [piece, score] per id (vocab.json). */
export type Vocabulary = ReadonlyArray<readonly [string, number]>;

const SEPARATOR = '\u2581';
/** The first ids are the model's reserved symbols (<unk>, <s>, …): never matched in text. */
const RESERVED_SYMBOLS_COUNT = 6;

interface TrieNode {
  /** By code point. */
  children: Map<number, TrieNode>;
  /** The id of the piece ending here, or -1. */
  id: number;
  score: number;
}

const node = (): TrieNode => ({ children: new Map(), id: -1, score: 0 });

export class SentencePiece {
  private readonly root = node();
  /** Each id's piece length in UTF-16 units (the walk back steps by it, as the package does). */
  private readonly lengths: Int32Array;

  constructor(private readonly vocabulary: Vocabulary) {
    this.lengths = Int32Array.from(vocabulary, ([piece]) => piece.length);
    for (let i = RESERVED_SYMBOLS_COUNT; i < vocabulary.length; i++) {
      let at = this.root;
      for (const symbol of vocabulary[i]![0]) {
        const code = symbol.codePointAt(0)!;
        let next = at.children.get(code);
        if (!next) at.children.set(code, (next = node()));
        at = next;
      }
      at.id = i;
      at.score = vocabulary[i]![1];
    }
  }

  /** The vocabulary's size (ids run from 0 to size - 1). */
  get size(): number {
    return this.vocabulary.length;
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    const input = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
    const symbols: number[] = [];
    for (const symbol of input) symbols.push(symbol.codePointAt(0)!);
    const n = symbols.length;
    // The package's pass (its nodes[end][start]: for each end, the pieces ending there in
    // ascending order of start, a later one winning an equal score; 0 stands for "none yet"),
    // run forwards: every piece ending at a position starts before it, so when the pieces that
    // start at i are scored, best[i] is final, and the pieces reaching each end arrive in
    // ascending order of start, as there. Typed arrays, no list per position: linear and cheap.
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      let at = this.root.children.get(symbols[i]!);
      let found = false;
      const from = best[i]!;
      for (let j = i; j < n && at; j++) {
        if (at.id >= 0) {
          const score = at.score + from;
          if (best[j + 1] === 0 || score >= best[j + 1]!) {
            best[j + 1] = score;
            words[j + 1] = at.id;
          }
          found = true;
        }
        at = j + 1 < n ? at.children.get(symbols[j + 1]!) : undefined;
      }
      // No piece starts here: the symbol alone, as the unknown id 0 with score 0.
      if (!found && (best[i + 1] === 0 || from >= best[i + 1]!)) {
        best[i + 1] = from;
        words[i + 1] = 0;
      }
    }
    const results: number[] = [];
    // Walked back by each piece's length in UTF-16 units, as the package does.
    for (let at = n; at > 0; at -= this.lengths[words[at]!]!) results.push(words[at]!);
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of results) {
      if (!(previousUnknown && id === 0)) merged.push(id);
      previousUnknown = id === 0;
    }
    return merged.reverse();
  }
}
