/**
 * Debug Live Preview in the real extension host: js-debug (built into VS Code) launches Chromium on the
 * loopback preview with latest.js.map; a breakpoint set in atoms/dbg_jump.js stops there, the call stack
 * names atom files and lines, the atom's variables are there, and stepping out lands in the atom that
 * called it.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { AtomicCodingApi } from '../../../src/extension.js';
import { readyExtension, report, until } from './support.js';

interface StoppedEvent {
  session: vscode.DebugSession;
  body: { reason: string; threadId: number };
}
interface StackFrame {
  id: number;
  name: string;
  line: number;
  source?: { path?: string; name?: string };
}

describe('Debug Live Preview', function () {
  this.timeout(180_000);
  let api: AtomicCodingApi;
  const stops: StoppedEvent[] = [];
  /** What the debugger printed (its Debug Console), reported when it does not stop. */
  const output: string[] = [];
  const disposables: vscode.Disposable[] = [];

  before(async () => {
    ({ api } = await readyExtension());
    await until('the session', () => api.lifecycle?.state === 'ready');
    disposables.push(
      vscode.debug.registerDebugAdapterTrackerFactory('*', {
        createDebugAdapterTracker: (session) => ({
          onDidSendMessage: (m: { type?: string; event?: string; body?: StoppedEvent['body'] & { output?: string } }) => {
            if (m.type === 'event' && m.event === 'stopped' && m.body) stops.push({ session, body: m.body });
            if (m.type === 'event' && m.event === 'output' && m.body?.output) output.push(m.body.output.trimEnd());
          },
        }),
      }),
    );
  });

  after(async () => {
    await vscode.debug.stopDebugging();
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    for (const d of disposables) d.dispose();
  });

  it('a breakpoint in atoms/dbg_jump.js stops there, with atom files in the call stack, its variables, and stepping out into its caller', async () => {
    const workspace = api.lifecycle!.workspace!;
    await workspace.upsertMany([
      { name: 'dbg_jump', type: 'feature', code: 'function dbg_jump(height) {\n  const next = height + 1;\n  return next;\n}\n', dependencies: [] },
      { name: 'game_loop', type: 'core', code: 'function game_loop() {\n  let height = 0;\n  setInterval(() => {\n    height = dbg_jump(height);\n  }, 30);\n}\n', dependencies: ['dbg_jump'] },
    ]);
    await workspace.builder.idle();
    const file = join(api.lifecycle!.folder.fsPath, 'atoms', 'dbg_jump.js');
    const text = await until('atoms/dbg_jump.js on disk', () => existsSync(file) && readFileSync(file, 'utf8').includes('const next') && readFileSync(file, 'utf8'));
    const line = text.split('\n').findIndex((l) => l.includes('const next'));
    vscode.debug.addBreakpoints([new vscode.SourceBreakpoint(new vscode.Location(vscode.Uri.file(file), new vscode.Position(line, 0)))]);

    // No browser arguments of the test's own: the configuration must work as a user starts it (headless
    // where the host has no display, as code-server's has not).
    const start = async () => {
      const session = new Promise<vscode.DebugSession>((resolve) => disposables.push(vscode.debug.onDidStartDebugSession(resolve)));
      const started = await vscode.commands.executeCommand<boolean>('atomicCoding.debugPreview');
      assert.equal(started, true, 'the debug session started');
      const { configuration } = await session;
      report(`Debug Live Preview resolved to ${configuration.type} ${configuration.request} ${configuration.url} (${configuration.browserLaunchLocation}, ${configuration.runtimeExecutable} ${(configuration.runtimeArgs as string[]).join(' ')})`);
    };
    const stopped = (waitMs: number) =>
      until('the debugger to stop at the breakpoint', () => stops.find((s) => s.body.reason === 'breakpoint' || s.body.reason === 'step') ?? stops[0], waitMs).catch(async (err: Error) => {
        const sources: unknown = await Promise.resolve(vscode.debug.activeDebugSession?.customRequest('loadedSources')).catch((e: Error) => e.message);
        report(`the debugger did not stop; its console: ${output.slice(-20).join(' | ')}; loaded sources: ${JSON.stringify(sources)?.slice(0, 2000)}`);
        throw err;
      });
    await start();
    // Twice in this round's runs on a loaded machine, js-debug never attached to the preview's sandboxed
    // frame (its loaded sources held the outer page only) and nothing stopped. A person would stop and
    // start again: so does this, once, and says so; a second miss fails.
    const stop = await stopped(45_000).catch(async () => {
      report('Debug Live Preview: no stop in 45 s (the frame was not attached); stopped and started it once more');
      await vscode.debug.stopDebugging();
      await start();
      return stopped(45_000);
    });
    const trace = (await stop.session.customRequest('stackTrace', { threadId: stop.body.threadId })) as { stackFrames: StackFrame[] };
    const top = trace.stackFrames[0]!;
    report(`stopped: ${trace.stackFrames.slice(0, 4).map((f) => `${f.name} ${f.source?.path ?? f.source?.name}:${f.line}`).join(' <- ')}`);
    assert.ok(top.source?.path?.endsWith(join('atoms', 'dbg_jump.js')), `the top frame is in atoms/dbg_jump.js: ${JSON.stringify(top.source)}`);
    assert.equal(top.line, line + 1, 'on the breakpoint line');
    assert.match(top.name, /dbg_jump/);
    assert.ok(trace.stackFrames.some((f) => f.source?.path?.endsWith(join('atoms', 'game_loop.js'))), 'the caller is shown in atoms/game_loop.js');

    const { scopes } = (await stop.session.customRequest('scopes', { frameId: top.id })) as { scopes: { name: string; variablesReference: number }[] };
    const local = scopes.find((s) => /local/i.test(s.name)) ?? scopes[0]!;
    const { variables } = (await stop.session.customRequest('variables', { variablesReference: local.variablesReference })) as { variables: { name: string; value: string }[] };
    assert.ok(variables.some((v) => v.name === 'height'), `the atom's variables: ${variables.map((v) => v.name).join(', ')}`);

    const before = stops.length;
    await stop.session.customRequest('stepOut', { threadId: stop.body.threadId });
    const stepped = await until('the step to stop', () => stops.length > before && stops.at(-1));
    const after = (await stepped.session.customRequest('stackTrace', { threadId: stepped.body.threadId })) as { stackFrames: StackFrame[] };
    report(`stepped out to: ${after.stackFrames[0]!.name} ${after.stackFrames[0]!.source?.path}:${after.stackFrames[0]!.line}`);
    assert.ok(after.stackFrames[0]!.source?.path?.endsWith(join('atoms', 'game_loop.js')), `stepping out lands in the caller's atom: ${JSON.stringify(after.stackFrames[0])}`);
  });
});
