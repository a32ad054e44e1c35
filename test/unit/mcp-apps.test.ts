/** The graph app's pure parts (media/apps/structure.ts), resource links and tool icons (issue 17). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { focusOf, parseStructure, snapshotOf } from '../../media/apps/structure.js';
import { resourceLinks, MAX_LINKS } from '../../src/mcp/links.js';
import { toolIcons, TOOL_KINDS } from '../../src/mcp/icons.js';
import { allTools } from '../../src/mcp/tools/index.js';

const json = JSON.stringify([
  { name: 'cfg', type: 'util', inputs: [], outputs: [{ name: 'g', type: 'number' }], depends_on: [] },
  { name: 'jump', type: 'feature', inputs: [{ name: 'v', type: 'number' }], outputs: [], depends_on: ['cfg'] },
  { name: 'game_loop', type: 'core', inputs: [], outputs: [], depends_on: ['jump'] },
]);

test("get_code_structure's JSON and minimal lines both become the editor's snapshot", () => {
  const full = snapshotOf(parseStructure(json)!);
  assert.deepEqual(full.atoms.map((a) => [a.name, a.type, a.dependencies, a.signature]), [
    ['cfg', 'util', [], '() => number'],
    ['jump', 'feature', ['cfg'], '(v: number) => void'],
    ['game_loop', 'core', ['jump'], '() => void'],
  ]);
  assert.equal(full.entry, 'game_loop');
  const minimal = parseStructure('3 atoms (name type -> dependencies):\ncfg util\njump feature -> cfg\ngame_loop core -> jump');
  assert.deepEqual(snapshotOf(minimal!).atoms.map((a) => a.dependencies), [[], ['cfg'], ['jump']]);
  for (const other of ['Error: No atoms found with names: x', 'No dependency cycles.', '[1, 2]', '[{"name": "a", "type": "gadget"}]']) {
    assert.equal(parseStructure(other), null, other);
  }
});

test('a query_graph call lights up the atom it asked about', () => {
  assert.deepEqual(focusOf({ operation: 'impact', name: 'cfg' }), { name: 'cfg', mode: 'graph', impact: true });
  assert.deepEqual(focusOf({ operation: 'dependencies', name: 'jump', transitive: true }), { name: 'jump', mode: 'needs', impact: false });
  assert.deepEqual(focusOf({ operation: 'dependents', name: 'cfg', transitive: true }), { name: 'cfg', mode: 'neededBy', impact: false });
  assert.equal(focusOf({ operation: 'cycles' }), null);
});

test('upserts and reads link their atoms, at most MAX_LINKS; other tools link nothing', () => {
  assert.deepEqual(resourceLinks('upsert_atom', { name: 'cfg' }), [{ type: 'resource_link', uri: 'atom://cfg', name: 'cfg', mimeType: 'text/javascript' }]);
  assert.deepEqual(resourceLinks('read_atoms', { names: ['a', 'b', 'a'] }).map((l) => l.uri), ['atom://a', 'atom://b']);
  const many = Array.from({ length: 50 }, (_, i) => ({ name: `a${i}` }));
  assert.equal(resourceLinks('upsert_atoms', { atoms: many }).length, MAX_LINKS);
  assert.deepEqual(resourceLinks('get_code_structure', {}), []);
});

test('every tool has an icon of its kind, an inline SVG with its type', () => {
  for (const tool of allTools) {
    assert.ok(TOOL_KINDS[tool.name], `${tool.name} has a kind`);
    const [icon] = toolIcons(tool.name);
    assert.match(icon!.src, /^data:image\/svg\+xml,%3Csvg xmlns='http:\/\/www\.w3\.org\/2000\/svg'/);
    assert.doesNotMatch(icon!.src, /[#<>"]/, 'escaped for a URI');
    assert.equal(icon!.mimeType, 'image/svg+xml');
  }
});
