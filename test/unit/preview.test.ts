import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { validateDraft } from '../../src/atoms/validate.js';
import { createBundle } from '../../src/bundle/bundler.js';
import { atomSpans, BundleMap, bundleLines, describeLocation } from '../../src/preview/bundleMap.js';
import { bundleLineOffset, composePage, DEFAULT_PAGE, framePage, inlineBundleTag, preludeScript } from '../../src/preview/page.js';
import { cube } from '../support/atoms.js';

function toAtom(d: AtomDraft): Atom {
  return { ...validateDraft(d), version: 1, created_at: 't', updated_at: 't' };
}

const thrower: AtomDraft = {
  name: 'explode',
  type: 'feature',
  code: 'function explode(n) {\n  const x = n * 2;\n  if (x > 3) {\n    throw new Error("boom " + x);\n  }\n  return x;\n}',
  inputs: [{ name: 'n', type: 'number' }],
  outputs: [{ name: 'x', type: 'number' }],
};
const caller: AtomDraft = {
  name: 'main',
  type: 'core',
  code: 'function main() {\n  console.log("starting", 1);\n  return explode(5);\n}',
  dependencies: ['explode'],
};

test('atomSpans finds every atom of a real bundle with the lines of its code', () => {
  const { code, order } = createBundle(cube.map(toAtom));
  const spans = atomSpans(code);
  assert.deepEqual(spans.map((s) => s.name), order);
  const lines = code.split('\n');
  for (const span of spans) {
    assert.match(lines[span.markerLine - 1]!, new RegExp(`// --- \\[${span.type}\\] ${span.name} ---`));
    assert.match(lines[span.markerLine]!, new RegExp(`function ${span.name}\\(`), 'the code starts on the line after the marker');
    assert.equal(lines[span.endLine - 1]!.trim(), '}', `${span.name} ends with its closing brace`);
  }
});

test('a runtime error in the bundle maps back to the atom and the line inside its code', () => {
  const { code } = createBundle([thrower, caller].map(toAtom));
  let stack = '';
  const logged: string[] = [];
  try {
    runInNewContext(code, { console: { log: (...a: unknown[]) => logged.push(a.join(' ')) } }, { filename: 'latest.js' });
  } catch (err) {
    stack = (err as Error).stack ?? '';
  }
  assert.match(stack, /boom 10/);
  assert.deepEqual(logged, ['starting 1']);
  const location = new BundleMap(code).locate(stack);
  assert.deepEqual({ atom: location.atom, atomLine: location.atomLine }, { atom: 'explode', atomLine: 4 });
  assert.equal(code.split('\n')[location.line! - 1]!.trim(), 'throw new Error("boom " + x);');
  assert.equal(describeLocation(location), 'explode:4');
});

test('frames outside the bundle are skipped; a line outside any atom maps to none', () => {
  const { code } = createBundle([thrower, caller].map(toAtom));
  const map = new BundleMap(code);
  const mainCall = code.split('\n').findIndex((l) => l.includes('return explode(5)')) + 1;
  const stack = `Error: x\n    at console.log (about:srcdoc:12:9)\n    at main (http://127.0.0.1:5000/latest.js?v=3:${mainCall}:10)`;
  assert.deepEqual(bundleLines(stack), [mainCall]);
  assert.equal(map.locate(stack).atom, 'main');
  assert.equal(map.locate(stack).atomLine, 3);
  // Line 1 is the bundle header; the Boot line belongs to no atom.
  assert.deepEqual(map.locate('at latest.js:1:1'), { atom: null, line: 1, atomLine: null });
  const boot = code.split('\n').findIndex((l) => l.includes('// Boot')) + 1;
  assert.equal(map.atomAt(boot), null);
  assert.equal(map.atomAt(boot + 1), null);
  // No stack: the error event's line is used.
  assert.equal(map.locate(null, mainCall).atom, 'main');
  assert.deepEqual(map.locate('no frames here'), { atom: null, line: null, atomLine: null });
  assert.equal(describeLocation({ atom: null, line: 7, atomLine: null }), 'latest.js:7');
});

test('SpiderMonkey-style frames (fn@url:line:col) map too', () => {
  const { code } = createBundle([thrower, caller].map(toAtom));
  const line = code.split('\n').findIndex((l) => l.includes('const x = n * 2')) + 1;
  assert.equal(new BundleMap(code).locate(`explode@http://127.0.0.1:4000/latest.js:${line}:7\n`).atom, 'explode');
});

test('composePage puts the prelude first and the bundle where the page loads latest.js, with nonces', () => {
  const page = '<html><head><title>x</title><style>b{}</style></head><body><canvas id="c"></canvas><script src="./latest.js?x=1"></script><script>go()</script></body></html>';
  const html = composePage({ page, prelude: 'PRELUDE()', bundleTag: '<script nonce="n1">BUNDLE $& $1</script>', nonce: 'n1' });
  assert.ok(html.indexOf('PRELUDE()') < html.indexOf('<title>'), 'the prelude runs before anything else');
  assert.ok(html.includes('<script nonce="n1">BUNDLE $& $1</script><script nonce="n1">go()</script>'), 'the bundle replaced the latest.js tag, dollars kept');
  assert.ok(!html.includes('latest.js?x=1'));
  assert.ok(html.includes('<style nonce="n1">'));
  assert.equal((html.match(/nonce="n1"/g) ?? []).length, 4);
});

test('the built-in page has a canvas; a page without a latest.js tag gets the bundle at the end of its body', () => {
  assert.match(DEFAULT_PAGE, /<canvas id="game"/);
  const html = composePage({ page: '<body><p>hi</p></body>', prelude: 'P', bundleTag: '<script>B</script>' });
  assert.equal(html, '<script>P</script><body><p>hi</p><script>B</script>\n</body>');
  const withDefault = composePage({ page: null, prelude: 'P', bundleTag: '<script>B</script>' });
  assert.ok(withDefault.includes('<canvas id="game"') && withDefault.includes('<script>B</script>'));
});

test('inlineBundleTag keeps line 1 of the bundle on line 1 of the script and escapes </script', () => {
  const tag = inlineBundleTag('const a = "</script>";\nfoo();', 'abc');
  assert.ok(tag.startsWith('<script nonce="abc">const a = "<\\/script>";\nfoo();\n//# sourceURL=latest.js\n</script>'));
  // The escaped code means the same.
  assert.equal(runInNewContext('const a = "<\\/script>"; a'), '</script>');
});

test("served from an address, the bundle is the page's own script (no sourceURL), its map named by address, and its frames located by the page's lines", () => {
  const bundle = '// === Atomic Coding Bundle ===\n(function() {\n  // --- [feature] jump ---\n  function jump() {\n    return 1;\n  }\n\n  // Boot\n})();\n//# sourceMappingURL=latest.js.map\n';
  const tag = inlineBundleTag(bundle, undefined, 'http://127.0.0.1:9/s/latest.js');
  assert.ok(!tag.includes('sourceURL'), tag);
  assert.ok(tag.includes('\n//# sourceMappingURL=http://127.0.0.1:9/s/latest.js.map\n'), tag);
  const html = framePage('<!doctype html>\n<html>\n<body>\n<canvas id="game"></canvas>\n<script src="latest.js"></script>\n</body>\n</html>\n', bundle, 'nonce-0123456789abcdef', false, 'http://127.0.0.1:9/s/latest.js');
  const offset = bundleLineOffset(html, bundle);
  const lines = html.split('\n');
  assert.ok(lines[offset]!.endsWith('// === Atomic Coding Bundle ==='), lines[offset]);
  const inPage = offset + 5; // 1-based: the bundle's line 5, `return 1;`
  assert.equal(lines[inPage - 1]!.trim(), 'return 1;');
  const located = new BundleMap(bundle).locate(`Error\n at log (http://127.0.0.1:9/s/frame.html?v=1:3:5)\n at jump (http://127.0.0.1:9/s/frame.html?v=1:${inPage}:5)`, null, 'frame.html', offset);
  assert.deepEqual(located, { atom: 'jump', line: 5, atomLine: 2 });
  assert.equal(bundleLineOffset('<p>no bundle</p>', bundle), 0);
});

test('the prelude reports console calls and errors with their stacks', () => {
  const sent: Record<string, unknown>[] = [];
  const listeners: Record<string, (e: unknown) => void> = {};
  const seen: unknown[][] = [];
  const context = {
    parent: { postMessage: (m: Record<string, unknown>) => sent.push(m) },
    console: { log: (...a: unknown[]) => seen.push(a), info() {}, warn() {}, error() {}, debug() {} },
    window: { addEventListener: (type: string, fn: (e: unknown) => void) => (listeners[type] = fn) },
    Error,
    JSON,
    String,
    Array,
  };
  runInNewContext(preludeScript('parent'), context);
  runInNewContext('function tick() { console.log("frame", { n: 2 }); }\ntick();', context, { filename: 'latest.js' });
  assert.equal(JSON.stringify(seen), '[["frame",{"n":2}]]', 'the original console still runs');
  assert.equal(sent[0]!.kind, 'console');
  assert.equal(sent[0]!.text, 'frame {"n":2}');
  assert.deepEqual(bundleLines(String(sent[0]!.stack)), [1, 2]);
  listeners.error!({ message: 'Uncaught TypeError: x', error: new TypeError('x'), lineno: 3 });
  assert.deepEqual({ kind: sent[1]!.kind, message: sent[1]!.message, line: sent[1]!.line }, { kind: 'error', message: 'Uncaught TypeError: x', line: 3 });
});
