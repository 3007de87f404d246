import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, layerOf, layerViolation, specifiers } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

describe('the import graph of src/', () => {
  const graph = importGraph(ROOT, ['src', 'migrations']);

  it('reads every module of src/ and the migrations', () => {
    expect(graph.has('src/cli/main.ts')).toBe(true);
    expect(graph.has('migrations/index.ts')).toBe(true);
    expect(graph.get('src/store/open-sink.ts')).toContain('src/store/sql-sink.ts');
  });

  it('has no cycle, type-only imports included', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no import that runs up the stages of the layout', () => {
    const upward = [...graph].flatMap(([from, imports]) =>
      imports.flatMap((to) => {
        const why = layerViolation(from, to);
        return why === null ? [] : [`${from} -> ${to}: ${why}`];
      }),
    );
    expect(upward).toEqual([]);
  });

  it('has no module over 400 lines', () => {
    const lines = (path: string): number =>
      readFileSync(join(ROOT, path), 'utf8').replace(/\n$/, '').split('\n').length;
    const long = [...graph.keys()].filter((path) => lines(path) > 400);
    expect(long).toEqual([]);
  });

  it('puts every module of src/ in a stage', () => {
    expect([...graph.keys()].filter((path) => layerOf(path) === undefined)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it.each([
    ['src/store/sink.ts', 'src/schema/schema.ts', null],
    ['src/store/sink.ts', 'src/store/drivers/sql-driver.ts', null],
    ['src/normalize/plain-columns.ts', 'src/schema/schema.ts', null],
    ['src/normalize/plain-columns.ts', 'src/store/sink.ts', 'normalize imports store, a stage above it'],
    ['src/schema/dialect.ts', 'src/store/sink.ts', 'schema imports store, a stage above it'],
    ['src/crawl/runs/run-deps.ts', 'src/cli/runtime.ts', 'crawl imports cli, a stage above it'],
    ['src/embed.ts', 'src/cli/runtime.ts', 'library imports cli, a stage above it'],
    ['src/embed.ts', 'src/app/open-app.ts', null],
    ['src/cli/commands/simulate.ts', 'src/simulator/index.ts', null],
    ['src/daemon/daemon.ts', 'src/simulator/index.ts', 'daemon/ imports the simulator'],
    ['src/simulator/world.ts', 'src/config/secret.ts', null],
    ['src/simulator/world.ts', 'src/store/sink.ts', 'the simulator imports store/'],
    ['migrations/index.ts', 'src/store/migration/migration-step.ts', null],
    ['src/store/drivers/sqlite/sqlite-driver.ts', 'migrations/index.ts', null],
    ['src/config/config.ts', 'src/errors.ts', null],
    ['src/errors.ts', 'src/config/config.ts', 'errors imports config, a stage above it'],
    ['src/stray.ts', 'src/errors.ts', 'src/stray.ts is in no stage of the layout'],
  ])('%s -> %s: %s', (from, to, expected) => {
    expect(layerViolation(from, to)).toBe(expected);
  });

  it('finds each cycle once, with every module on it, and nothing else', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['e']],
      ['e', []],
      ['f', ['f']],
      ['g', ['d']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c'], ['f']]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('counts type-only imports, re-exports and import() types as imports', () => {
    const text = [
      "import type { A } from './a.js';",
      "import { b } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "type E = import('./e.js').E;",
      "const f = await import('./f.js');",
      "import { g } from 'knex';",
    ].join('\n');
    expect(specifiers('x.ts', text)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
  });
});
