/**
 * A node:test reporter that prints, the moment a test fails, one block saying why: the test, its file, the
 * error's message and code (ENOSPC, EACCES...) and the first frames of its stack. It runs beside the spec
 * reporter (`--test-reporter=spec --test-reporter=./scripts/test-failures-reporter.mjs`), whose own details
 * come only in its summary at the very end of a long run: a CI log cut to the lines around a failure showed
 * five failed tests and not one reason. Each line starts with `✖ why:` so the block sits beside the failure.
 */
const FRAMES = 4;

export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // ERR_TEST_FAILURE wraps what the test threw; a hook or a timeout has no cause.
    const error = details?.error?.cause ?? details?.error;
    // The file, not the line: under tsx the test's line is not the source's (the stack's frames are).
    const where = file ? ` (${file})` : '';
    const lines = [`✖ why: ${name}${where}`];
    if (error instanceof Error || (error && typeof error === 'object')) {
      const code = error.code ? ` [${error.code}]` : '';
      lines.push(`✖ why:   ${error.name ?? 'Error'}${code}: ${String(error.message ?? error).split('\n').filter((l) => l.trim()).slice(0, 6).join('\n✖ why:   ')}`);
      const frames = String(error.stack ?? '')
        .split('\n')
        .filter((l) => /^\s+at /.test(l) && !/\(node:|at node:/.test(l))
        .slice(0, FRAMES);
      for (const frame of frames) lines.push(`✖ why:   ${frame.trim()}`);
    } else if (error !== undefined) {
      lines.push(`✖ why:   ${String(error)}`);
    }
    yield `${lines.join('\n')}\n`;
  }
}
