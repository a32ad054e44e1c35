/**
 * An atom's history, pure: what each version changed, and which version a restore starts from.
 * Shared by the atom_history tool and anything else that offers undo (the tree, commands).
 */
import { AtomError, errors } from './errors.js';
import { codeBytes, type AtomDraft, type AtomVersion } from './model.js';

export type VersionChange = 'created' | 'changed' | 'deleted' | 're-created';

export interface VersionSummary {
  version: number;
  at: string;
  bytes: number;
  change: VersionChange;
  /** For `changed`: the fields that differ from the version before. */
  fields: string[];
  /** An older version with exactly this content, when there is one (a restore, or a change undone by hand). */
  sameAs?: number;
}

/** One summary per version, newest first, as `history` is ordered (AtomStore.history). */
export function summarizeHistory(history: readonly AtomVersion[]): VersionSummary[] {
  return history.map((v, i) => {
    const older = history.slice(i + 1);
    const base = { version: v.version, at: v.updated_at, bytes: codeBytes(v.code) };
    if (v.deleted) return { ...base, change: 'deleted', fields: [] };
    const before = older[0];
    if (!before) return { ...base, change: 'created', fields: [] };
    const sameAs = older.find((o) => !o.deleted && changedFields(o, v).length === 0)?.version;
    const change: VersionChange = before.deleted ? 're-created' : 'changed';
    const fields = before.deleted ? [] : changedFields(before, v);
    return sameAs === undefined ? { ...base, change, fields } : { ...base, change, fields, sameAs };
  });
}

/** Fields whose content differs between two versions, in a fixed order. */
export function changedFields(a: AtomVersion, b: AtomVersion): string[] {
  const out: string[] = [];
  if (a.code !== b.code) out.push('code');
  if (a.type !== b.type) out.push('type');
  if (JSON.stringify(a.inputs) !== JSON.stringify(b.inputs)) out.push('inputs');
  if (JSON.stringify(a.outputs) !== JSON.stringify(b.outputs)) out.push('outputs');
  if (a.dependencies.join() !== b.dependencies.join()) out.push('dependencies');
  if ((a.description ?? '') !== (b.description ?? '')) out.push('description');
  return out;
}

/**
 * The version a restore brings back. Without `version`, a deleted atom comes back as it was
 * last; a live atom needs a version. A deletion marker stands for the version it deleted.
 */
export function versionToRestore(history: readonly AtomVersion[], name: string, live: boolean, version?: number): AtomVersion {
  if (history.length === 0) throw noHistory(name);
  let chosen: AtomVersion | undefined;
  if (version !== undefined) chosen = findVersion(history, name, version);
  else if (!live) chosen = history.find((v) => !v.deleted);
  else {
    throw errors.invalid(`restoring "${name}" needs a version: it exists (v${history.find((v) => !v.deleted)?.version}); list its versions to choose one`);
  }
  if (chosen?.deleted) chosen = history.find((v) => !v.deleted && v.version < chosen!.version) ?? chosen;
  if (!chosen) throw noHistory(name);
  return chosen;
}

export function findVersion(history: readonly AtomVersion[], name: string, version: number): AtomVersion {
  const v = history.find((h) => h.version === version);
  if (!v) throw errors.invalid(`${name} has no version ${version}; it has ${history.map((h) => `v${h.version}`).join(', ')}`);
  return v;
}

/** The upsert that saves `v` again. */
export function draftOf(v: AtomVersion): AtomDraft {
  return {
    name: v.name,
    type: v.type,
    code: v.code,
    inputs: v.inputs,
    outputs: v.outputs,
    dependencies: v.dependencies,
    description: v.description ?? undefined,
  };
}

export function noHistory(name: string): AtomError {
  return new AtomError('not_found', `Atom "${name}" has no history: it never existed. Check the name with get_code_structure.`);
}
