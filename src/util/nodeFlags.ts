/**
 * The V8 options our own Node processes start with: the headless server an agent launches
 * (agentConfig.ts) and the embedding model's process (useLite.ts).
 *
 * On a machine with a few GiB of memory, Node 24's V8 lets the young generation grow to 64 MiB a
 * semi-space (128 MiB committed) after a burst of allocation, such as a workspace's open, and
 * keeps it. Measured at 10,000 atoms (the footprint bench): that was 120 MiB of the server's
 * 395 MiB peak, and 40 MiB of its 250 MiB after the open. 16 MiB a semi-space, V8's limit before it
 * grew with the machine's memory, left open time and search latency within noise; 8 MiB took
 * another 11-25 MiB off the RSS after a 10,000-atom open (192 against 203-217 MiB) and 5-15 MiB
 * off the peak at 1,000 atoms, again with search p50 (28-34 against 32 ms at 10,000 atoms) and
 * the 50,000-atom open within noise (servers started side by side, alternating). 4 MiB gained
 * nothing more. The model's
 * process peaks at 188-190 MiB either way (its memory is the model's WebAssembly heap); it gets
 * the option so that no process of ours keeps a young generation it does not need.
 *
 * `--heap-growing-percent=50`: after a full collection, V8 lets the old generation grow to 1.5
 * times what survived before the next one, where by default it picks a factor up to 4 from how
 * fast collections run. A workspace's open leaves about 130 MiB live at 50,000 atoms, and search's
 * load in the background then added 70 MiB it keeps and as much garbage before V8 collected, at
 * a heap of 310-320 MiB: the server's peak (580-616 MiB with the semi-space option alone). With
 * the option V8 collects during the load instead (9 full collections against 5, mostly
 * concurrent): in four runs of the footprint bench the 50,000-atom peak was 522-585 MiB (the
 * build before, with the semi-space option: 599-629), with the open (1.4-1.6 s), upsert p50
 * (41-50 ms) and search p50 (45-55 ms) within the noise of the same runs; the server lists its
 * tools 20-40 ms later at 1,000 and 10,000 atoms (more collections while its code loads). 100
 * took off half as much at 50,000 atoms.
 *
 * VS Code's extension host is not ours to start, so the in-process server lives with the host's
 * settings; what it adds there is its live memory, which the same bench measures (its "V8
 * defaults" row).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
