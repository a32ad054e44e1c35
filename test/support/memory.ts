/**
 * A process's resident memory as the kernel counts it (Linux /proc/<pid>/status), for the tests that
 * hold memory to a figure: VmRSS now, VmHWM its peak. Fails the test where the line is missing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

export function residentBytes(pid: number, which: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const kb = new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  assert.ok(kb, `no ${which} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}
