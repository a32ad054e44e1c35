/** A tiny typed event emitter with the VS Code `Event` shape, usable without `vscode`. */
import { logLine } from './log.js';

export interface Disposable {
  dispose(): void;
}

export type Listener<T> = (event: T) => void;
/** Subscribes a listener; the VS Code `Event` shape. */
export type Event<T> = (listener: Listener<T>) => Disposable;

export class Emitter<T> {
  private listeners = new Set<Listener<T>>();

  /** Subscribe; the returned disposable unsubscribes. */
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  /** Calls every listener; one that throws does not stop the others. */
  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        process.stderr.write(`atomic-coding: event listener failed: ${logLine(String((err as Error).stack ?? err))}\n`);
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
