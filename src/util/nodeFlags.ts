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

/**
 * What our own processes add to their environment: glibc's malloc asks the kernel for transparent
 * huge pages for the blocks it maps (`glibc.malloc.hugetlb=1`, glibc 2.35 and later). Where THP is
 * left to `madvise` (Debian's and Ubuntu's default) nothing else of the machine changes; ignored
 * where malloc is not glibc's (macOS, Windows, musl). Why: a new 4 KiB page costs a fault, a 2 MiB
 * page one fault for 512 of them, and in a virtual machine a fault can cost far more than the
 * copy it waits for (this project's: 22 MB read into a new buffer took 100-137 ms, 23-59 ms with
 * it; into the same buffer again, 4-6 ms).
 * - The model's process (useLite.ts): a cold start reads 27 MB of weights and tfjs copies them
 *   twice on their way into the wasm heap. Spawn to the first vector, 5 rounds alternated:
 *   948-1,097 ms → 748-844 ms, peak RSS 165-167 MiB either way.
 * - The headless server an agent launches (agentConfig.ts, through `/usr/bin/env` on Linux): its
 *   start reads the store's files (atoms.db, atoms.bin, fulltext.bin: 46 MB at 10,000 atoms) and
 *   2.5 MB of script. Spawn to the first search at 10,000 atoms: 1,967 against 2,253 ms p50
 *   (0.87×, 7 rounds alternated, `npm run bench -- start`); at 1,000 atoms no change (1,351
 *   against 1,355). Peak RSS at 10,000: 211-216 against 202-211 MiB (3 starts each).
 * Not VS Code's extension host, which is not ours to start.
 */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';
export const HUGE_PAGES_ENV: Readonly<Record<string, string>> = { GLIBC_TUNABLES: HUGE_PAGES_TUNABLE };
