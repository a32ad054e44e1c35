/**
 * The V8 options our own Node processes start with: the headless server an agent launches
 * (agentConfig.ts) and the embedding model's process (useLite.ts).
 *
 * Why: Node 24's V8 grows the young generation with the machine's memory and keeps it after a
 * burst (an open), and lets the old generation grow up to 4 times what survived; an 8 MiB
 * semi-space and a growing factor of 1.5 took tens of MiB off the server's peak and its memory at
 * rest with open, upsert and search times within noise. The measurements are in
 * test/bench/README.md ("The V8 options"); the footprint bench repeats them.
 *
 * VS Code's extension host is not ours to start, so the in-process server lives with the host's
 * settings; what it adds there is its live memory, which the same bench measures (its "V8
 * defaults" row).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
