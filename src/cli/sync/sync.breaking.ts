import type { SyncHttp } from './sync.http.ts';
import type { LocalReference } from './sync.local.ts';
import type { Step } from './sync.plan.ts';

/** One breaking change of a definition sync uploads, as the server's change report names it. */
export interface BreakingChange {
  /** the file of DIR the definition comes from */
  file: string;
  kind: string;
  path: string;
  message: string;
}

interface ChangeReport {
  breaking?: Array<{ kind: string; path: string; message: string }>;
}

/** The breaking changes of a report (an upload's `changes`, or `GET /reference/{id}/changes`). */
export function breakingOf(file: string, report: ChangeReport | undefined): BreakingChange[] {
  return (report?.breaking ?? []).map(({ kind, path, message }) => ({ file, kind, path, message }));
}

/** What the `201` of an upload says: the reference's id, and its change report when it replaced one. */
export function uploaded(text: string): { id: number; changes?: ChangeReport } {
  const body = JSON.parse(text) as { id?: unknown; changes?: ChangeReport };
  const id = Number(body.id);
  if (!Number.isSafeInteger(id)) throw new Error('the upload answered no reference id');
  return { id, ...(body.changes !== undefined ? { changes: body.changes } : {}) };
}

/**
 * `--fail-on-breaking`, before any other write: each definition the plan uploads goes up as a draft,
 * and its draft is compared with its published definition (`GET /reference/{id}/changes`). The
 * answer: the breaking changes found, and the steps left for the run, in which each upload became
 * the publication of the draft now there (with `--publish`) or nothing (without).
 */
export async function checkBreaking(
  steps: readonly Step[],
  http: SyncHttp,
  versionId: number,
  publish: boolean,
): Promise<{ breaking: BreakingChange[]; steps: Step[]; drafts: number }> {
  const breaking: BreakingChange[] = [];
  const rest: Step[] = [];
  let drafts = 0;
  for (const step of steps) {
    if (step.kind !== 'uploadReference') {
      rest.push(step);
      continue;
    }
    const id = await uploadDraft(http, versionId, step.reference);
    drafts++;
    if (step.existing !== undefined) {
      const answer = await http.get(`/reference/${id}/changes?from=published&to=draft`);
      // 404: the reference has no published definition, so nothing a client uses can break.
      if (answer.status !== 404)
        breaking.push(...breakingOf(step.reference.file, JSON.parse(answer.text) as ChangeReport));
    }
    if (publish) rest.push({ kind: 'publishReference', reference: step.reference, id });
  }
  return { breaking, steps: rest, drafts };
}

async function uploadDraft(http: SyncHttp, versionId: number, reference: LocalReference): Promise<number> {
  const answer = await http.write('POST', `/version/${versionId}/reference?publish=false`, {
    text: reference.text,
    contentType: reference.contentType,
  });
  return uploaded(answer.text).id;
}
