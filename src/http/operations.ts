/**
 * Every /api/v1 operation with its rate limit (service-api.md §8, decisions.md §5). A route names its
 * operation in `config.operation`; the limit, the window and the counter key all come from here.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const OPERATIONS = {
  createPage: { limit: 10800, windowMs: HOUR },
  publishPage: { limit: 10800, windowMs: HOUR },
  getPageBySlug: { limit: 60, windowMs: MINUTE },
  readPage: { limit: 600, windowMs: MINUTE },
  updatePage: { limit: 10800, windowMs: HOUR },
  listDocumentation: { limit: 60, windowMs: HOUR },
  listVersions: { limit: 60, windowMs: HOUR },
  updateVersion: { limit: 3600, windowMs: HOUR },
  createVersion: { limit: 3600, windowMs: HOUR },
  deleteVersion: { limit: 3600, windowMs: HOUR },
  createDocumentation: { limit: 3600, windowMs: HOUR },
  updateDocumentation: { limit: 3600, windowMs: HOUR },
  deleteDocumentation: { limit: 3600, windowMs: HOUR },
  createCategory: { limit: 3600, windowMs: HOUR },
  listPageHistory: { limit: 3600, windowMs: HOUR },
  readPageRevision: { limit: 3600, windowMs: HOUR },
  restorePageRevision: { limit: 3600, windowMs: HOUR },
  readReferenceDefinition: { limit: 600, windowMs: MINUTE },
  publishReference: { limit: 3600, windowMs: HOUR },
  uploadReference: { limit: 300, windowMs: HOUR },
  readReferenceChanges: { limit: 600, windowMs: HOUR },
  listReferenceRevisions: { limit: 3600, windowMs: HOUR },
  listUsers: { limit: 3600, windowMs: HOUR },
  exportProject: { limit: 10, windowMs: HOUR },
  importProject: { limit: 10, windowMs: HOUR },
  listAll: { limit: 30, windowMs: HOUR },
  readStructure: { limit: 600, windowMs: MINUTE },
  readAudit: { limit: 600, windowMs: HOUR },
  listReaderAccess: { limit: 3600, windowMs: HOUR },
  grantReaderAccess: { limit: 100, windowMs: HOUR },
  revokeReaderAccess: { limit: 100, windowMs: HOUR },
  searchContent: { limit: 10800, windowMs: HOUR },
  deletePage: { limit: 10800, windowMs: HOUR },
  restorePage: { limit: 10800, windowMs: HOUR },
  cloneVersion: { limit: 60, windowMs: HOUR },
  versionReport: { limit: 60, windowMs: HOUR },
  brokenLinks: { limit: 60, windowMs: HOUR },
  createChangelogPost: { limit: 10800, windowMs: HOUR },
  listChangelogPosts: { limit: 600, windowMs: MINUTE },
  createWebhook: { limit: 60, windowMs: HOUR },
  listWebhooks: { limit: 3600, windowMs: HOUR },
  deleteWebhook: { limit: 60, windowMs: HOUR },
  listWebhookDeliveries: { limit: 600, windowMs: MINUTE },
  listFeedback: { limit: 600, windowMs: HOUR },
} as const satisfies Record<string, { limit: number; windowMs: number }>;

export type OperationId = keyof typeof OPERATIONS;

/** Failed authentication, counted per client address. */
export const AUTH_FAILURES = { limit: 30, windowMs: 5 * MINUTE } as const;

export function scaledLimit(limit: number, scale: number): number {
  return Math.max(1, Math.floor(limit * scale));
}
