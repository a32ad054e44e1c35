/**
 * "Search Atoms…": the same search the agents' semantic_search uses (meaning from the local embeddings,
 * fused with the words of names, descriptions, ports and code), as a quick pick that searches while
 * the user types. VS Code's Find in Files cannot look inside `atom:` documents, so this is how a person
 * finds an atom by what it does. Picking a result opens the atom; its button shows it in the graph.
 */
import * as vscode from 'vscode';
import type { Atom } from '../atoms/model.js';
import { formatSignature } from '../atoms/signature.js';
import type { SearchHit } from '../search/searchIndex.js';
import type { Logger } from '../util/log.js';
import type { AtomWorkspace } from '../workspace.js';
import { TYPE_ICONS } from './atomTree.js';
import { Commands } from './commandIds.js';
import type { WorkspaceLifecycle } from '../lifecycle.js';

/** Results shown per query: semantic_search's maximum. */
const RESULTS = 20;
/** Typing pauses this long before a search starts (the first query also loads the model). */
const DEBOUNCE_MS = 150;

interface HitItem extends vscode.QuickPickItem {
  name: string;
}

const graphButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('type-hierarchy'), tooltip: 'Show in Dependency Graph' };

/** One open search: the quick pick, and (for tests and callers) the results of its latest query. */
export class AtomSearch implements vscode.Disposable {
  readonly quickPick = vscode.window.createQuickPick<HitItem>();
  private sequence = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The query last scheduled (trimmed; none before the first), and the results of it once answered. */
  private query: string | undefined;
  private settledQuery: Promise<readonly HitItem[]> = Promise.resolve([]);
  private resolvePending: ((items: readonly HitItem[] | Promise<readonly HitItem[]>) => void) | undefined;
  private readonly disposables: vscode.Disposable[] = [this.quickPick];

  constructor(
    private readonly lifecycle: WorkspaceLifecycle,
    private readonly log: Logger,
  ) {
    const pick = this.quickPick;
    pick.title = 'Search Atoms';
    pick.placeholder = 'Describe what an atom does ("make the cube jump") or type its name';
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    this.disposables.push(
      pick.onDidChangeValue((value) => this.schedule(value)),
      pick.onDidAccept(() => {
        const [chosen] = pick.selectedItems;
        if (!chosen) return;
        pick.hide();
        void vscode.commands.executeCommand(Commands.openAtom, chosen.name);
      }),
      pick.onDidTriggerItemButton(({ item }) => {
        pick.hide();
        void vscode.commands.executeCommand(Commands.showGraph, item.name);
      }),
      pick.onDidHide(() => this.dispose()),
    );
  }

  /** Opens the pick; with `query`, starts with it typed in, else lists every atom. */
  show(query = ''): this {
    // The model's process loads while the query is typed (a second or two on a cold start).
    this.lifecycle.workspace?.search.warm();
    this.quickPick.value = query;
    this.quickPick.show();
    this.schedule(query);
    return this;
  }

  /** The items of the latest query, once it has been answered. */
  results(): Promise<readonly HitItem[]> {
    return this.settledQuery;
  }

  private schedule(value: string): void {
    const query = value.trim();
    if (query === this.query) return; // the echo of a value set by show(), or only spaces added
    this.query = query;
    clearTimeout(this.timer);
    const sequence = ++this.sequence;
    const superseded = this.resolvePending;
    let resolve!: (items: readonly HitItem[] | Promise<readonly HitItem[]>) => void;
    this.settledQuery = new Promise((r) => (resolve = r));
    this.resolvePending = resolve;
    superseded?.(this.settledQuery); // whoever waits for an older query gets the newest one's results
    if (!query) {
      // Nothing typed yet: every atom by name, so the pick also works as a browser.
      const items = [...(this.lifecycle.atoms() ?? [])].sort((a, b) => a.name.localeCompare(b.name)).map((atom) => toItem({ atom }));
      this.quickPick.items = items;
      this.quickPick.title = 'Search Atoms';
      this.quickPick.busy = false;
      this.settle(resolve, items);
      return;
    }
    this.quickPick.busy = true;
    this.timer = setTimeout(() => void this.run(query, sequence).then((items) => this.settle(resolve, items)), DEBOUNCE_MS);
  }

  private settle(resolve: (items: readonly HitItem[]) => void, items: readonly HitItem[]): void {
    if (this.resolvePending === resolve) this.resolvePending = undefined;
    resolve(items);
  }

  private async run(query: string, sequence: number): Promise<readonly HitItem[]> {
    let workspace: AtomWorkspace;
    try {
      workspace = this.lifecycle.requireWorkspace();
    } catch (err) {
      this.quickPick.title = `Search Atoms: ${(err as Error).message}`;
      this.quickPick.busy = false;
      return [];
    }
    try {
      const { hits, semanticUnavailable, unembedded, modelStarting } = await workspace.search.search(query, { limit: RESULTS });
      if (sequence !== this.sequence) return []; // a newer query has taken over; its results are shown
      const items = hits.map(toItem);
      this.quickPick.items = items;
      this.quickPick.title = searchTitle(query, items.length, modelStarting ? 'the search model is still starting' : semanticUnavailable, unembedded);
      return items;
    } catch (err) {
      const message = (err as Error).message;
      this.log.error(`search: ${message}`);
      this.quickPick.title = `Search Atoms: the search failed (${message})`;
      return [];
    } finally {
      if (sequence === this.sequence) this.quickPick.busy = false;
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.resolvePending?.([]);
    this.resolvePending = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/**
 * A hit (or, before anything is typed, an atom) as a row: the name with its type's icon; how close
 * its meaning is, its type and its signature (cut first when the row is narrow); its description
 * below. Every row is always shown, in the search's order: the pick's own filter would otherwise
 * hide results whose names do not contain the words typed.
 */
function toItem(hit: SearchHit | { atom: Atom }): HitItem {
  const { atom } = hit;
  const style = TYPE_ICONS[atom.type];
  const closeness = !('similarity' in hit)
    ? undefined
    : hit.pinned
      ? 'name match'
      : hit.similarity === null
        ? 'by words'
        : `similarity ${Math.max(0, hit.similarity).toFixed(2)}`;
  return {
    name: atom.name,
    label: atom.name,
    iconPath: new vscode.ThemeIcon(style.icon, new vscode.ThemeColor(style.color)),
    description: [closeness, atom.type, formatSignature(atom)].filter(Boolean).join(' · '),
    detail: atom.description ?? undefined,
    alwaysShow: true,
    buttons: [graphButton],
  };
}

/** The pick's title says when the ranking is less than the whole story. */
function searchTitle(query: string, found: number, semanticUnavailable?: string, unembedded?: number): string {
  if (found === 0) return `Search Atoms: nothing matches "${query}"`;
  if (semanticUnavailable) return `Search Atoms: by words only (${semanticUnavailable})`;
  if (unembedded) return `Search Atoms: ${unembedded} atom${unembedded === 1 ? '' : 's'} not embedded yet, ranked by words`;
  return 'Search Atoms';
}

export function registerSearchCommand(lifecycle: WorkspaceLifecycle, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand(Commands.searchAtoms, (query?: string) =>
    new AtomSearch(lifecycle, log).show(typeof query === 'string' ? query : ''),
  );
}
