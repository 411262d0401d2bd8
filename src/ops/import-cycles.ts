import path from 'node:path';
import ts from 'typescript';

/**
 * Fails when the sources import each other in a circle; part of `npm run lint`. The graph is the
 * compiler's own (tsconfig.json's files, its module resolution), type-only imports included: a
 * cycle through types still ties the floors together. Why this rather than a separate tool:
 * docs/decisions/0022-layering.md.
 *
 *   node --import tsx src/ops/import-cycles.ts [ROOT]   (ROOT: the folder whose files count; src)
 */
export function importGraph(projectDir: string, root: string): Map<string, string[]> {
  const configPath = path.join(projectDir, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, projectDir);
  const inRoot = (file: string) => file.startsWith(root + path.sep);
  const graph = new Map<string, string[]>();
  for (const file of parsed.fileNames.filter(inRoot)) {
    const source = ts.sys.readFile(file) ?? '';
    const targets = ts.preProcessFile(source, true, true).importedFiles.flatMap(({ fileName }) => {
      const { resolvedModule } = ts.resolveModuleName(fileName, file, parsed.options, ts.sys);
      const target = resolvedModule?.resolvedFileName;
      return target !== undefined && !resolvedModule?.isExternalLibraryImport && inRoot(target)
        ? [target]
        : [];
    });
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one file, or of one that imports itself (Tarjan). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const projectDir = process.cwd();
  const root = path.resolve(projectDir, process.argv[2] ?? 'src');
  const cycles = importCycles(importGraph(projectDir, root));
  for (const cycle of cycles) {
    console.error(`import cycle among ${cycle.length} files:`);
    for (const file of cycle) console.error(`  ${path.relative(projectDir, file)}`);
  }
  if (cycles.length > 0) {
    console.error('Files must not import each other in a circle (docs/decisions/0022-layering.md).');
    process.exitCode = 1;
  }
}
