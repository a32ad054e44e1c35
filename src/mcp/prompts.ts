/**
 * Prompts: ready-made instructions a person can pick in their agent's UI (e.g. a slash command)
 * to start the usual atom workflows the right way.
 */
import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';

interface PromptDefinition extends Prompt {
  render(args: Record<string, string>): string;
}

const PROMPTS: PromptDefinition[] = [
  {
    name: 'create_atom',
    title: 'Create an atom',
    description: 'Add a new piece of behaviour as one or more atoms, reusing what exists.',
    arguments: [{ name: 'goal', description: 'What the new code should do, in plain words', required: true }],
    render: ({ goal }) =>
      `Goal: ${goal}\n\n` +
      '1. Call get_code_structure (and semantic_search, if available) to find atoms that already do part of this.\n' +
      '2. read_atoms on the ones you will call or change.\n' +
      '3. Write each new function as its own atom with upsert_atom: one function declaration named like the atom, ' +
      'at most 2,048 bytes, primitive-typed inputs and outputs, a one-line description, and every atom it calls listed in dependencies. ' +
      'Create helpers before the atoms that use them.\n' +
      '4. If an entry point (a core atom such as game_loop) should use it, update that atom too. The bundle boots the core atom named ' +
      'game_loop, else main, else the last core atom, as soon as latest.js loads.\n' +
      '5. State that several atoms share (a score, a snake, settings) cannot travel through ports, which are primitives only: keep it in ' +
      'one core atom such as `function game_state(key, value) { const store = game_state.store || (game_state.store = {}); if (value !== undefined) store[key] = value; return store[key]; }` ' +
      '(inputs key: string, value: number optional; output: number) and call it from the others (declare it in their dependencies).\n' +
      '6. Prove it: give each util atom two or three examples ([{ "args": [...], "returns": value }]), and add one test atom per feature ' +
      '(type test, no inputs) that calls it as the game would, checks the outcome with assert(condition, message), and is never bundled. ' +
      'Read the end of each write\'s answer ("Examples: 3 passed." or what failed) and fix what it names.',
  },
  {
    name: 'build_app',
    title: 'Build a web app',
    description: 'An app with records, a DOM and events, persisted across reloads, in the patterns that work with atoms.',
    arguments: [{ name: 'goal', description: 'What the app should let a person do', required: true }],
    render: ({ goal }) =>
      `Goal: ${goal}\n\n` +
      '1. get_code_structure and semantic_search (detail: "summary") for atoms that already do part of it.\n' +
      '2. State: one util atom app_state(key, value) => string over an object kept on the function (app_state.store). ' +
      'A record is fields under "<kind>:<id>:<field>" keys; write one accessor per field you read (card_title(id) => string) and a list atom ' +
      '(card_ids() => string[]). save_x and load_x keep the store in localStorage (JSON).\n' +
      '3. Features as atoms that change the records (add_card(title) => string id, remove_card(id)), and render atoms that build the DOM ' +
      'with createElement and textContent, putting data-action and data-id on the elements a person clicks.\n' +
      '4. main (core) loads the state, builds the page and wires every event once: one delegated listener reading data-action. ' +
      'Atoms are not globals, so no inline onclick; main is what latest.js boots.\n' +
      '5. A test atom (type test) per feature: calls it, checks the records with assert(condition, message). Read the end of every answer ' +
      '(tests, warnings, callers to update) and fix what it names.',
  },
  {
    name: 'split_atom',
    title: 'Split a large atom',
    description: 'Break an atom that is near the 2 KB limit or does several things into smaller atoms.',
    arguments: [{ name: 'name', description: 'The atom to split', required: true }],
    render: ({ name }) =>
      `Split the atom "${name}".\n\n` +
      `1. read_atoms ["${name}"] and get_code_structure to see who depends on it.\n` +
      '2. Find the separate steps inside it; each becomes a util or feature atom with primitive inputs and outputs.\n' +
      `3. upsert_atom each new helper first, then upsert_atom "${name}" calling them, with the helpers in its dependencies. ` +
      'Keep its name and signature so its dependents keep working.',
  },
];

export function listPrompts(): Prompt[] {
  return PROMPTS.map(({ render: _render, ...prompt }) => prompt);
}

export function getPrompt(name: string, args: Record<string, string> = {}): GetPromptResult {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${name}". Available prompts: ${PROMPTS.map((p) => p.name).join(', ')}`);
  for (const a of prompt.arguments ?? []) {
    if (a.required && !args[a.name]?.trim()) throw new McpError(ErrorCode.InvalidParams, `prompt ${name} needs the argument "${a.name}": ${a.description}`);
  }
  return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args) } }] };
}
