import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The part of a V8 `.cpuprofile` (written by `node --cpu-prof`) read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  /** Function, and the file it is in (its last two path parts) with its line. */
  name: string;
  /** Share of the sampled time not spent idle. */
  share: number;
}

/**
 * The functions that took the most self time in the main thread's profile
 * among those `node --cpu-prof --cpu-prof-dir=dir` wrote (the one with the most
 * samples: worker threads write their own, mostly idle). Native calls count
 * to the JavaScript function that made them: better-sqlite3's statement runs
 * show as the driver's own `#write`.
 */
export function profileTop(dir: string, count: number): ProfileEntry[] {
  const profiles = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile);
  const main = profiles.sort((a, b) => busyOf(b) - busyOf(a))[0];
  if (main === undefined) return [];
  const nodes = new Map(main.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < main.samples.length; i++) {
    const frame = nodes.get(main.samples[i]!);
    if (frame === undefined || frame.functionName === '(idle)') continue;
    const where = frame.url ? `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    const dt = main.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + dt);
    busy += dt;
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, time]) => ({ name, share: busy > 0 ? time / busy : 0 }));
}

function busyOf(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  return profile.samples.reduce((sum, id, i) => (idle.has(id) ? sum : sum + (profile.timeDeltas[i] ?? 0)), 0);
}
