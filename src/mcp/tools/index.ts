/** Every tool the server offers, in the order agents see them. Keep the list short (twelve now). */
import type { ToolDefinition } from '../tool.js';
import { atomHistory } from './atomHistory.js';
import { deleteAtom } from './deleteAtom.js';
import { getCodeStructure } from './getCodeStructure.js';
import { getStatus } from './getStatus.js';
import { queryGraph } from './queryGraph.js';
import { readAtoms } from './readAtoms.js';
import { renameAtom } from './renameAtom.js';
import { runAtom } from './runAtom.js';
import { semanticSearch } from './semanticSearch.js';
import { testAtoms } from './testAtoms.js';
import { upsertAtom } from './upsertAtom.js';
import { upsertAtoms } from './upsertAtoms.js';

export const allTools: ToolDefinition[] = [
  // The contract's five.
  getCodeStructure,
  readAtoms,
  semanticSearch,
  upsertAtom,
  deleteAtom,
  // Working like a careful engineer: change several atoms together, ask the graph, test, undo, check.
  upsertAtoms,
  renameAtom,
  queryGraph,
  runAtom,
  testAtoms,
  atomHistory,
  getStatus,
] as unknown as ToolDefinition[];
