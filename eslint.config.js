import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const CROSS_MODULE_REPOSITORY = {
  group: [
    '../*/*.repository',
    '../*/*.repository.ts',
    '**/modules/*/*.repository',
    '**/modules/*/*.repository.ts',
  ],
  message: "A module never uses another module's repository: call that module's service.",
};
const AUTH_REPOSITORY = {
  group: ['**/auth/*.repository', '**/auth/*.repository.ts'],
  message: "The modules never use auth/'s repository: call KeysService.",
};
const ROUTES_TO_DB = {
  group: ['**/db/*', '**/db/**'],
  message: 'Routes never touch the database: call a service.',
};
const INTO_MODULES = {
  group: ['**/modules/*', '**/modules/**'],
  message: 'The floors below the modules never import them (docs/decisions/0022-layering.md).',
};
const ANY_REPOSITORY = {
  group: ['**/*.repository', '**/*.repository.ts'],
  message: 'Only modules and auth/ have repositories, and only they use them.',
};
const COMPOSITION_ROOT = {
  group: ['**/deps', '**/deps.ts', '**/deps.*', '**/app', '**/app.ts'],
  message: 'The floors below the modules take what they use as arguments, never the composition root.',
};
const AUTH_TO_EVENTS = {
  group: ['**/events/*', '**/events/**'],
  message: 'auth/ sits below events/: the recorder carries its actors, so auth/ never imports it.',
};
const WORKERS_DOWN = {
  group: ['**/db/*', '**/http/*', '**/auth/*', '**/events/*'],
  message: 'Worker tasks import only lower floors: content/, openapi/, shared/ and errors.ts.',
};
const SQL_TAG = {
  group: ['kysely'],
  importNames: ['sql'],
  message: 'SQL lives in repositories (*.repository.ts) and src/db/.',
};
const REPOSITORIES = ['src/**/*.repository.ts'];
const imports = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
/** Statements built or prepared anywhere but in a repository or src/db/. */
const QUERY_BUILDING = [
  {
    selector:
      'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
    message: 'Queries are built in repositories (*.repository.ts) and src/db/: call a repository.',
  },
  {
    selector:
      'CallExpression[callee.property.name=/^(prepare|pragma|exec)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]',
    message: 'SQL statements are prepared in repositories (*.repository.ts) and src/db/.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', 'dist', 'packages/*/dist'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Fastify plugins and hooks are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // The layering, as lint errors (docs/decisions/0007-seams.md, 0022-layering.md). A later entry
  // replaces an earlier one's patterns for the files both match, so each lists all its own.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: [...REPOSITORIES, 'src/db/**'],
    rules: { ...imports(SQL_TAG), 'no-restricted-syntax': ['error', ...QUERY_BUILDING] },
  },
  {
    files: ['src/modules/**/*.ts'],
    rules: imports(CROSS_MODULE_REPOSITORY, AUTH_REPOSITORY, SQL_TAG),
  },
  {
    files: ['src/modules/**/*.repository.ts'],
    rules: imports(CROSS_MODULE_REPOSITORY, AUTH_REPOSITORY),
  },
  {
    files: ['src/modules/**/*.routes.ts'],
    rules: imports(CROSS_MODULE_REPOSITORY, AUTH_REPOSITORY, ROUTES_TO_DB, SQL_TAG),
  },
  {
    files: [
      'src/content/**/*.ts',
      'src/http/**/*.ts',
      'src/openapi/**/*.ts',
      'src/shared/**/*.ts',
      'src/events/**/*.ts',
    ],
    rules: imports(INTO_MODULES, ANY_REPOSITORY, COMPOSITION_ROOT, SQL_TAG),
  },
  {
    files: ['src/db/**/*.ts'],
    rules: imports(INTO_MODULES, ANY_REPOSITORY, COMPOSITION_ROOT),
  },
  {
    files: ['src/auth/**/*.ts'],
    rules: imports(INTO_MODULES, COMPOSITION_ROOT, AUTH_TO_EVENTS, SQL_TAG),
  },
  {
    files: ['src/auth/**/*.repository.ts'],
    rules: imports(INTO_MODULES, COMPOSITION_ROOT, AUTH_TO_EVENTS),
  },
  {
    // The reader site reads through the modules' services: no SQL, no repository, no db/.
    files: ['src/site/**/*.ts', 'src/site/**/*.tsx'],
    rules: imports(ANY_REPOSITORY, ROUTES_TO_DB, SQL_TAG),
  },
  {
    files: ['src/site/assets/*.js'],
    languageOptions: { sourceType: 'script' },
  },
  {
    files: ['src/workers/**/*.ts'],
    rules: imports(INTO_MODULES, ANY_REPOSITORY, COMPOSITION_ROOT, WORKERS_DOWN, SQL_TAG),
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts', 'src/main.ts', 'src/cli/main.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read the environment in src/config.ts (loadConfig) and pass the config in.',
        },
      ],
    },
  },
  {
    // res.json() is `any` by design of the inject API; tests assert on its shape instead.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
