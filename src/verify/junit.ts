/**
 * The checks as JUnit XML (`atomic-coding test --junit FILE`): one test suite, one test case per
 * example and per test atom, so a team's CI shows and gates on the atoms in git.
 */
import type { CheckResult } from '../atoms/checks.js';

/** Text safe inside XML: markup escaped, characters XML 1.0 cannot hold dropped. */
function xml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex -- XML 1.0 cannot carry these control characters at all
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

export function junitXml(results: readonly CheckResult[], suite = 'atomic-coding'): string {
  const failures = results.filter((r) => !r.ok).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = results.reduce((sum, r) => sum + r.ms, 0);
  const cases = results.map((r) => {
    const name = r.kind === 'test' ? r.atom : `${r.atom} ${r.label}`;
    const open = `    <testcase classname="${xml(`atoms.${r.atom}`)}" name="${xml(name)}" time="${seconds(r.ms)}"`;
    if (r.ok) return `${open}/>`;
    const where = r.at ? ` (${r.at.atom}:${r.at.line})` : '';
    return `${open}>\n      <failure message="${xml(r.message ?? 'failed')}">${xml(`${r.message ?? 'failed'}${where}`)}</failure>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${failures}" time="${seconds(total)}">`,
    `  <testsuite name="${xml(suite)}" tests="${results.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
