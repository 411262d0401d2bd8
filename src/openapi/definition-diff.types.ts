/**
 * What a comparison of two definitions reports (extensions.md §8): each change a `{kind, path,
 * message}`, breaking or not by its kind alone, so a client can act on the kind and show the rest.
 */

/** Every kind, and whether it is breaking: a client written for the old definition may fail. */
export const CHANGE_KINDS = {
  'path.removed': true,
  'path.added': false,
  'operation.removed': true,
  'operation.added': false,
  'operation.deprecated': false,
  'parameter.removed': true,
  'parameter.required': true,
  'parameter.added': false,
  'parameter.optional': false,
  'request-body.removed': true,
  'request-body.required': true,
  'request-body.added': false,
  'request-body.optional': false,
  'request-media-type.removed': true,
  'request-media-type.added': false,
  'request-property.removed': true,
  'property.required': true,
  'request-property.added': false,
  'property.optional': false,
  'enum.value-removed': true,
  'enum.restricted': true,
  'enum.value-added': false,
  'type.narrowed': true,
  'type.widened': false,
  'bound.narrowed': true,
  'bound.widened': false,
  'pattern.changed': true,
  'pattern.removed': false,
  'response.removed': true,
  'response.added': false,
  'response-media-type.removed': true,
  'response-media-type.added': false,
  'response-property.removed': true,
  'response-property.optional': true,
  'response-property.added': false,
  'response-property.required': false,
  'response-type.changed': true,
  'response-type.narrowed': false,
  'response-enum.value-added': false,
  'response-enum.value-removed': false,
  'response-bound.widened': true,
  'response-bound.narrowed': false,
  'response-pattern.changed': true,
  'response-pattern.added': false,
  'response-header.removed': true,
  'response-header.added': false,
  'security.added': true,
  'security.requirement-removed': true,
  'security.removed': false,
  'security.requirement-added': false,
} as const satisfies Record<string, boolean>;

export type ChangeKind = keyof typeof CHANGE_KINDS;

export interface DefinitionChange {
  kind: ChangeKind;
  /** where: `METHOD /path`, then the place in the operation (`query.limit`, `response 200 …`) */
  path: string;
  message: string;
}

export interface ChangeReport {
  breaking: DefinitionChange[];
  nonBreaking: DefinitionChange[];
}

/**
 * Collects changes and hands them out split, without duplicates, sorted by path, kind and message
 * (code-unit order, not the locale's), so the same two documents always give the same report.
 */
export class ChangeCollector {
  private readonly seen = new Map<string, DefinitionChange>();

  add(kind: ChangeKind, path: string, message: string): void {
    const key = `${path}\n${kind}\n${message}`;
    if (!this.seen.has(key)) this.seen.set(key, { kind, path, message });
  }

  report(): ChangeReport {
    const sorted = [...this.seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const breaking: DefinitionChange[] = [];
    const nonBreaking: DefinitionChange[] = [];
    for (const [, change] of sorted) (CHANGE_KINDS[change.kind] ? breaking : nonBreaking).push(change);
    return { breaking, nonBreaking };
  }
}

export type Direction = 'request' | 'response';
