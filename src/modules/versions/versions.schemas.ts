import { Type } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../../shared/slug.ts';

export const VersionSchema = Type.Object(
  {
    id: Type.Integer(),
    published: Type.Boolean({ description: 'True if readers can view it' }),
    name: Type.String(),
    created: Type.String({ description: 'Date of creation, e.g. 2026-11-21T10:15:00+0000' }),
    updated: Type.String({ description: 'Date of last update' }),
    slug: Type.String(),
    ordr: Type.Integer({ description: 'Numerical order in the project' }),
  },
  { title: 'Version' },
);

export const VersionUpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    slug: Type.Optional(Type.String({ pattern: SLUG_PATTERN })),
    published: Type.Optional(Type.Boolean()),
  },
  { title: 'VersionUpdate' },
);

export const VersionCreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(
      Type.String({ pattern: SLUG_PATTERN, description: 'Generated from the name when absent' }),
    ),
    published: Type.Optional(Type.Boolean({ default: false })),
  },
  { title: 'VersionCreate' },
);

export const VersionCloneBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(
      Type.String({ pattern: SLUG_PATTERN, description: 'Generated from the name when absent, made unique' }),
    ),
  },
  { title: 'VersionClone' },
);

export const EmptyObject = Type.Object({}, { additionalProperties: false, title: 'Empty' });

const ReportUser = Type.Object(
  {
    id: Type.Union([Type.Integer(), Type.Null()]),
    email: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  },
  {
    title: 'ReportUser',
    description: 'The user whose key made the change; every field null when the change had no user',
  },
);

export const VersionReportPageSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    hasDraft: Type.Boolean({ description: 'True while the page has draft contents not yet published' }),
    listed: Type.Boolean(),
    created: Type.String(),
    createdBy: ReportUser,
    updated: Type.String(),
    updatedBy: ReportUser,
    sourceCreated: Type.String({
      description: 'Creation of the first page this one was cloned from (or its own)',
    }),
    sourceCreatedBy: ReportUser,
    helpful: Type.Integer({
      description: 'Readers who answered yes to "Was this page helpful?" on the site',
    }),
    notHelpful: Type.Integer({ description: 'Readers who answered no' }),
  },
  { title: 'VersionReportPage' },
);

export const VersionReportQuery = Type.Object({
  created_by_email: Type.Optional(
    Type.String({ maxLength: 320, description: 'Only pages created by this user (case-insensitive)' }),
  ),
});
