/**
 * The lifecycle of one window's atom workspace: opening the folder's store (AtomWorkspace) and starting
 * its MCP server in the extension host, restarting both, stopping them. The tree, the `atom:` file
 * system, the status bar, the commands and the MCP definition provider all read from here and follow
 * its events. Restarting replaces the server (new port unless one is fixed, new token) and reopens the
 * store, so it also recovers from a store that failed to open. (Not to be confused with the MCP
 * clients' sessions, which the server's McpHttpHost keeps.)
 */
import * as vscode from 'vscode';
import type { Atom } from './atoms/model.js';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { McpHttpHost } from './mcp/hosts/http.js';
import type { BuildRecord } from './store/builds.js';
import type { StoreChange } from './store/reader.js';
import type { Logger } from './util/log.js';
import type { AtomWorkspace } from './workspace.js';
import type * as Core from './core.js';
import { KeywordOnlyProvider } from './search/embeddings/keyword.js';

/**
 * The store, the bundler, search and the MCP server are loaded on first start, not with the extension:
 * they are a separate bundle (dist/core.js, from ./core.ts) required at run time, so activation does not
 * parse their several megabytes. The path is computed so esbuild leaves the require alone.
 */
function loadCore(): typeof Core {
  const file = join(__dirname, 'core.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: the extension is not built completely (npm run build)`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a run-time path, on purpose not bundled
  return require(file) as typeof Core;
}

/** Where the lifecycle is: the context key atomicCoding.state and the status bar show it. */
export type WorkspaceState = 'idle' | 'starting' | 'ready' | 'failed';

/** The atomicCoding.* settings a start reads. */
export interface WorkspaceSettings {
  bundlePath: string;
  port: number;
  embeddingProvider: 'local' | 'keyword';
  /** atomicCoding.atomsFolder: where the atoms live as files for git (relative to the folder). */
  atomsFolder: string;
}

/** How long the first search after a start waits for the model in VS Code before answering by words. */
const COLD_QUERY_WAIT_MS = 500;

export class WorkspaceLifecycle implements vscode.Disposable {
  private _state: WorkspaceState = 'idle';
  private _workspace: AtomWorkspace | undefined;
  private _host: McpHttpHost | undefined;
  private _error: string | undefined;
  private _lastBuild: BuildRecord | undefined;
  private subscriptions: { dispose(): void }[] = [];
  private transition: Promise<void> = Promise.resolve();

  private readonly stateEmitter = new vscode.EventEmitter<WorkspaceState>();
  private readonly atomsEmitter = new vscode.EventEmitter<StoreChange>();
  private readonly serverEmitter = new vscode.EventEmitter<void>();
  private readonly buildEmitter = new vscode.EventEmitter<BuildRecord>();
  /** The workspace opened, closed or failed to open. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** An atom changed, whoever changed it. */
  readonly onDidChangeAtoms = this.atomsEmitter.event;
  /** The MCP server started or stopped (its URL and token changed). */
  readonly onDidChangeServer = this.serverEmitter.event;
  readonly onDidBuild = this.buildEmitter.event;

  constructor(
    readonly folder: vscode.Uri,
    private readonly log: Logger,
    private readonly settings: () => WorkspaceSettings,
  ) {}

  get state(): WorkspaceState {
    return this._state;
  }
  get error(): string | undefined {
    return this._error;
  }
  get workspace(): AtomWorkspace | undefined {
    return this._workspace;
  }
  get host(): McpHttpHost | undefined {
    return this._host;
  }
  get lastBuild(): BuildRecord | undefined {
    return this._lastBuild ?? this._workspace?.atoms.lastBuild();
  }
  atoms(): readonly Atom[] | undefined {
    return this._workspace?.atoms.all();
  }
  get(name: string): Atom | undefined {
    return this._workspace?.atoms.get(name);
  }

  /**
   * The open workspace, for a command about to use it. Throws when none is open, saying why (still
   * starting, or the reason the start failed), so the command reports one message wherever it runs.
   */
  requireWorkspace(): AtomWorkspace {
    if (this._workspace) return this._workspace;
    if (this._state === 'idle' && !this._error) {
      throw new Error('Atomic Coding is not started in this folder (nothing is written here until you ask): run "Atomic Coding: Start Atomic Coding Here" or "New Atom"');
    }
    throw new Error(`the atom store is not open: ${this._error ?? 'it is still starting'}`);
  }

  /**
   * Opens the store and starts the server; on failure the state is 'failed' and `error` says why.
   * This is what writes into the folder (.atomic/, atoms/): in a folder that holds no atoms it runs only
   * when the user asks (Start Atomic Coding Here, New Atom, or yes to an agent's first connection).
   */
  start(): Promise<void> {
    return this.serialize(() => this.doStart());
  }

  restart(): Promise<void> {
    return this.serialize(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.serialize(() => this.doStop());
  }

  /**
   * Applies a changed bundle path without a restart. A path leading outside the workspace folder
   * is refused by the builder (nothing is written); the user is told at once, not at the next edit.
   */
  async applyBundlePath(): Promise<void> {
    const workspace = this._workspace;
    if (!workspace) return;
    // Relative to the folder, or absolute: the same reading as AtomWorkspace.open's.
    workspace.builder.setOutputPath(resolve(this.folder.fsPath, this.settings().bundlePath));
    if (!this.reportRefusedBundlePath(workspace)) return;
    if (workspace.atoms.size > 0) await workspace.rebuild();
  }

  /** Shows why the configured bundle path is refused; true when it is allowed. */
  private reportRefusedBundlePath(workspace: AtomWorkspace): boolean {
    try {
      workspace.builder.checkOutputPath();
      return true;
    } catch (err) {
      const message = (err as Error).message;
      this.log.error(`bundle: ${message}`);
      void vscode.window.showErrorMessage(`Atomic Coding: ${message}`);
      return false;
    }
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    const next = this.transition.then(step, step);
    this.transition = next.catch(() => {});
    return next;
  }

  private async doStart(): Promise<void> {
    if (this._state === 'ready') return;
    this.setState('starting');
    const started = performance.now();
    const { bundlePath, port, embeddingProvider, atomsFolder } = this.settings();
    try {
      const { AtomWorkspace, McpHttpHost } = loadCore();
      const workspace = await AtomWorkspace.open(this.folder.fsPath, {
        log: this.log,
        bundlePath,
        // 'local' leaves the default: the shipped model, loaded in a worker on the first search.
        embeddings: embeddingProvider === 'keyword' ? new KeywordOnlyProvider() : undefined,
        textTree: { folder: atomsFolder },
        // A person waits on the first Search Atoms: past half a second it answers by words while the
        // model's process starts, and says so (the next search has meaning).
        coldQueryWaitMs: COLD_QUERY_WAIT_MS,
      });
      this._workspace = workspace;
      this.subscriptions.push(
        workspace.onDidChange((change) => this.atomsEmitter.fire(change)),
        workspace.builder.onDidBuild((build) => {
          this._lastBuild = build;
          this.buildEmitter.fire(build);
        }),
      );
      this._host = await McpHttpHost.start(workspace, this.log, { port });
      this.log.info(
        `workspace: ${workspace.atoms.size} atom${workspace.atoms.size === 1 ? '' : 's'} in ${this.folder.fsPath}; MCP server on ${this._host.url} ` +
          `(${Math.round(performance.now() - started)} ms)`,
      );
      this.reportRefusedBundlePath(workspace);
      this._error = undefined;
      this.setState('ready');
      this.serverEmitter.fire();
      this.atomsEmitter.fire({ kind: 'reload' });
    } catch (err) {
      this._error = describeStartError(err, port);
      this.log.error(`workspace: could not start: ${this._error}`);
      await this.doStop(false);
      this.setState('failed');
    }
  }

  private async doStop(announce = true): Promise<void> {
    for (const s of this.subscriptions.splice(0)) s.dispose();
    const host = this._host;
    const workspace = this._workspace;
    this._host = undefined;
    this._workspace = undefined;
    await host?.close().catch((err) => this.log.warn(`workspace: closing the server: ${(err as Error).message}`));
    await workspace?.close().catch((err) => this.log.warn(`workspace: closing the store: ${(err as Error).message}`));
    if (announce && (host || workspace)) {
      this.setState('idle');
      this.serverEmitter.fire();
      this.atomsEmitter.fire({ kind: 'reload' });
    }
  }

  private setState(state: WorkspaceState): void {
    this._state = state;
    this.stateEmitter.fire(state);
  }

  async dispose(): Promise<void> {
    await this.stop();
    this.stateEmitter.dispose();
    this.atomsEmitter.dispose();
    this.serverEmitter.dispose();
    this.buildEmitter.dispose();
  }
}

function describeStartError(err: unknown, port: number): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return `port ${port} is in use: change the setting atomicCoding.server.port (0 picks a free port), then run Atomic Coding: Restart MCP Server`;
  }
  if ((err as Error).name === 'WorkspaceLockedError') {
    return `${(err as Error).message} When it has stopped, run Atomic Coding: Restart MCP Server.`;
  }
  return (err as Error).message ?? String(err);
}
