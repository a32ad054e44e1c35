/** bundle/missingCalls.ts: a bundle whose atoms call a deleted atom is a failed build. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MissingCallCheck, missingCallsMessage } from '../../src/bundle/missingCalls.js';
import type { Atom } from '../../src/atoms/model.js';

const atom = (name: string, code: string) => ({ name, code }) as unknown as Atom;

test('callers of a deleted atom are found; the atoms are not asked for while nothing was deleted', () => {
  const check = new MissingCallCheck();
  const atoms = [atom('uses_gone', 'function uses_gone() {\n  return gone_helper(1);\n}'), atom('fine', 'function fine() {\n  return 1;\n}')];
  let asked = 0;
  const all = () => (asked++, atoms);
  assert.deepEqual(check.find(all, new Set(), () => false), []);
  assert.deepEqual(check.find(all, new Set(['gone_helper']), (name) => name === 'gone_helper'), [], 'deleted, then created again: live');
  assert.equal(asked, 0, 'no deleted atom is missing: the list is not needed');
  const missing = check.find(all, new Set(['gone_helper']), () => false);
  assert.deepEqual(missing, [{ caller: 'uses_gone', missing: 'gone_helper' }]);
  assert.equal(asked, 1);
  assert.match(missingCallsMessage(missing), /uses_gone calls gone_helper/);
  // A name only in a string or a comment is no call.
  atoms[0] = atom('uses_gone', 'function uses_gone() {\n  return "gone_helper"; // gone_helper\n}');
  assert.deepEqual(check.find(all, new Set(['gone_helper']), () => false), []);
});
