/**
 * A writer process for the text tree's crash test: opens the workspace with a test-only hook
 * (TextTreeOptions.beforeWrite) that kills the process with SIGKILL right after the store has
 * committed a change and before the atom's file is written, then saves the atoms given as JSON
 * drafts on argv. The parent checks that the next open writes the files.
 */
import { KeywordOnlyProvider } from '../../src/search/embeddings/keyword.js';
import { AtomWorkspace } from '../../src/workspace.js';
import type { AtomDraft } from '../../src/atoms/model.js';

async function main(): Promise<void> {
  const [dir, json] = process.argv.slice(2);
  const drafts = JSON.parse(json!) as AtomDraft[];
  const workspace = await AtomWorkspace.open(dir!, {
    embeddings: new KeywordOnlyProvider(),
    textTree: { beforeWrite: () => process.kill(process.pid, 'SIGKILL') },
  });
  await workspace.upsertMany(drafts);
  process.stdout.write('the file was written: the hook did not run\n');
  await workspace.close();
}

void main();
