/**
 * Writes for tests and benchmarks of the store alone, through its one write path (`AtomStore.change`)
 * with the plan given as it is: no dependency completed, no caller linked (the workspace's save does
 * that, atoms/writePlan.ts). What the store's own checks (planChange) refuse is refused here too.
 */
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import type { AtomStore, UpsertResult } from '../../src/store/atomStore.js';

/** Creates or updates one atom. */
export async function upsert(store: AtomStore, draft: AtomDraft): Promise<UpsertResult> {
  return store.change(() => ({ upserts: [draft] }), (_plan, outcome) => outcome.upserts[0]!);
}

/** Creates or updates several atoms, all or nothing. */
export async function upsertMany(store: AtomStore, drafts: AtomDraft[]): Promise<UpsertResult[]> {
  return store.change(() => ({ upserts: drafts }), (_plan, outcome) => outcome.upserts);
}

/** Deletes an atom nothing depends on. */
export async function deleteAtom(store: AtomStore, name: string): Promise<Atom> {
  return store.change(() => ({ upserts: [], deletes: [name] }), (_plan, outcome) => outcome.deleted[0]!);
}
