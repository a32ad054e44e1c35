/**
 * From the files to the store's parts: the snapshot read, the journal after it replayed (each
 * atom checked at open, openCheck.ts), and what the model, the embeddings and the build records
 * start from. `applyEntry` is the one mapping from a journal entry to the tables' SQL, used by
 * replay here and by every commit.
 */
import type { Atom } from '../atoms/model.js';
import type { Logger } from '../util/log.js';
import { nextTurn } from '../util/turn.js';
import { countAtomRows, deleteAtomRow, readAtomRows, writeAtom, writeSeals, writeTombstone } from './atoms/table.js';
import { BuildRecords, readLastBuild } from './builds.js';
import { StoreDatabase } from './database.js';
import { deleteEmbedding, legacyOf, readEmbeddingSlots, readLegacyVectors, writeEmbeddings, type EmbeddingSlots, type LegacyVector } from './vectors/stored.js';
import { readJournal, type JournalEntry } from './journal.js';
import { checkAtomRows, checkedEntry, checkKeptAtoms, type OpenReport } from './openCheck.js';
import type { KeptAtomsFile, KeptKey } from './atoms/keptAtoms.js';

/** Everything a load reads, installed by the store only once the whole load has succeeded. */
export interface Loaded {
  database: StoreDatabase;
  /** The last journal sequence number the database holds. */
  seq: number;
  /** Journal entries applied after the snapshot (they count toward the next compaction). */
  replayed: number;
  /**
   * The database differs from the snapshot in ways no journal entry holds (a schema migration,
   * seals of rows checked in full): a snapshot is due, so the next open starts from them.
   */
  unsaved: boolean;
  /** Where the journal's intact part ends, and where the file ends (a torn tail is cut off). */
  journal: { validBytes: number; totalBytes: number };
  /** The atoms that passed the check at open, sorted by name. */
  atoms: Atom[];
  /** Their names in dependency order, as the bundle lays them out (the check sorted them). */
  order: string[];
  /** The loaded atoms' vector slots, and every slot the database names (vectors.bin holds the vectors). */
  embeddings: EmbeddingSlots;
  /**
   * Vectors of loaded atoms as schema 2 kept them (in its `embeddings` table, or in `emb` journal
   * rows), newest last: the store moves them into vectors.bin and empties that table.
   */
  legacyVectors: LegacyVector[];
  /** The last build, its order as the journal left it (held in memory until the next snapshot). */
  builds: BuildRecords;
  report: OpenReport;
  /** Where the atoms came from: the kept atoms' file (its key), or the rows (why not the file, if there was one). */
  keptAtoms: { used: KeptKey } | { refused: string } | undefined;
}

/**
 * Reads the snapshot `bytes` (none: a new database) and replays the journal after it. Changes no
 * file. Throws what the database or its schema throws; nothing is left open then. The atoms come
 * from `kept` (the file of kept atoms, keptAtoms.ts) where it is this snapshot's (`snapshot`: the
 * digest of `bytes` as the file holds them), else from its rows.
 */
export async function readStore(
  bytes: Uint8Array | undefined,
  dbFile: string,
  journalFile: string,
  log: Logger,
  kept?: { file: KeptAtomsFile; snapshot: string },
): Promise<Loaded> {
  const { database, removed, changed, vacuum } = await StoreDatabase.open(bytes, dbFile);
  try {
    // Turns between the steps of a large open, so whoever serves meanwhile can answer (early-tools).
    await nextTurn();
    const report: OpenReport = { refused: [], removed };
    const snapshotSeq = Number(database.metaValue('journal_seq') ?? '0');
    let seq = snapshotSeq;
    let replayed = 0;
    const { entries, validBytes, totalBytes } = readJournal(journalFile);
    if (totalBytes > validBytes) {
      log.warn(`journal: dropped ${totalBytes - validBytes} bytes of a write torn by a crash (it was never acknowledged)`);
    }
    const journalVectors: LegacyVector[] = [];
    // The journal's build orders are changes to the one before, starting from the snapshot's.
    const builds = new BuildRecords(readLastBuild(database));
    // The kept atoms, when they are this snapshot's and not ahead of its journal: they take the later entries as the rows do.
    let keptAtoms: Loaded['keptAtoms'];
    let fromFile: Map<string, Atom> | undefined;
    if (kept) {
      const last = entries.length > 0 ? Math.max(snapshotSeq, entries[entries.length - 1]!.seq) : snapshotSeq;
      const { key } = kept.file;
      if (key.snapshot !== kept.snapshot) keptAtoms = { refused: 'written for another atoms.db' };
      else if (key.seq < snapshotSeq || key.seq > last) keptAtoms = { refused: `written at journal entry ${key.seq}, not between ${snapshotSeq} and ${last}` };
      else {
        const read = kept.file.atoms();
        if (typeof read === 'string') keptAtoms = { refused: read };
        else fromFile = read;
      }
    }
    for (const entry of entries) {
      if (entry.seq <= snapshotSeq) continue;
      for (const op of entry.ops) if (op?.op === 'emb' && Array.isArray(op.rows)) journalVectors.push(...op.rows.map(legacyOf).filter((v) => v !== undefined));
      const refusedBefore = report.refused.length;
      const checked = checkedEntry(entry, report.refused);
      applyEntry(database, checked, builds);
      if (fromFile && entry.seq <= kept!.file.key.seq && report.refused.length > refusedBefore) {
        // They hold what this entry put, and the rows will not: the rows decide.
        keptAtoms = { refused: `journal entry ${entry.seq}, which they hold, is refused now` };
        fromFile = undefined;
      } else if (fromFile && entry.seq > kept!.file.key.seq) {
        for (const op of checked.ops) {
          if (op.op === 'put') fromFile.set(op.atom.name, op.atom);
          else if (op.op === 'del') fromFile.delete(op.name);
        }
      }
      seq = entry.seq;
      replayed++;
    }
    await nextTurn();
    const rowCount = fromFile ? countAtomRows(database) : 0;
    if (fromFile && fromFile.size !== rowCount) {
      keptAtoms = { refused: `holds ${fromFile.size} atoms where atoms.db has ${rowCount} rows` };
      fromFile = undefined;
    }
    const sealed = new Map<string, string>();
    let checkedAtoms: { atoms: Atom[]; order: string[] };
    if (fromFile) {
      keptAtoms = { used: kept!.file.key };
      checkedAtoms = checkKeptAtoms(fromFile, report.refused);
    } else {
      const rows = readAtomRows(database);
      await nextTurn();
      checkedAtoms = await checkAtomRows(rows, report.refused, sealed);
    }
    const { atoms, order } = checkedAtoms;
    await nextTurn();
    if (sealed.size > 0) database.transaction(() => writeSeals(database, sealed));
    // Once, after a migration: the snapshot is written without the space the old layout left free.
    if (vacuum) database.vacuum();
    const names = new Set(atoms.map((a) => a.name));
    // Rows of atoms not loaded are left where they are.
    const loaded = (name: string) => names.has(name);
    const embeddings = readEmbeddingSlots(database, loaded);
    const legacyVectors = [...readLegacyVectors(database, loaded), ...journalVectors.filter((v) => loaded(v.name))];
    const unsaved = changed || sealed.size > 0;
    return {
      database, seq, replayed, unsaved, journal: { validBytes, totalBytes }, atoms, order, embeddings, legacyVectors, builds, report, keptAtoms,
    };
  } catch (err) {
    database.close();
    throw err;
  }
}

/** One journal entry, in one transaction: each op by the SQL of the table that owns it (a build's by `builds`). */
export function applyEntry(db: StoreDatabase, entry: JournalEntry, builds: BuildRecords): void {
  db.transaction(() => {
    for (const op of entry.ops) {
      switch (op.op) {
        case 'put':
          writeAtom(db, op.atom);
          break;
        case 'del':
          writeTombstone(db, op);
          deleteEmbedding(db, op.name);
          deleteAtomRow(db, op.name);
          break;
        case 'emb':
          writeEmbeddings(db, op.rows);
          break;
        case 'build':
          builds.write(db, op);
          break;
      }
    }
  });
}
