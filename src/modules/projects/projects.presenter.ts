import type { ProjectSettings } from '../../auth/actor.ts';
import { formatApiDate } from '../../shared/dates.ts';
import type { ProjectRow } from './projects.repository.ts';

export interface ProjectRecord extends ProjectSettings {
  created: string;
  updated: string;
}

export function projectSettings(row: ProjectRow): ProjectSettings {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    access: row.access,
    basePath: row.base_path,
    host: row.host,
  };
}

export function presentProject(row: ProjectRow): ProjectRecord {
  return {
    ...projectSettings(row),
    created: formatApiDate(row.created),
    updated: formatApiDate(row.updated),
  };
}
