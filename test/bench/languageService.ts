/**
 * The two ways to give atoms language features, measured side by side at 1,000 atoms in plain Node:
 *
 * - ours (views/languageFeatures.ts): atoms/callSites.ts over the store, per request;
 * - TypeScript's JavaScript service: a generated declaration of every atom's signature (atoms.d.ts)
 *   beside the document, checkJs, as VS Code's TypeScript server would hold it.
 *
 * Time to the first hover, completion list and diagnostics; the same after one atom changed (ours:
 * nothing to regenerate; TypeScript: a new atoms.d.ts); the heap each adds.
 * `node --expose-gc --import tsx test/bench/languageService.ts [count]`
 */
import { analyzeDocument, callProblems, nameAt } from '../../src/atoms/callSites.js';
import { formatAtomDocument } from '../../src/atoms/atomDocument.js';
import type { Atom, AtomDraft } from '../../src/atoms/model.js';
import { formatSignature } from '../../src/atoms/signature.js';
import { generateAtoms } from './generate.js';

const count = Number(process.argv[2] ?? 1000);
const drafts = generateAtoms(count, 7).atoms;
const atoms = new Map<string, Atom>(
  drafts.map((d: AtomDraft) => [d.name, { ...d, inputs: d.inputs ?? [], outputs: d.outputs ?? [], dependencies: d.dependencies ?? [], description: d.description ?? null, version: 1, created_at: '', updated_at: '' }]),
);
const caller = [...atoms.values()].reverse().find((a) => a.dependencies.length > 0 && a.code.includes(`${a.dependencies[0]}(`))!;
const callee = caller.dependencies[0]!;
const doc = formatAtomDocument(caller);
const hoverAt = doc.indexOf(`${callee}(`) + 1;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => (gc(), process.memoryUsage().heapUsed);
const time = <T>(f: () => T): [T, number] => {
  const t = performance.now();
  const v = f();
  return [v, performance.now() - t];
};

// ---- ours -----------------------------------------------------------------------------------------
{
  const h0 = heap();
  const [hover, hoverMs] = time(() => {
    const a = analyzeDocument(doc, caller.inputs, (n) => atoms.get(n)?.outputs);
    const hit = nameAt(a, hoverAt);
    const atom = hit && atoms.get(hit.name);
    return atom ? `${atom.name}${formatSignature(atom)} ${atom.description}` : undefined;
  });
  const [items, completionMs] = time(() => [...atoms.values()].map((a) => ({ label: a.name, detail: formatSignature(a), documentation: a.description })));
  const [problems, diagnosticsMs] = time(() => callProblems(analyzeDocument(doc, caller.inputs, (n) => atoms.get(n)?.outputs), (n) => atoms.get(n)));
  // Warm: every later request (another hover, the next keystroke's diagnostics), the median of 21.
  const runs = Array.from({ length: 21 }, () => time(() => nameAt(analyzeDocument(doc, caller.inputs, (n) => atoms.get(n)?.outputs), hoverAt))[1]).sort((a, b) => a - b);
  const changedHoverMs = runs[10]!;
  const added = heap() - h0;
  console.log(
    `ours at ${count} atoms: first hover ${hoverMs.toFixed(1)} ms (${hover ? 'found' : 'MISSING'}), completion list ${completionMs.toFixed(1)} ms (${items.length}), ` +
      `diagnostics ${diagnosticsMs.toFixed(1)} ms (${problems.length}), a later hover ${changedHoverMs.toFixed(2)} ms; heap kept ${(added / 1e6).toFixed(1)} MB (the store is shared with everything else)`,
  );
}

// ---- TypeScript's service -------------------------------------------------------------------------
{
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a dev dependency, loaded only here
  const ts = require('typescript') as typeof import('typescript');
  const jsType = (t: string) => t;
  const declare = (a: Atom) => {
    const params = a.inputs.map((p) => `${p.name}${p.optional ? '?' : ''}: ${jsType(p.type)}`).join(', ');
    const outs = a.outputs.filter((o) => o.type !== 'void');
    const ret = outs.length === 0 ? 'void' : outs.length === 1 ? outs[0]!.type : `{ ${outs.map((o) => `${o.name}: ${o.type}`).join('; ')} }`;
    return `/** ${(a.description ?? '').replace(/\*\//g, '')} */\ndeclare function ${a.name}(${params}): ${ret};`;
  };
  let dtsVersion = 1;
  let dts = [...atoms.values()].filter((a) => a.name !== caller.name).map(declare).join('\n');
  const files = new Map<string, () => string>([
    ['/w/atoms.d.ts', () => dts],
    ['/w/doc.js', () => `// @ts-check\n${doc}`],
  ]);
  const h0 = heap();
  const host: import('typescript').LanguageServiceHost = {
    getCompilationSettings: () => ({ allowJs: true, checkJs: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] }),
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: (f) => (f === '/w/atoms.d.ts' ? String(dtsVersion) : '1'),
    getScriptSnapshot: (f) => {
      const text = files.get(f)?.() ?? (ts.sys.fileExists(f) ? ts.sys.readFile(f) : undefined);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => '/w',
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (f) => files.has(f) || ts.sys.fileExists(f),
    readFile: (f) => files.get(f)?.() ?? ts.sys.readFile(f),
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const offset = hoverAt + '// @ts-check\n'.length;
  const [info, hoverMs] = time(() => service.getQuickInfoAtPosition('/w/doc.js', offset));
  const [list, completionMs] = time(() => service.getCompletionsAtPosition('/w/doc.js', offset, {}));
  const [diags, diagnosticsMs] = time(() => service.getSemanticDiagnostics('/w/doc.js'));
  const added = heap() - h0;
  // One atom changed: the declaration file is generated again and the program rebuilt.
  dts = dts.replace(/declare function /, 'declare function  ');
  dtsVersion++;
  const [, changedHoverMs] = time(() => service.getQuickInfoAtPosition('/w/doc.js', offset));
  console.log(
    `TypeScript at ${count} atoms: first hover ${hoverMs.toFixed(1)} ms (${info ? 'found' : 'MISSING'}), completion list ${completionMs.toFixed(1)} ms (${list?.entries.length ?? 0} entries), ` +
      `diagnostics ${diagnosticsMs.toFixed(1)} ms (${diags.length}), hover after a change ${changedHoverMs.toFixed(1)} ms; heap added ${(added / 1e6).toFixed(1)} MB (atoms.d.ts ${(dts.length / 1024).toFixed(0)} KB)`,
  );
}
