/** Every tool the server offers, in the order agents see them. Keep it at ten or fewer. */
import type { ToolDefinition } from '../tool.js';
import { deleteAtom } from './deleteAtom.js';
import { getCodeStructure } from './getCodeStructure.js';
import { readAtoms } from './readAtoms.js';
import { semanticSearch } from './semanticSearch.js';
import { upsertAtom } from './upsertAtom.js';

export const allTools: ToolDefinition[] = [getCodeStructure, readAtoms, semanticSearch, upsertAtom, deleteAtom] as unknown as ToolDefinition[];
