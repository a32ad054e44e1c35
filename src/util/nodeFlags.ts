/**
 * The V8 options our own Node processes start with: the headless server an agent launches
 * (agentConfig.ts) and the embedding model's process (useLite.ts).
 *
 * On a machine with a few GiB of memory, Node 24's V8 lets the young generation grow to 64 MiB a
 * semi-space (128 MiB committed) after a burst of allocation, such as a workspace's open, and
 * keeps it. Measured at 10,000 atoms (the footprint bench): that was 120 MiB of the server's
 * 395 MiB peak, and 40 MiB of its 250 MiB after the open. 16 MiB a semi-space, V8's limit before it
 * grew with the machine's memory, left open time and search latency within noise. The model's
 * process peaks at 188-190 MiB either way (its memory is the model's WebAssembly heap); it gets
 * the option so that no process of ours keeps a young generation it does not need.
 *
 * VS Code's extension host is not ours to start, so the in-process server lives with the host's
 * settings; what it adds there is its live memory, which the same bench measures.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
