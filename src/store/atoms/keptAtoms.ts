/**
 * The checked atoms kept beside the database (`.atomic/atoms.bin`), so an open need not take every
 * row out of sql.js and check its seal: at 10,000 atoms that was most of a start's time before the
 * first answer (reading 10,000 rows through sql.js ~0.5 s, their edges and seals ~0.15 s, each
 * seal's HMAC ~0.15 s). It is derived data, written without fsync, and used only where it proves
 * to be what the database and the journal hold:
 *
 * - sealed with this machine's secret (checkSeal.ts's machineMac): a file committed to a
 *   repository, made on another machine, or damaged, is not read;
 * - made by this product's version with these checks (CHECK_VERSION);
 * - for this database: `snapshot` is the digest of atoms.db's bytes as they were written (any
 *   other program's change to the file, an older version's snapshot, another workspace's, is
 *   another digest), and `seq` the last journal entry the kept atoms hold, at least the
 *   snapshot's own and at most the journal's last; the entries after it are applied on top, each
 *   checked as the journal's entries always are (openCheck.ts's checkedEntry);
 * - whole: once they are applied, as many atoms as the `atoms` table has rows. The store writes
 *   the file only when its model holds every row (no row was refused at open), so a row refused
 *   once is refused again, and reported, at every open.
 *
 * The graph (dependencies present, no cycle) is checked at every open as before.
 *
 * Layout: MAGIC, a little-endian u32 length and the header's JSON, the atoms' fields but their
 * code as one JSON array, each code's length in UTF-8 bytes (u32, little-endian), the codes one
 * after the other, then the 32-byte seal of everything before it.
 */
import { createHash } from 'node:crypto';
import type { Atom, AtomExample, AtomType, Port } from '../../atoms/model.js';
import { isAtomType } from '../../atoms/model.js';
import { VERSION } from '../../version.js';
import { CHECK_VERSION } from '../checkSeal.js';

/** Seals bytes with this machine's secret (null where there is none: nothing is kept then). */
export type KeptSeal = (parts: readonly Uint8Array[]) => Buffer | null;

const MAGIC = Buffer.from('ACATOM01', 'latin1');
const SEAL_BYTES = 32;
/** Raise when the layout or the header's shape changes. */
const FORMAT = 1;

/** Which state of which database the kept atoms are. */
export interface KeptKey {
  /** The digest of the atoms.db snapshot they grew from (`snapshotDigest`). */
  snapshot: string;
  /** The last journal entry they hold. */
  seq: number;
}

interface Header extends KeptKey {
  format: number;
  product: string;
  check: number;
  count: number;
  /** Bytes of the fields' JSON. */
  fields: number;
}

/** Per atom, everything but its code. */
type Fields = [name: string, type: AtomType, description: string | null, inputs: Port[], outputs: Port[], dependencies: string[], version: number, created_at: string, updated_at: string, examples: AtomExample[] | null];

/**
 * The file's bytes for `atoms` (sorted by name, as the model keeps them) at `key`, or undefined
 * without a secret. A `turn` between the parts, so a large workspace does not hold the event loop
 * for the whole of it.
 */
export async function encodeKeptAtoms(atoms: readonly Atom[], key: KeptKey, seal: KeptSeal, turn: () => Promise<void> = async () => {}): Promise<Buffer | undefined> {
  const fields = Buffer.from(
    JSON.stringify(atoms.map((a): Fields => [a.name, a.type, a.description, a.inputs, a.outputs, a.dependencies, a.version, a.created_at, a.updated_at, a.examples && a.examples.length > 0 ? a.examples : null])),
    'utf8',
  );
  await turn();
  const lengths = new Uint32Array(atoms.length);
  let total = 0;
  for (let i = 0; i < atoms.length; i++) total += lengths[i] = Buffer.byteLength(atoms[i]!.code, 'utf8');
  const codes = Buffer.allocUnsafe(total);
  let at = 0;
  for (const a of atoms) at += codes.write(a.code, at, 'utf8');
  const header: Header = { format: FORMAT, product: VERSION, check: CHECK_VERSION, snapshot: key.snapshot, seq: key.seq, count: atoms.length, fields: fields.length };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const parts = [MAGIC, length, json, fields, littleEndian(lengths), codes];
  await turn();
  const mac = seal(parts);
  if (!mac || mac.length !== SEAL_BYTES) return undefined;
  return Buffer.concat([...parts, mac]);
}

/** A file read back: its key at once (from its first bytes), its atoms when asked (the whole file read and its seal checked then). */
export interface KeptAtomsFile {
  key: KeptKey;
  /** The atoms by name, or why they cannot be used (not sealed here, damaged...). */
  atoms(): Map<string, Atom> | string;
}

/** A header is never longer than this: a file's first HEAD_BYTES hold it (`readKeptAtoms`'s `head`). */
export const HEAD_BYTES = 64 * 1024;

/**
 * Reads the header in `head` (the file's first bytes: HEAD_BYTES, or the whole file if shorter):
 * the file's key, or why it is not one this version can use. The whole file (`whole()`), its seal
 * and its atoms are read only by `atoms()`, once the key matches the database: a file left behind
 * by a crash costs its first bytes, not its reading and decoding.
 */
export function readKeptAtoms(head: Buffer, whole: () => Buffer, seal: KeptSeal): KeptAtomsFile | string {
  if (head.length < MAGIC.length + 4 || !head.subarray(0, MAGIC.length).equals(MAGIC)) return 'not a file of kept atoms';
  const start = MAGIC.length + 4 + head.readUInt32LE(MAGIC.length);
  if (start > head.length) return start > HEAD_BYTES ? 'not as the format says' : 'cut short';
  let header: Header;
  try {
    header = JSON.parse(head.toString('utf8', MAGIC.length + 4, start)) as Header;
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
  if (header.format !== FORMAT || header.product !== VERSION || header.check !== CHECK_VERSION) return 'written by another version';
  if (typeof header.snapshot !== 'string' || !Number.isSafeInteger(header.seq) || !Number.isSafeInteger(header.count) || !Number.isSafeInteger(header.fields)) return 'not as the format says';
  return {
    key: { snapshot: header.snapshot, seq: header.seq },
    atoms: () => {
      let bytes: Buffer;
      try {
        bytes = whole();
      } catch (err) {
        return `unreadable (${(err as Error).message})`;
      }
      // The file read whole must be the one whose header was read (it may have been replaced since).
      if (bytes.length < start + SEAL_BYTES || !bytes.subarray(0, start).equals(head.subarray(0, start))) return 'changed while it was read';
      const body = bytes.subarray(0, bytes.length - SEAL_BYTES);
      const mac = seal([body]);
      if (!mac) return 'this machine has no secret to check it with';
      if (!mac.equals(bytes.subarray(bytes.length - SEAL_BYTES))) return 'not sealed on this machine (or damaged)';
      try {
        return decodeAtoms(body, start, header);
      } catch (err) {
        return `unreadable (${(err as Error).message})`;
      }
    },
  };
}

function decodeAtoms(body: Buffer, start: number, header: Header): Map<string, Atom> | string {
  const { count } = header;
  let at = start + header.fields;
  const lengthsEnd = at + count * 4;
  if (header.fields < 0 || count < 0 || lengthsEnd > body.length) return 'cut short';
  const rows = JSON.parse(body.toString('utf8', start, at)) as unknown;
  if (!Array.isArray(rows) || rows.length !== count) return 'not as the format says';
  const lengths = body.subarray(at, lengthsEnd);
  at = lengthsEnd;
  const atoms = new Map<string, Atom>();
  for (let i = 0; i < count; i++) {
    const length = lengths.readUInt32LE(i * 4);
    if (at + length > body.length) return 'cut short';
    const atom = atomOf(rows[i] as unknown, body.toString('utf8', at, at + length));
    at += length;
    if (!atom || atoms.has(atom.name)) return 'not as the format says';
    atoms.set(atom.name, atom);
  }
  return at === body.length ? atoms : 'not as long as it says';
}

/** The atom a row and its code stand for (as the model holds it), or undefined when the row is not shaped as written. */
function atomOf(row: unknown, code: string): Atom | undefined {
  if (!Array.isArray(row) || row.length !== 10) return undefined;
  const [name, type, description, inputs, outputs, dependencies, version, created_at, updated_at, examples] = row as Fields;
  if (typeof name !== 'string' || !isAtomType(type) || (description !== null && typeof description !== 'string')) return undefined;
  if (!Array.isArray(inputs) || !Array.isArray(outputs) || !Array.isArray(dependencies) || !dependencies.every((d) => typeof d === 'string')) return undefined;
  if (!Number.isSafeInteger(version) || typeof created_at !== 'string' || typeof updated_at !== 'string') return undefined;
  if (examples !== null && !(Array.isArray(examples) && examples.length > 0)) return undefined;
  return { name, type, code, description, inputs, outputs, dependencies, version, created_at, updated_at, ...(examples !== null ? { examples } : {}) };
}

/**
 * The digest of a snapshot of atoms.db (its bytes as written, or as read without the room after
 * them): SHA-256, ~15 ms for the 22 MB of 10,000 atoms.
 */
export function snapshotDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

/** The array's bytes, little-endian whatever the machine. */
function littleEndian(values: Uint32Array): Buffer {
  const out = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeUInt32LE(values[i]!, i * 4);
  return out;
}
