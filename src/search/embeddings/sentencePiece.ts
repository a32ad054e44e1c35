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
  children: Map<string, TrieNode>;
  /** The id of the piece ending here, or -1. */
  id: number;
  score: number;
}

const node = (): TrieNode => ({ children: new Map(), id: -1, score: 0 });

export class SentencePiece {
  private readonly root = node();

  constructor(private readonly vocabulary: Vocabulary) {
    for (let i = RESERVED_SYMBOLS_COUNT; i < vocabulary.length; i++) {
      let at = this.root;
      for (const symbol of vocabulary[i]![0]) {
        let next = at.children.get(symbol);
        if (!next) at.children.set(symbol, (next = node()));
        at = next;
      }
      at.id = i;
      at.score = vocabulary[i]![1];
    }
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    const input = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
    const symbols = Array.from(input);
    const n = symbols.length;
    // Pieces ending at each position: their start, score and id, in order of start (as the
    // package's nodes[end][start], whose integer keys iterate in ascending order).
    const starts: number[][] = Array.from({ length: n + 1 }, () => []);
    const scores: number[][] = Array.from({ length: n + 1 }, () => []);
    const ids: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let i = 0; i < n; i++) {
      let at = this.root.children.get(symbols[i]!);
      let found = false;
      for (let j = i; j < n && at; j++) {
        if (at.id >= 0) {
          starts[j + 1]!.push(i);
          scores[j + 1]!.push(at.score);
          ids[j + 1]!.push(at.id);
          found = true;
        }
        at = j + 1 < n ? at.children.get(symbols[j + 1]!) : undefined;
      }
      // No piece starts here: the symbol alone, as the unknown id 0 with score 0.
      if (!found) {
        starts[i + 1]!.push(i);
        scores[i + 1]!.push(0);
        ids[i + 1]!.push(0);
      }
    }
    // The package's pass, tie-breaking included: for each end, the pieces ending there in
    // ascending order of start, a later one winning an equal score; 0 stands for "none yet".
    const best = new Array<number>(n + 1).fill(0);
    const words = new Array<number>(n + 1).fill(0);
    for (let end = 0; end <= n; end++) {
      const s = starts[end]!;
      // Several pieces can end here from one start only if the vocabulary repeats a piece; the
      // stable sort keeps the package's order (by start, then as found).
      const order = s.map((_, k) => k).sort((a, b) => s[a]! - s[b]!);
      for (const k of order) {
        const score = scores[end]![k]! + best[s[k]!]!;
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          words[end] = ids[end]![k]!;
        }
      }
    }
    const results: number[] = [];
    // Walked back by each piece's length in UTF-16 units, as the package does.
    for (let at = words.length - 1; at > 0; at -= this.vocabulary[words[at]!]![0].length) results.push(words[at]!);
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of results) {
      if (!(previousUnknown && id === 0)) merged.push(id);
      previousUnknown = id === 0;
    }
    return merged.reverse();
  }
}
