import { afterEach } from 'vitest';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';

/** Starts simulators with the file's defaults and closes them after each test. */
export function useSimulators(defaults: SimulatorOptions): (options?: SimulatorOptions) => Promise<RunningSimulator> {
  let running: RunningSimulator[] = [];
  afterEach(async () => {
    await Promise.all(running.map((s) => s.close()));
    running = [];
  });
  return async (options = {}) => {
    const sim = await startSimulator({ ...defaults, ...options });
    running.push(sim);
    return sim;
  };
}
