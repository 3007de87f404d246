import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/**
 * The stages of src/ from the bottom up (style.md "Layout"): a module may
 * import its own stage and those below it, never one above. `errors` is
 * src/errors.ts, the error tree every stage throws from; `library` is the
 * package entry (src/index.ts, src/embed.ts), which sits on app/ but never on
 * cli/. The simulator is a fake of the service, apart from the stack: it may
 * use only the bottom stages, and only cli/ and the library entry may start it.
 */
export const LAYERS = [
  'errors',
  'schema',
  'config',
  'api',
  'normalize',
  'store',
  'crawl',
  'webhooks',
  'daemon',
  'http',
  'app',
  'library',
  'cli',
] as const;

export type Layer = (typeof LAYERS)[number] | 'simulator';

const SIMULATOR_MAY_IMPORT: readonly Layer[] = ['errors', 'schema', 'config', 'simulator'];
const MAY_IMPORT_SIMULATOR: readonly Layer[] = ['simulator', 'library', 'cli'];

/**
 * The stage of a module, from its path in the repository (`src/store/sink.ts`); undefined for a path that is in
 * none. The frozen migration steps (migrations/) belong to the store, which hands them to the migrator.
 */
export function layerOf(path: string): Layer | undefined {
  if (path.startsWith('migrations/')) return 'store';
  if (!path.startsWith('src/')) return undefined;
  const inSrc = path.slice('src/'.length);
  if (inSrc === 'errors.ts') return 'errors';
  if (inSrc === 'index.ts' || inSrc === 'embed.ts') return 'library';
  const top = inSrc.split('/')[0]!;
  if (top === 'simulator') return 'simulator';
  return LAYERS.find((layer) => layer === top && inSrc.includes('/'));
}

/** Why `from` may not import `to` (paths in the repository), or null when it may. */
export function layerViolation(from: string, to: string): string | null {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === undefined) return `${from} is in no stage of the layout`;
  if (b === undefined) return `${to} is in no stage of the layout`;
  if (a === 'simulator' || b === 'simulator') {
    if (a === 'simulator' && !SIMULATOR_MAY_IMPORT.includes(b)) return `the simulator imports ${b}/`;
    if (b === 'simulator' && !MAY_IMPORT_SIMULATOR.includes(a)) return `${a}/ imports the simulator`;
    return null;
  }
  const rankA = LAYERS.indexOf(a);
  const rankB = LAYERS.indexOf(b);
  return rankB > rankA ? `${a} imports ${b}, a stage above it` : null;
}

/** Every module of the graph that sits on a cycle, one list per cycle (strongly connected component). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) found.push(component.sort());
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative module specifiers a file names: imports, re-exports, `import()` types and calls, type-only ones too. */
export function specifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) found.push(arg.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg !== undefined && ts.isStringLiteral(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => s.startsWith('.'));
}

/**
 * The import graph of the modules under `dirs` of the repository at `root`: each module's path in the
 * repository, to the modules it imports by a relative path.
 */
export function importGraph(root: string, dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sourceFiles(join(root, dir)))) {
    const from = relative(root, file).split('\\').join('/');
    const targets = specifiers(file, readFileSync(file, 'utf8')).map((s) =>
      posix.normalize(posix.join(posix.dirname(from), s.replace(/\.js$/, '.ts'))),
    );
    graph.set(from, [...new Set(targets)]);
  }
  return graph;
}
