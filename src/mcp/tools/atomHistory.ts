import { z } from 'zod';
import { AtomError, errors } from '../../atoms/errors.js';
import { findVersion, noHistory, summarizeHistory, type VersionSummary } from '../../atoms/history.js';
import { formatSignature } from '../../atoms/signature.js';
import { atomNoteLines, writeNoteLines } from '../../atoms/writeChecks.js';
import { formatAtom } from '../format.js';
import { atomRef } from '../schemas.js';
import { defineTool } from '../tool.js';
import { rebuildNote } from './upsertAtom.js';

const OPERATIONS = ['list', 'show', 'restore', 'deleted'] as const;

export const atomHistory = defineTool({
  name: 'atom_history',
  title: 'Atom history and undo',
  description:
    'The undo: list the versions of name (newest first), show one, restore one as a new version, ' +
    'or list deleted atoms (use restore to bring one back).',
  input: {
    operation: z.enum(OPERATIONS),
    name: atomRef.optional(),
    version: z.number().int().min(1).optional().describe('Default: the newest (a deleted atom: its last)'),
    limit: z.number().int().min(1).max(1000).optional().describe('Default 50'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ operation, name, version, limit = 50 }, { workspace }) {
    const store = workspace.atoms;
    if (operation === 'deleted') {
      const deleted = store.deletedAtoms();
      if (deleted.length === 0) return 'No deleted atoms.';
      const shown = deleted.slice(0, limit).map((d) => `  ${d.name}  deleted ${d.deleted_at} (last version v${d.version - 1})`);
      if (deleted.length > limit) shown.push(`  … ${deleted.length - limit} more`);
      return [`${deleted.length} deleted atom${deleted.length === 1 ? '' : 's'} (restore with operation "restore"):`, ...shown].join('\n');
    }
    if (!name) throw errors.invalid(`atom_history operation "${operation}" needs name: the atom whose history you want`);

    if (operation === 'restore') {
      let restored;
      try {
        restored = await workspace.restore(name, version);
      } catch (err) {
        if (err instanceof AtomError && err.code === 'dependencies_not_found') {
          throw new AtomError(err.code, `${err.message}; atom_history "deleted" lists the atoms that can be restored`);
        }
        throw err;
      }
      const { from, result, build, notes, renamedTo } = restored;
      const atom = result.atom;
      // A name renamed away lives on under its new name: a restore brings back a second atom, not the one renamed.
      const renamed = renamedTo
        ? [
            `"${name}" had been renamed to "${renamedTo}", which still exists (its callers call it): this brought back a second atom ` +
              `under the old name. To undo the rename instead, delete_atom "${name}", then rename_atom "${renamedTo}" to "${name}".`,
          ]
        : [];
      if (result.previous && atom === result.previous) {
        return `Atom "${name}" v${atom.version} already has the content of v${from.version}: nothing changed.`;
      }
      // What a restore did beyond the old version, said as an upsert says it (callers linked again, the boot moved).
      return [
        `Atom "${name}" restored from v${from.version} as v${atom.version} (${atom.type}). Signature: ${formatSignature(atom)}. ` +
          `Dependencies: [${atom.dependencies.join(', ')}]. ${rebuildNote(build)}`,
        ...renamed,
        ...atomNoteLines(notes.atoms.get(atom.name)),
        ...writeNoteLines(notes),
      ].join('\n');
    }

    const history = store.history(name);
    if (history.length === 0) throw noHistory(name);
    if (operation === 'show') {
      const v = version === undefined ? history[0]! : findVersion(history, name, version);
      const note = v.deleted ? ' (deletion marker: the code as it was when deleted)' : '';
      return formatAtom(v, `=== ${v.name} (${v.type}) v${v.version}, saved ${v.updated_at}${note} ===`);
    }
    // list
    const summaries = summarizeHistory(history);
    const lines = summaries.slice(0, limit).map((s) => `  ${describe(s)}`);
    if (history.length > limit) lines.push(`  … ${history.length - limit} older versions (raise limit to see them)`);
    const renamedTo = workspace.renamedTo(name);
    const state = store.has(name) ? `current v${store.get(name)!.version}` : renamedTo ? `deleted: renamed to "${renamedTo}"` : 'deleted';
    return [`${name}: ${history.length} version${history.length === 1 ? '' : 's'} (${state}), newest first:`, ...lines].join('\n');
  },
});

/** `v3  2026-…  412 B  changed code, dependencies (same as v1)` */
function describe(s: VersionSummary): string {
  const what =
    s.change === 'changed' ? `changed ${s.fields.length ? s.fields.join(', ') : 'nothing'}` : s.change === 're-created' ? 're-created after deletion' : s.change;
  return `v${s.version}  ${s.at}  ${s.bytes} B  ${what}${s.sameAs !== undefined ? ` (same as v${s.sameAs})` : ''}`;
}
