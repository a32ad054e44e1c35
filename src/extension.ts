/**
 * The composition root: activate() wires the parts and returns quickly. The store opens and the MCP
 * server starts in the background (nothing heavy, such as the embedding model, loads here); the tree,
 * editors, status bar and VS Code's MCP client follow the workspace lifecycle's events.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ATOM_SCHEME, AtomFileSystemProvider } from './views/atomFileSystem.js';
import { registerSearchCommand } from './views/atomSearch.js';
import { AtomTreeProvider, type AtomNode } from './views/atomTree.js';
import { Commands, FOLDER_COMMANDS } from './views/commandIds.js';
import { AtomChecksView } from './views/checksTests.js';
import { registerCommands } from './views/commands.js';
import { chooseFolder } from './views/folder.js';
import { registerGraphCommand } from './views/graphPanel.js';
import { registerHistoryCommands } from './views/historyCommands.js';
import { IndexProgressReporter } from './views/indexProgress.js';
import { AtomLanguageFeatures } from './views/languageFeatures.js';
import { AtomFileAutoSave } from './views/atomFileAutoSave.js';
import { AtomFileConflicts } from './views/atomFileConflicts.js';
import { registerMcpProvider } from './views/mcpProvider.js';
import { outputLogger } from './views/outputLog.js';
import { registerPreviewCommands } from './views/previewPanel.js';
import { WorkspaceLifecycle } from './lifecycle.js';
import { AtomStatusBar } from './views/statusBar.js';
import { TextTreeDiagnostics } from './views/textTreeDiagnostics.js';

/** What activate() returns: for other extensions and for the extension-host tests. */
export interface AtomicCodingApi {
  /** The window's workspace (its store and MCP server) and their lifecycle; undefined without a folder. */
  lifecycle: WorkspaceLifecycle | undefined;
  tree: AtomTreeProvider;
  treeView: vscode.TreeView<AtomNode>;
  statusBar: AtomStatusBar | undefined;
  /** The checks in the Test Explorer, the gutter and the Problems panel; undefined without a folder. */
  checks: AtomChecksView | undefined;
  /** Definition, references, hover, completion, rename, diagnostics and code lens in atom editors. */
  languageFeatures: AtomLanguageFeatures | undefined;
  /** Saves of atoms/<name>.js over a newer version, reported (atomFileConflicts.ts). */
  fileConflicts: AtomFileConflicts | undefined;
  /** How long activate() took, in milliseconds. */
  activationMs: number;
  /** Resolves when the first start finished (ready or failed); its value is the time from activation. */
  ready: Promise<number>;
}

let lifecycle: WorkspaceLifecycle | undefined;

/**
 * Whether this folder already works with atoms: a store (.atomic/) or atom files (atoms/*.js). Only
 * then does the extension open the store at startup; anywhere else nothing is written to the folder
 * until the user asks (the same test as package.json's workspaceContains activation events).
 */
function holdsAtoms(folder: string, atomsFolder: string): boolean {
  if (existsSync(join(folder, '.atomic'))) return true;
  try {
    return readdirSync(join(folder, atomsFolder)).some((f) => f.endsWith('.js'));
  } catch {
    return false;
  }
}

/** workspaceState key: the user said yes to starting Atomic Coding in this folder for an agent. */
const AGENT_CONSENT = 'atomicCoding.agentMayStart';

export function activate(context: vscode.ExtensionContext): AtomicCodingApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('Atomic Coding', 'log');
  const log = outputLogger(channel, () => vscode.env.logLevel === vscode.LogLevel.Debug || vscode.env.logLevel === vscode.LogLevel.Trace);
  context.subscriptions.push(channel);

  const config = () => vscode.workspace.getConfiguration('atomicCoding');
  const folders = () => (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, fsPath: f.uri.fsPath, uri: f.uri }));
  const choice = chooseFolder(folders(), config().get<string>('workspaceFolder', ''), (p) => existsSync(join(p, '.atomic')));
  if (choice) {
    log.info(`using folder ${choice.folder.fsPath} (${choice.reason === 'setting' ? 'from atomicCoding.workspaceFolder' : choice.reason === 'store' ? 'first folder with .atomic/' : 'first folder'})`);
    lifecycle = new WorkspaceLifecycle(choice.folder.uri, log, () => ({
      bundlePath: config().get<string>('bundle.outputPath', '.atomic/latest.js') || '.atomic/latest.js',
      port: config().get<number>('server.port', 0),
      embeddingProvider: config().get<string>('search.embeddingProvider', 'local') === 'keyword' ? 'keyword' : 'local',
      atomsFolder: config().get<string>('atomsFolder', 'atoms') || 'atoms',
    }));
  }

  const tree = new AtomTreeProvider({
    atoms: () => lifecycle?.atoms(),
    get: (name: string) => lifecycle?.get(name),
    checks: (name: string) => lifecycle?.workspace?.verification.resultsOf(name) ?? [],
  });
  const treeView = vscode.window.createTreeView('atomicCoding.atoms', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(treeView);

  const setState = (state: string) => void vscode.commands.executeCommand('setContext', 'atomicCoding.state', state);
  let statusBar: AtomStatusBar | undefined;
  let checks: AtomChecksView | undefined;
  let languageFeatures: AtomLanguageFeatures | undefined;
  let fileConflicts: AtomFileConflicts | undefined;
  if (lifecycle) {
    const s = lifecycle;
    const fs = new AtomFileSystemProvider(
      s,
      (atom, created) => log.info(`saved ${atom.name} from the editor (version ${atom.version}${created ? ', new' : ''})`),
      (name, reason) => log.warn(`save of ${name} refused: ${reason}`),
    );
    statusBar = new AtomStatusBar(s);
    checks = new AtomChecksView(s);
    const features = (languageFeatures = new AtomLanguageFeatures({
      access: s,
      log,
      folder: s.folder,
      atomsFolder: config().get<string>('atomsFolder', 'atoms') || 'atoms',
      onDidChangeState: s.onDidChangeState,
    }));
    const fileAtom = (d: vscode.TextDocument) => {
      const a = features.atomOf(d);
      return a?.kind === 'file' ? a.name : undefined;
    };
    fileConflicts = new AtomFileConflicts(s, fileAtom, log);
    context.subscriptions.push(
      vscode.workspace.registerFileSystemProvider(ATOM_SCHEME, fs, { isCaseSensitive: true }),
      fs,
      statusBar,
      languageFeatures,
      fileConflicts,
      new AtomFileAutoSave(s, fileAtom),
      s.onDidChangeAtoms(() => tree.refresh()),
      s.onDidChangeState((state) => setState(state)),
      registerMcpProvider(s, {
        mayStart: async () => {
          if (s.state !== 'idle' || context.workspaceState.get<boolean>(AGENT_CONSENT)) return true;
          // An agent is connecting to a folder where Atomic Coding has not started: starting writes
          // .atomic/ and atoms/ here, so the user is asked once; yes is remembered for this folder.
          const yes = 'Start Here';
          const answer = await vscode.window.showInformationMessage(
            `An agent wants to use Atomic Coding in ${s.folder.fsPath}. Starting it creates .atomic/ (kept out of git) and atoms/ (one file per atom) in this folder.`,
            yes,
            'Not Now',
          );
          if (answer !== yes) return false;
          await context.workspaceState.update(AGENT_CONSENT, true);
          return true;
        },
      }),
      vscode.commands.registerCommand(Commands.startHere, async () => {
        await s.start();
        if (s.state === 'failed') void vscode.window.showErrorMessage(`Atomic Coding: could not start: ${s.error ?? 'see the output'}`);
        return s.state;
      }),
      { dispose: () => void s.dispose() },
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('atomicCoding.bundle.outputPath')) void s.applyBundlePath();
        if (
          e.affectsConfiguration('atomicCoding.server.port') ||
          e.affectsConfiguration('atomicCoding.search.embeddingProvider') ||
          e.affectsConfiguration('atomicCoding.atomsFolder')
        ) {
          void s.restart();
        }
        if (e.affectsConfiguration('atomicCoding.workspaceFolder')) {
          void vscode.window
            .showInformationMessage('Atomic Coding: reload the window to apply the new setting.', 'Reload Window')
            .then((r) => r && vscode.commands.executeCommand('workbench.action.reloadWindow'));
        }
      }),
      ...registerCommands({ lifecycle: s, log, output: channel, extensionUri: context.extensionUri, refreshTree: () => tree.refresh() }),
      ...registerHistoryCommands(s, log),
      registerSearchCommand(s, log),
      registerGraphCommand({ lifecycle: s, extensionUri: context.extensionUri, log }),
      ...registerPreviewCommands({ lifecycle: s, extensionUri: context.extensionUri, log }),
      new IndexProgressReporter(s),
      new TextTreeDiagnostics(s),
      checks,
      checks.onDidChangeResults(() => tree.refresh()),
    );
  } else {
    log.info('no folder is open: open one to work with atoms');
    setState('noFolder');
    const needFolder = () => {
      void vscode.window.showInformationMessage('Atomic Coding: open a folder first; its atoms are stored in .atomic/ inside it.');
      return undefined;
    };
    context.subscriptions.push(
      ...FOLDER_COMMANDS.map((id) => vscode.commands.registerCommand(id, needFolder)),
      vscode.commands.registerCommand(Commands.showOutput, () => channel.show(true)),
    );
  }

  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms`);
  const startNow = lifecycle && (holdsAtoms(lifecycle.folder.fsPath, config().get<string>('atomsFolder', 'atoms') || 'atoms') || context.workspaceState.get<boolean>(AGENT_CONSENT));
  if (lifecycle && !startNow) {
    log.info(`${lifecycle.folder.fsPath} holds no atoms: nothing is written there until you start Atomic Coding (Start Atomic Coding Here, New Atom, or an agent you allow)`);
    setState('idle');
  }
  // In a folder without atoms `ready` resolves when the user (or an allowed agent) first starts it.
  const firstStart = !lifecycle ? undefined : startNow ? lifecycle.start() : new Promise<void>((resolve) => {
    const l = lifecycle!;
    const sub = l.onDidChangeState((state) => {
      if (state === 'ready' || state === 'failed') {
        sub.dispose();
        resolve();
      }
    });
  });
  const ready = lifecycle && firstStart
    ? firstStart.then(() => {
        const ms = performance.now() - started;
        log.info(`ready ${ms.toFixed(0)} ms after activation began (state ${lifecycle?.state})`);
        return ms;
      })
    : Promise.resolve(activationMs);
  return { lifecycle, tree, treeView, statusBar, checks, languageFeatures, fileConflicts, activationMs, ready };
}

export async function deactivate(): Promise<void> {
  await lifecycle?.dispose();
  lifecycle = undefined;
}
