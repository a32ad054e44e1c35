/**
 * run_atom on atoms that build a page: the stub elements hold children, attributes and data, answer
 * the common queries (querySelector(All), closest, matches), and a method a real element has and the
 * stub does not says so by name instead of "not a function".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openInProcess, wordsOnly, type InProcessServer } from '../support/inProcess.js';

let server: InProcessServer;
before(async () => {
  server = await openInProcess({ embeddings: wordsOnly });
});
after(() => server.close());

test('an atom that renders a list and queries it runs against the stubs', async () => {
  await server.call('upsert_atom', {
    name: 'render_list',
    type: 'feature',
    outputs: [{ name: 'count', type: 'number' }],
    code:
      "function render_list() {\n  const list = document.createElement('ul');\n  document.body.appendChild(list);\n" +
      "  for (const t of ['a', 'b', 'c']) {\n    const li = document.createElement('li');\n    const button = document.createElement('button');\n" +
      "    button.dataset.action = 'remove';\n    li.appendChild(button);\n    list.append(li);\n  }\n" +
      "  const first = list.querySelector('[data-action=\"remove\"]');\n  if (first.closest('ul') !== list) throw new Error('closest');\n" +
      "  return document.querySelectorAll('li').length + list.querySelectorAll('button').length;\n}",
  });
  const r = await server.call('run_atom', { name: 'render_list' });
  assert.match(r.text, /^render_list returned 6 in /);
});

test('a method the stub lacks is named, with what to do', async () => {
  await server.call('upsert_atom', {
    name: 'open_dialog',
    type: 'feature',
    code: "function open_dialog() {\n  document.createElement('dialog').showModal();\n}",
  });
  const r = await server.call('run_atom', { name: 'open_dialog' });
  assert.match(r.text, /showModal\(\) is not in the sandbox stub element \(run_atom has no real DOM\)/);
});
