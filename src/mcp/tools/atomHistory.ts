import { z } from 'zod';
import { AtomError, errors } from '../../atoms/errors.js';
import { codeBytes, type AtomVersion } from '../../atoms/model.js';
import { formatSignature } from '../../atoms/signature.js';
import { formatAtom } from '../format.js';
import { atomName } from '../schemas.js';
import { defineTool } from '../tool.js';
import { rebuildNote } from './upsertAtom.js';

const OPERATIONS = ['list', 'show', 'restore', 'deleted'] as const;

export const atomHistory = defineTool({
  name: 'atom_history',
  title: 'Atom history and undo',
  description:
    'Every saved version of an atom is kept, including deleted atoms. Use it to see how an atom changed, to undo a change, or to bring back a deleted atom ' +
    '(changes made through MCP bypass the editor\'s undo; this is the undo). ' +
    'operation: "list" (versions of `name`, newest first: version, time, size, what changed), "show" (the code of `version`), ' +
    '"restore" (save `version` again as a new version, validated like upsert_atom; for a deleted atom, version defaults to its last one), ' +
    '"deleted" (atoms that were deleted and can be restored).',
  input: {
    operation: z.enum(OPERATIONS).describe('list, show, restore or deleted'),
    name: atomName.optional().describe('The atom (list, show, restore)'),
    version: z.number().int().min(1).optional().describe('The version to show or restore (show defaults to the newest)'),
    limit: z.number().int().min(1).max(1000).optional().describe('Most versions or atoms to list (default 50)'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ operation, name, version, limit = 50 }, { workspace }) {
    const store = workspace.store;
    if (operation === 'deleted') {
      const deleted = store.deletedAtoms();
      if (deleted.length === 0) return 'No deleted atoms.';
      const shown = deleted.slice(0, limit).map((d) => `  ${d.name}  deleted ${d.deleted_at} (last version v${d.version - 1})`);
      if (deleted.length > limit) shown.push(`  … ${deleted.length - limit} more`);
      return [`${deleted.length} deleted atom${deleted.length === 1 ? '' : 's'} (restore with operation "restore"):`, ...shown].join('\n');
    }
    if (!name) throw errors.invalid(`atom_history operation "${operation}" needs name: the atom whose history you want`);
    const history = store.history(name);
    if (history.length === 0) throw new AtomError('not_found', `Atom "${name}" has no history: it never existed. Check the name with get_code_structure.`);

    if (operation === 'list') {
      const lines = history.slice(0, limit).map((v, i) => `  ${describeVersion(v, history.slice(i + 1))}`);
      if (history.length > limit) lines.push(`  … ${history.length - limit} older versions (raise limit to see them)`);
      const state = store.has(name) ? `current v${store.get(name)!.version}` : 'deleted';
      return [`${name}: ${history.length} version${history.length === 1 ? '' : 's'} (${state}), newest first:`, ...lines].join('\n');
    }

    if (operation === 'show') {
      const v = version === undefined ? history[0]! : pick(history, name, version);
      const note = v.deleted ? ' (deletion marker: the code as it was when deleted)' : '';
      return formatAtom(v, `=== ${v.name} (${v.type}) v${v.version}, saved ${v.updated_at}${note} ===`);
    }

    // restore
    const live = store.get(name);
    let source: AtomVersion;
    if (version !== undefined) source = pick(history, name, version);
    else if (!live) source = history.find((v) => !v.deleted)!;
    else throw errors.invalid(`atom_history restore needs version: "${name}" exists (v${live.version}); list its versions to choose one`);
    if (source.deleted) source = history.find((v) => !v.deleted && v.version < source.version) ?? source;
    let outcome;
    try {
      outcome = await workspace.upsert({
        name: source.name,
        type: source.type,
        code: source.code,
        inputs: source.inputs,
        outputs: source.outputs,
        dependencies: source.dependencies,
        description: source.description ?? undefined,
      });
    } catch (err) {
      if (err instanceof AtomError && err.code === 'dependencies_not_found') {
        throw new AtomError(err.code, `cannot restore ${name} v${source.version}: ${err.message} (atom_history "deleted" lists atoms that can be restored first)`);
      }
      throw err;
    }
    const atom = outcome.result.atom;
    if (outcome.result.previous && atom === outcome.result.previous) {
      return `Atom "${name}" v${atom.version} already has the content of v${source.version}: nothing changed.`;
    }
    return (
      `Atom "${name}" restored from v${source.version} as v${atom.version} (${atom.type}). Signature: ${formatSignature(atom)}. ` +
      `Dependencies: [${atom.dependencies.join(', ')}]. ${rebuildNote(outcome.build)}`
    );
  },
});

function pick(history: AtomVersion[], name: string, version: number): AtomVersion {
  const v = history.find((h) => h.version === version);
  if (!v) throw errors.invalid(`${name} has no version ${version}; it has ${history.map((h) => `v${h.version}`).join(', ')}`);
  return v;
}

/** `v3  2026-…  412 B  changed code, dependencies` against the version before it. */
function describeVersion(v: AtomVersion, older: AtomVersion[]): string {
  const head = `v${v.version}  ${v.updated_at}  ${codeBytes(v.code)} B`;
  if (v.deleted) return `${head}  deleted`;
  const before = older[0];
  if (!before) return `${head}  created`;
  if (before.deleted) return `${head}  re-created after deletion${sameAsOlder(v, older)}`;
  const changed = changedFields(before, v);
  return `${head}  changed ${changed.length ? changed.join(', ') : 'nothing'}${sameAsOlder(v, older.slice(1))}`;
}

function sameAsOlder(v: AtomVersion, older: AtomVersion[]): string {
  const match = older.find((o) => !o.deleted && changedFields(o, v).length === 0);
  return match ? ` (same as v${match.version})` : '';
}

function changedFields(a: AtomVersion, b: AtomVersion): string[] {
  const out: string[] = [];
  if (a.code !== b.code) out.push('code');
  if (a.type !== b.type) out.push('type');
  if (JSON.stringify(a.inputs) !== JSON.stringify(b.inputs)) out.push('inputs');
  if (JSON.stringify(a.outputs) !== JSON.stringify(b.outputs)) out.push('outputs');
  if (a.dependencies.join() !== b.dependencies.join()) out.push('dependencies');
  if ((a.description ?? '') !== (b.description ?? '')) out.push('description');
  return out;
}
