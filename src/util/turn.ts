/**
 * Gives the event loop a turn: long work in slices lets the process answer meanwhile (a server
 * lists its tools while a large workspace opens; the extension host stays responsive).
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
