/**
 * The twelve permissions of the specification, Quire's own for search and structure, and those of
 * the platform's newer operations and Quire's extensions (`feedback.read`: readers' feedback, site.md §7). `all` grants every one.
 */
export const PERMISSIONS = [
  'page.edit',
  'page.publish',
  'page.read',
  'project.read',
  'version.publish',
  'reference.read',
  'reference.publish',
  'reference.edit',
  'project.export',
  'audit.read',
  'access.read',
  'access.write',
  'search.read',
  'version.edit',
  'documentation.edit',
  'page.delete',
  'changelog.read',
  'changelog.edit',
  'project.import',
  'webhook.read',
  'webhook.write',
  'feedback.read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
