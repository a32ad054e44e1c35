/**
 * The full-text index kept between sessions (`.atomic/fulltext.bin`), so a start does not build
 * it again from every atom: about 0.8 s of the event loop at 10,000 atoms, before the first
 * search could answer. It is derived data: written without fsync (a power loss may leave it
 * short, and it is then rebuilt), and trusted only as far as it proves:
 *
 * - sealed with this machine's secret (store/checkSeal.ts's machineMac): a file committed to a
 *   repository, or one corrupted on disk, is not read, and the index is built as before;
 * - made by this product's version, for these fields and this tokenizing (`indexingSignature`):
 *   an update that indexes words differently builds afresh;
 * - each atom's entry carries the atom's fingerprint (`atomFingerprint`: its version, the time
 *   of that version and its type), and only the atoms whose fingerprint still matches are taken
 *   from the file; the others are indexed again after it is restored (searchIndex.ts).
 *
 * Layout: MAGIC, a little-endian u32 length and the header's JSON, four JSON sections (the term
 * tree, the documents, each atom's fingerprint and kept words, the word counts), zeros to a
 * multiple of 4, the three Int32 arrays (lists, postings, field lengths) in the machine's order
 * (only little-endian machines keep a snapshot), then the 32-byte seal of everything before it.
 */
import { endianness } from 'node:os';
import type { Atom } from '../atoms/model.js';
import { VERSION } from '../version.js';
import type { FullTextState } from './fullText.js';
import { indexingSignature, type LexicalState } from './lexical.js';

/** Seals bytes with this machine's secret (null where there is none: nothing is kept then). */
export type SnapshotSeal = (parts: readonly Uint8Array[]) => Buffer | null;

const MAGIC = Buffer.from('ACFTIX01', 'latin1');
/** The seal's length: SHA-256's. */
const SEAL_BYTES = 32;
/** Raise when the header's shape changes. */
const FORMAT = 1;

/** What a snapshot says of an atom's version: an atom whose fingerprint differs is indexed again. */
export function atomFingerprint(atom: Atom): string {
  return `${atom.version} ${atom.updated_at} ${atom.type}`;
}

interface Header {
  format: number;
  product: string;
  indexing: string;
  /** The full-text state but its large parts (the sections and the arrays). */
  state: Omit<FullTextState, 'terms' | 'docs' | 'lists' | 'postings' | 'fieldLengths'>;
  /** Bytes of each JSON section after the header, in `Sections`' order. */
  sections: number[];
  /** Lengths of the three Int32 arrays after the sections. */
  arrays: [lists: number, postings: number, fieldLengths: number];
}

/** Per atom: name, fingerprint, kept name words, kept code words. */
type WordsSection = Array<[name: string, fingerprint: string, nameWords: string, codeWords: string]>;
/** The large parts, each its own JSON text, made and read a turn apart (50,000 atoms: ~40 MB). */
type Sections = [terms: FullTextState['terms'], docs: FullTextState['docs'], words: WordsSection, frequency: LexicalState['frequency']];

/**
 * The snapshot's bytes, or undefined where none can be kept (no secret, a big-endian machine).
 * The state and the fingerprints are read at once; each large part is written out after a
 * `turn`, so a large index does not hold the event loop for the whole of it.
 */
export async function encodeLexicalSnapshot(
  state: LexicalState,
  fingerprint: (name: string) => string | undefined,
  seal: SnapshotSeal,
  turn: () => Promise<void> = async () => {},
): Promise<Buffer | undefined> {
  if (endianness() !== 'LE') return undefined;
  const { terms, docs, lists, postings, fieldLengths, ...rest } = state.index;
  const sections: Sections = [terms, docs, state.words.map(([name, nameWords, codeWords]) => [name, fingerprint(name) ?? '', nameWords, codeWords]), state.frequency];
  const texts: Buffer[] = [];
  for (const section of sections) {
    await turn();
    texts.push(Buffer.from(JSON.stringify(section), 'utf8'));
  }
  const header: Header = {
    format: FORMAT,
    product: VERSION,
    indexing: indexingSignature(),
    state: rest,
    sections: texts.map((t) => t.length),
    arrays: [lists.length, postings.length, fieldLengths.length],
  };
  const bytes = (a: Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  await turn();
  return sealSnapshot(MAGIC, header, texts, [bytes(lists), bytes(postings), bytes(fieldLengths)], seal);
}

/**
 * A search snapshot's bytes (this one's and vectorSnapshot.ts's layout): `magic`, a little-endian
 * u32 length and the header's JSON, the `texts`, zeros to a multiple of 4, the `aligned` parts,
 * then the seal of everything before it; undefined where there is no secret to seal with.
 */
export function sealSnapshot(magic: Buffer, header: object, texts: readonly Uint8Array[], aligned: readonly Uint8Array[], seal: SnapshotSeal): Buffer | undefined {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const before = magic.length + 4 + json.length + texts.reduce((sum, t) => sum + t.length, 0);
  const parts = [magic, length, json, ...texts, Buffer.alloc((4 - (before % 4)) % 4), ...aligned];
  const mac = seal(parts);
  if (!mac || mac.length !== SEAL_BYTES) return undefined;
  return Buffer.concat([...parts, mac]);
}

/** A snapshot read back: the state, and each atom's fingerprint when it was written. */
export interface LexicalSnapshot {
  state: LexicalState;
  fingerprints: Map<string, string>;
}

/**
 * A search snapshot written by `sealSnapshot`, once it proves to start with `magic` and to be sealed
 * on this machine: what its seal covers (`body`), its header as parsed, and where the texts after
 * the header start; else why it cannot be used.
 */
export function openSnapshot(bytes: Buffer, magic: Buffer, kind: string, seal: SnapshotSeal): { body: Buffer; header: unknown; at: number } | string {
  if (bytes.length < magic.length + 4 + SEAL_BYTES || !bytes.subarray(0, magic.length).equals(magic)) return `not a ${kind}`;
  const body = bytes.subarray(0, bytes.length - SEAL_BYTES);
  const mac = seal([body]);
  if (!mac) return 'this machine has no secret to check it with';
  if (!mac.equals(bytes.subarray(bytes.length - SEAL_BYTES))) return 'not sealed on this machine (or damaged)';
  const jsonLength = body.readUInt32LE(magic.length);
  const at = magic.length + 4;
  if (at + jsonLength > body.length) return 'cut short';
  try {
    return { body, header: JSON.parse(body.toString('utf8', at, at + jsonLength)) as unknown, at: at + jsonLength };
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
}

/** The snapshot in `bytes`, or why it cannot be used (not sealed here, another version, cut short...); each large part is read after a `turn`. */
export async function decodeLexicalSnapshot(bytes: Buffer, seal: SnapshotSeal, turn: () => Promise<void> = async () => {}): Promise<LexicalSnapshot | string> {
  if (endianness() !== 'LE') return 'this machine is big-endian';
  const opened = openSnapshot(bytes, MAGIC, 'full-text snapshot', seal);
  if (typeof opened === 'string') return opened;
  const { body } = opened;
  const header = opened.header as Header;
  let at = opened.at;
  try {
    if (header.format !== FORMAT || header.product !== VERSION || header.indexing !== indexingSignature()) return 'written by another version';
    if (header.sections.length !== 4) return 'not as the format says';
    const sections: unknown[] = [];
    for (const size of header.sections) {
      if (!(Number.isInteger(size) && size >= 0 && at + size <= body.length)) return 'cut short';
      await turn();
      sections.push(JSON.parse(body.toString('utf8', at, at + size)));
      at += size;
    }
    at += (4 - (at % 4)) % 4;
    const arrays = header.arrays.map((count) => {
      const end = at + count * 4;
      if (!(Number.isInteger(count) && count >= 0 && end <= body.length)) throw new Error('cut short');
      // A view where the file's bytes start on a multiple of 4 (restore copies them out); else a copy.
      const offset = body.byteOffset + at;
      const array = offset % 4 === 0 ? new Int32Array(body.buffer, offset, count) : new Int32Array(body.buffer.slice(offset, offset + count * 4));
      at = end;
      return array;
    });
    if (at !== body.length) return 'not as long as it says';
    const [terms, docs, wordsSection, frequency] = sections as Sections;
    const fingerprints = new Map<string, string>();
    const words: LexicalState['words'] = [];
    for (const [name, fingerprint, nameWords, codeWords] of wordsSection) {
      fingerprints.set(name, fingerprint);
      words.push([name, nameWords, codeWords]);
    }
    const [lists, postings, fieldLengths] = arrays as [Int32Array, Int32Array, Int32Array];
    return { state: { index: { ...header.state, terms, docs, lists, postings, fieldLengths }, words, frequency }, fingerprints };
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
}
