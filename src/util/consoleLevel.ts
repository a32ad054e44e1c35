/** Shared by the host and the pages (no Node built-ins here: media/ imports it). */
/**
 * The console methods of code we run but did not write (the sandbox's atoms, the preview's bundle):
 * what they logged with, reported beside the text. Not a LogLevel: `log` is one, and none is silent.
 */
export const CONSOLE_LEVELS = ['log', 'info', 'warn', 'error', 'debug'] as const;
export type ConsoleLevel = (typeof CONSOLE_LEVELS)[number];
