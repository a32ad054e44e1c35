/**
 * Per atom, what the text tree last wrote or imported: the hash of the file's bytes, and the hash
 * of the atom (as the file format writes it) that those bytes stand for. Comparing them with the
 * file on disk and the atom in the store says which side is newer:
 *
 * - the file still has the recorded bytes, the atom differs: the store changed (a write whose
 *   file was not written yet, say the process died between the two): write the file;
 * - the file's bytes differ from the record: someone changed the file: import it;
 * - a recorded file is gone: it was removed outside: delete the atom (when nothing uses it).
 *
 * Kept in `.atomic/text-tree` (never committed): a header naming the folder, then one line per
 * change, appended (`name<TAB>fileHash<TAB>atomHash`, or `name<TAB>-` once the file is gone); the
 * last line of a name wins. It is rewritten whole (atomically) at open and close, and when the
 * appended lines outnumber the atoms. A line torn by a crash is skipped: that atom then looks
 * changed on both sides, and the file, whose content is compared with the store's, decides.
 * Written without fsync: it only has to survive the process, not the machine.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomicFile.js';

export interface TextRecord {
  /** Hash of the file's bytes as written or imported. */
  file: string;
  /** Hash of the atom's file text (atomFileText) it stood for. */
  atom: string;
}

const HEADER = '# Atomic Coding text tree: what was last written or imported per atom. Per machine, never commit.';

export class TextRecords {
  private readonly records = new Map<string, TextRecord>();
  private fd: number | undefined;
  private appended = 0;

  /**
   * `folder` is the atoms folder relative to the workspace: records of another folder (the setting
   * changed) are not this one's, and are dropped, so that an empty new folder deletes nothing.
   */
  constructor(
    private readonly file: string,
    private readonly folder: string,
  ) {
    this.read();
  }

  get size(): number {
    return this.records.size;
  }

  get(name: string): TextRecord | undefined {
    return this.records.get(name);
  }

  names(): IterableIterator<string> {
    return this.records.keys();
  }

  set(name: string, record: TextRecord): void {
    const old = this.records.get(name);
    if (old && old.file === record.file && old.atom === record.atom) return;
    this.records.set(name, record);
    this.append(`${name}\t${record.file}\t${record.atom}\n`);
  }

  delete(name: string): void {
    if (!this.records.delete(name)) return;
    this.append(`${name}\t-\n`);
  }

  /** Rewrites the file with the current records only. */
  async compact(): Promise<void> {
    this.closeFile();
    const lines = [...this.records].map(([name, r]) => `${name}\t${r.file}\t${r.atom}\n`);
    await writeFileAtomic(this.file, `${this.headerLine()}\n${lines.join('')}`, 0o644, { durable: false });
    this.appended = 0;
  }

  close(): void {
    this.closeFile();
  }

  private headerLine(): string {
    return `${HEADER} folder=${JSON.stringify(this.folder)}`;
  }

  private read(): void {
    if (!existsSync(this.file)) return;
    const lines = readFileSync(this.file, 'utf8').split('\n');
    if (lines[0] !== this.headerLine()) return; // another folder's, or not ours: start afresh
    for (const line of lines.slice(1)) {
      const [name, file, atom] = line.split('\t');
      if (!name) continue;
      if (file === '-') this.records.delete(name);
      else if (file && atom && /^[0-9a-f]{16}$/.test(file) && /^[0-9a-f]{16}$/.test(atom)) this.records.set(name, { file, atom });
    }
    this.appended = lines.length;
  }

  private append(line: string): void {
    if (this.fd === undefined) {
      const fresh = !existsSync(this.file) || readFileSync(this.file, 'utf8').split('\n', 1)[0] !== this.headerLine();
      this.fd = openSync(this.file, fresh ? 'w' : 'a', 0o644);
      // Start the file over with every record, so a header of another folder never precedes ours.
      if (fresh) writeSync(this.fd, `${this.headerLine()}\n${[...this.records].map(([n, r]) => `${n}\t${r.file}\t${r.atom}\n`).join('')}`);
    }
    writeSync(this.fd, line);
    this.appended++;
  }

  /** Whether the appended lines outnumber the records enough to rewrite the file. */
  get wantsCompaction(): boolean {
    return this.appended > 2 * this.records.size + 1000;
  }

  private closeFile(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
