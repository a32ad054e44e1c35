/**
 * The second pass of search: the candidates that the words (BM25) and the meaning (cosine) found
 * are scored again with more evidence, and that score orders the answer and is the number shown.
 *
 * Why not reciprocal rank fusion alone: it keeps only each ranking's order, so a query that names
 * one atom's distinctive code word (`Math.imul`, `localStorage.setItem`) wins the words' ranking
 * by a wide margin and still loses to a neighbour the meaning ranks first. Here each piece of
 * evidence keeps its size:
 *
 * - words: BM25 of the query's own words, relative to the best candidate's (0..1);
 * - related words (vocabulary.ts), relative likewise, counting little: they widen what is found
 *   more than they reorder it;
 * - meaning: cosine of query and atom, relative to the best candidate's;
 * - name: the share of the query's words that are words of the atom's name;
 * - code: the share of the query's code-like tokens (`setItem`, `Math.hypot`, `is_key_down`), and
 *   of a short query's plain words (`splice`, `normalize NFD`), that the atom's code uses verbatim;
 * - literal: for a query copied from code (`redo.length = 0`, `??= []`, `Date.UTC`, `new Map`,
 *   `86400000`), whether the atom's code holds it as written;
 * - direction: for a query asking for a conversion ("camelCase into snake_case") and an atom
 *   whose name converts (camel_to_snake) and has a sibling converting back (snake_to_camel),
 *   whether the name goes the way the query asks.
 *
 * Identifier-like queries (code tokens, or two words or fewer) weigh words, name and code more
 * and meaning less: the sentence encoder knows little about `imul`.
 */
import type { Atom, AtomType } from '../atoms/model.js';
import { escapeRegExp } from '../util/regexp.js';
import type { AtomWords, WordLookup } from './lexical.js';
import { asAtomName, CODE_LIKE, terms } from './words.js';

export interface Candidate {
  name: string;
  /** BM25 of the query's own words over the best candidate's, 0..1. */
  lexical: number;
  /** BM25 of the related words only over the best candidate's, 0..1. */
  related: number;
  /** Cosine of query and atom, or null when the atom has no vector (yet). */
  cosine: number | null;
  /** The atom's code, for the code-token evidence (its identifiers, when `words` is not given). */
  code: string;
  /** The atom's words as the full-text index keeps them (no code is read per query). */
  words?: AtomWords;
  /** Whether the atom's code holds the query as written (QueryShape.literal). */
  literal?: boolean;
  /**
   * For a query asking for a conversion and an atom named for one: 1 when the name converts the
   * way the query asks, -1 the other way round, 0 or absent when neither is clear.
   */
  direction?: number;
}

export interface QueryShape {
  /** Written like code, or short: words and code count more than meaning. */
  identifierLike: boolean;
  /** The query without a clause that says what is not wanted ("…, not load"). */
  wanted: string;
  /** Stemmed words of what is wanted (stop words out). */
  terms: string[];
  /** Stemmed words after "not", "rather than", "instead of": a sibling the query rules out. */
  unwanted: string[];
  /** Tokens written like code, as typed: `localStorage`, `setItem`, `is_key_down`. */
  codeTokens: string[];
  /**
   * What is looked for verbatim among the identifiers an atom's code uses: the code tokens and,
   * in a query written like code or short, its plain words too (`splice`, `hypot`, `normalize`).
   */
  inCode: string[];
  /**
   * For a query with code's punctuation (`redo.length = 0`, `??= []`, `\{(\w+)\}`): the query as a
   * pattern over code, white space free between symbols; an atom whose code holds it is the one
   * the agent copied it from. Null for other queries.
   */
  literal: CodeLiteral | null;
  /** What the query asks to convert into what ("camelCase to snake_case"), or null. */
  conversion: Conversion | null;
}

/** Two sides of a conversion, as phrases; '' for a side left unsaid (`to_unix_timestamp`). */
export interface Conversion {
  from: string;
  to: string;
}

/**
 * A fragment of code as a pattern: its tokens (words, and each symbol) in order, any white space
 * between a word and a symbol or between symbols, at least one space between two words, so
 * `redo.length=0` finds `redo.length = 0`. A fragment of several pieces (parted by spaces) also
 * has a looser pattern, its pieces in order on one line with anything between, for what is
 * remembered with a gap: `Date.parse / 1000` finds `Date.parse(text) / 1000`. The patterns run
 * only over code that holds the fragment's longest word: a substring test is many times faster
 * than a pattern, and a scan reads every atom's code.
 */
export class CodeLiteral {
  private readonly pattern: RegExp;
  /** A pattern a piece, found in turn along a line (no lazy gaps between them: nothing to backtrack). */
  private readonly pieces: RegExp[];
  /** Each piece's longest word: code without one of them cannot hold the pieces. */
  private readonly pieceWords: string[];
  private readonly anchor: string;

  constructor(fragment: string) {
    const tokens = fragment.match(/[\w$]+|\S/g) ?? [];
    this.pattern = new RegExp(tokensPattern(tokens));
    const parts = fragment.trim().split(/\s+/);
    const pieces = parts.length > 1 && parts.length <= MAX_PIECES ? parts.map((p) => p.match(/[\w$]+|\S/g) ?? []) : [];
    this.pieces = pieces.map((p) => new RegExp(tokensPattern(p), 'g'));
    this.pieceWords = pieces.map(longestWord).filter((w) => w.length > 0);
    this.anchor = longestWord(tokens);
  }

  /** Whether the code holds the fragment as written. */
  test(code: string): boolean {
    return code.includes(this.anchor) && this.pattern.test(code);
  }

  /** How the code holds the fragment: as written, only its pieces in order on a line (when `pieces`), or not. */
  holds(code: string, pieces = true): 'written' | 'pieces' | undefined {
    if (!code.includes(this.anchor)) return undefined;
    if (this.pattern.test(code)) return 'written';
    if (!pieces || this.pieces.length === 0 || !this.pieceWords.every((w) => code.includes(w))) return undefined;
    return code.split('\n').some((line) => this.piecesInOrder(line)) ? 'pieces' : undefined;
  }

  /** Each piece found after the one before it, the earliest each time. */
  private piecesInOrder(line: string): boolean {
    let from = 0;
    for (const piece of this.pieces) {
      piece.lastIndex = from;
      const found = piece.exec(line);
      if (!found) return false;
      from = found.index + found[0].length;
    }
    return true;
  }
}

function isWordToken(token: string | undefined): boolean {
  return token !== undefined && /^[\w$]/.test(token);
}

function longestWord(tokens: readonly string[]): string {
  return tokens.filter(isWordToken).reduce((a, b) => (b.length > a.length ? b : a), '');
}

/**
 * Tokens in order, white space as CodeLiteral says. A word in front starts a token of the code
 * (`redo.length` is not in `undo_redo.length`); a number at the end ends one (`1000` is not in
 * `10000`), where a word at the end may be the start of a longer one (`physics_config('move_sp`).
 */
function tokensPattern(tokens: readonly string[]): string {
  let source = isWordToken(tokens[0]) ? '(?<![\\w$])' : '';
  tokens.forEach((token, i) => {
    if (i > 0) source += isWordToken(token) && isWordToken(tokens[i - 1]) ? '\\s+' : '\\s*';
    source += escapeRegExp(token);
  });
  if (/^\d/.test(tokens.at(-1) ?? '')) source += '(?![\\w$])';
  return source;
}

/** How rare a word is among the atoms (LexicalIndex.idf); 0 for one no atom has. */
export type Rarity = (kind: 'code' | 'name', word: string) => number;

interface Weights {
  lexical: number;
  related: number;
  meaning: number;
  name: number;
  code: number;
  /** Taken off when the name holds a word the query rules out. */
  unwanted: number;
  /** The code holds the query as written (counted only for a query that has a literal). */
  literal: number;
  /**
   * Added for an atom that another candidate calls when both match the query by name: "lerp"
   * means `math_lerp` (which `color_lerp` calls) more than `color_lerp`.
   */
  dependency: number;
  /** Added (or taken off) by Candidate.direction: rgb_to_hex or hex_to_rgb. */
  direction: number;
}

/** Chosen on the tuned halves of npm run eval:search (see the README's search section). */
export const WEIGHTS: { prose: Weights; identifier: Weights } = {
  prose: { lexical: 0.3, related: 0.25, meaning: 0.7, name: 0.05, code: 0, unwanted: 0.3, dependency: 0, literal: 0.5, direction: 0.07 },
  identifier: { lexical: 0.15, related: 0.3, meaning: 0.15, name: 0.5, code: 0.3, unwanted: 0.3, dependency: 0.05, literal: 0.5, direction: 0.07 },
};

/** Queries of this many words or fewer are names more often than sentences. */
const SHORT_QUERY_WORDS = 2;
/** Code's punctuation that prose does not use: a query with it was copied from code. */
const CODE_PUNCTUATION = /[=<>&|*/%^~[\]{}()\\;`]|\?\?|\?\./;
/**
 * Queries that are code without that punctuation: one name reached through dots as code calls an
 * API (`Date.UTC`, `localStorage.setItem`), a constructor call (`new Map`), a number written as
 * code writes a constant (`86400000`, `0.5`, `1e9`, `0xff`: three digits or more, or not a plain
 * integer).
 */
const CODE_WITHOUT_PUNCTUATION = /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|new\s+[A-Z][\w$]*|\d{3,}|\d+\.\d+|\d+[eE]-?\d+|0[xX][\da-fA-F]+)$/;
/** A query with code's punctuation and this many tokens or fewer is written like code. */
const LITERAL_WORDS = 4;
/** A literal longer than this is not searched for: it is a paragraph, not a fragment of code. */
const MAX_LITERAL = 80;
/** A fragment of more pieces than this is not looked for with gaps between them. */
const MAX_PIECES = 4;
/** Where a query starts saying what it does not want: "save the game, not load it". */
const NEGATION = /,?\s+(?:not|rather than|instead of|but not|except)\s+/i;

export function queryShape(query: string): QueryShape {
  const [head = '', ...rest] = query.split(NEGATION);
  const wanted = terms(head).length > 0 ? head.trim() : query.trim();
  const unwanted = wanted === query.trim() ? [] : terms(rest.join(' '));
  const raw = wanted.split(/\s+/).filter((t) => t.length > 0);
  const codeTokens = raw.filter((t) => CODE_LIKE.test(t)).flatMap((t) => t.split(/[.()\s,;]+/).filter((p) => /^[A-Za-z_$][\w$]*$/.test(p)));
  const words = terms(wanted);
  const literal = literalPattern(wanted);
  // A short query with code's punctuation is code; a sentence with a parenthesis is still a sentence.
  const identifierLike = codeTokens.length > 0 || (literal !== null && raw.length <= LITERAL_WORDS) || (raw.length <= SHORT_QUERY_WORDS && words.length > 0);
  const plain = identifierLike ? raw.filter((t) => !CODE_LIKE.test(t) && /^[A-Za-z]{3,}$/.test(t) && terms(t).length > 0) : [];
  return { identifierLike, wanted, terms: words, unwanted, codeTokens, inCode: [...codeTokens, ...plain], literal, conversion: queryConversion(wanted) };
}

/**
 * The names of the atoms (of `type`, when given) whose code holds the fragment as written or,
 * when none does, its pieces in order on a line; none when more than `limit` do: a fragment that
 * common (`return 0;`) tells none of them apart.
 */
export function atomsHolding(literal: CodeLiteral, atoms: Iterable<Pick<Atom, 'name' | 'type' | 'code'>>, type: AtomType | undefined, limit: number): string[] {
  const written: string[] = [];
  const pieces: string[] = [];
  for (const atom of atoms) {
    if (type && atom.type !== type) continue;
    // Once one atom holds it as written, pieces no longer count: they are not looked for.
    const held = literal.holds(atom.code, written.length === 0);
    if (held === 'written' && written.push(atom.name) > limit) return [];
    if (held === 'pieces' && pieces.length <= limit) pieces.push(atom.name);
  }
  if (written.length > 0) return written;
  return pieces.length <= limit ? pieces : [];
}

/** The query as a pattern over code (CodeLiteral), or null when it is not written as code is. */
export function literalPattern(query: string): CodeLiteral | null {
  const text = query.trim();
  if (text.length < 3 || text.length > MAX_LITERAL) return null;
  return CODE_PUNCTUATION.test(text) || CODE_WITHOUT_PUNCTUATION.test(text) ? new CodeLiteral(text) : null;
}

/** Words that start a request for a conversion and say nothing of its sides: "turn X into Y". */
const CONVERT_VERB = /^(?:please\s+)?(?:turn|convert|change|transform|translate|map|switch|go|get|make)\s+/i;

/**
 * The conversion a query asks for: "X to Y", "X into Y", "from X to Y", or "Y from X" (the
 * sides swapped), or one identifier named as atoms are (`toSnakeCase`, `hex_to_rgb`); null when it
 * asks for none.
 */
export function queryConversion(wanted: string): Conversion | null {
  const text = wanted.trim();
  if (/^[A-Za-z_$][\w$]*$/.test(text)) return nameConversion(asAtomName(text));
  const fromTo = /^(?:.*\s)?from\s+(.+?)\s+(?:to|into)\s+(.+)$/i.exec(text);
  const to = /^(.+?)\s+(?:to|into)\s+(.+)$/i.exec(text);
  const from = /^(.+?)\s+from\s+(.+)$/i.exec(text);
  let sides: [string, string] | undefined;
  if (fromTo) sides = [fromTo[1]!, fromTo[2]!];
  else if (to && (!from || to[1]!.length < from[1]!.length)) sides = [to[1]!, to[2]!];
  else if (from) sides = [from[2]!, from[1]!];
  if (!sides) return null;
  const [a, b] = sides.map((side) => side.replace(CONVERT_VERB, '').replace(/\s+back$/i, '').trim());
  return terms(a!).length > 0 && terms(b!).length > 0 ? { from: a!, to: b! } : null;
}

/** The conversion an atom's name says it makes: rgb_to_hex, to_unix_timestamp, from_unix_timestamp. */
export function nameConversion(name: string): Conversion | null {
  const parts = name.split('_');
  const at = parts.indexOf('to', 1);
  if (at > 0 && at < parts.length - 1) return { from: parts.slice(0, at).join(' '), to: parts.slice(at + 1).join(' ') };
  if (parts.length > 1 && parts[0] === 'to') return { from: '', to: parts.slice(1).join(' ') };
  if (parts.length > 1 && parts[0] === 'from') return { from: parts.slice(1).join(' '), to: '' };
  return null;
}

/** The name of the conversion the other way round: hex_to_rgb for rgb_to_hex, from_x for to_x. */
export function reversedName(name: Conversion): string {
  const snake = (words: string) => words.split(' ').join('_');
  if (!name.from) return `from_${snake(name.to)}`;
  if (!name.to) return `to_${snake(name.from)}`;
  return `${snake(name.to)}_to_${snake(name.from)}`;
}

/**
 * Whether the name converts the way the query asks (1), the other way round (-1), or neither is
 * clear (0): the query's sides are compared with the name's, in order and crossed, by
 * `similarity` (of two phrases, 0..1).
 */
export function conversionAgreement(query: Conversion, name: Conversion, similarity: (a: string, b: string) => number): number {
  const sim = (a: string, b: string) => (a && b ? similarity(a, b) : 0);
  const inOrder = sim(query.from, name.from) + sim(query.to, name.to);
  const crossed = sim(query.from, name.to) + sim(query.to, name.from);
  return Math.sign(inOrder - crossed);
}

/** The query's words that are words of the name, weighted by rarity, as a share of all, 0..1. */
export function nameOverlap(shape: QueryShape, name: string | WordLookup, rarity: Rarity): number {
  if (shape.terms.length === 0) return 0;
  const own = typeof name === 'string' ? new Set(terms(name)) : name;
  let found = 0;
  let all = 0;
  for (const t of shape.terms) {
    const weight = rarity('name', t) || 1;
    all += weight;
    if (own.has(t)) found += weight;
  }
  return found / all;
}

/** Whether the name holds a word the query rules out. */
export function namesUnwanted(shape: QueryShape, name: string | WordLookup): boolean {
  if (shape.unwanted.length === 0) return false;
  const own = typeof name === 'string' ? new Set(terms(name)) : name;
  return shape.unwanted.some((t) => own.has(t) && !shape.terms.includes(t));
}

/** The query's code tokens the code uses as whole identifiers (any case), weighted by rarity, 0..1. */
export function codeOverlap(shape: QueryShape, code: string | WordLookup, rarity: Rarity): number {
  if (shape.inCode.length === 0) return 0;
  let used: WordLookup;
  if (typeof code === 'string') {
    const found = new Set<string>();
    for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) found.add(m[0].toLowerCase());
    used = found;
  } else used = code;
  let found = 0;
  let all = 0;
  for (const t of shape.inCode) {
    const weight = rarity('code', t) || 1;
    all += weight;
    if (used.has(t.toLowerCase())) found += weight;
  }
  return found / all;
}

/**
 * Each candidate's score, 0..1: a weighted sum of evidence that is itself 0..1, so the number
 * shown is on a fixed scale and follows the order exactly.
 */
export function scoreCandidates(shape: QueryShape, candidates: readonly Candidate[], rarity: Rarity): Map<string, number> {
  const w = shape.identifierLike ? WEIGHTS.identifier : WEIGHTS.prose;
  // A fragment no candidate holds is no evidence: it weighs nothing, not against every score.
  const literalWeight = shape.literal && candidates.some((c) => c.literal) ? w.literal : 0;
  const total = w.lexical + w.related + w.meaning + w.name + w.code + w.dependency + literalWeight;
  let best = 0;
  for (const c of candidates) if (c.cosine !== null && c.cosine > best) best = c.cosine;
  const scores = new Map<string, number>();
  const named = new Map<string, number>();
  for (const c of candidates) named.set(c.name, nameOverlap(shape, c.words?.name ?? c.name, rarity));
  // Atoms that a candidate matching the query by name depends on: "lerp" means `math_lerp`, which
  // `color_lerp` calls, more than `color_lerp`.
  const calledByNamed = new Set<string>();
  if (w.dependency > 0) {
    for (const c of candidates) if (named.get(c.name)! > 0) for (const d of c.words?.dependencies ?? []) calledByNamed.add(d);
  }
  for (const c of candidates) {
    const meaning = c.cosine !== null && best > 0 ? Math.max(0, c.cosine) / best : 0;
    const nameWords = c.words?.name;
    const score =
      w.lexical * c.lexical +
      w.related * c.related +
      w.meaning * meaning +
      w.name * named.get(c.name)! +
      w.code * codeOverlap(shape, c.words?.code ?? c.code, rarity) -
      (namesUnwanted(shape, nameWords ?? c.name) ? w.unwanted : 0) +
      (calledByNamed.has(c.name) && named.get(c.name)! > 0 ? w.dependency : 0) +
      (c.literal ? literalWeight : 0) +
      w.direction * (c.direction ?? 0);
    scores.set(c.name, Math.min(1, Math.max(0, score) / total));
  }
  return scores;
}
