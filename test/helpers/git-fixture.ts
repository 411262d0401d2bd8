import { gitPage } from './git-repo.ts';
import type { ZipEntrySpec } from './zip.ts';

/*
 * A repository of the platform's Git format, larger than a unit's: two versions (one of the older
 * kind), nested navigation, every tag, a reference, synced blocks (one holding another), variables,
 * a theme, images in `assets/` and beside pages, a changelog. Its text is written for these tests.
 */

/** A PNG of one pixel. */
export const PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** A PNG's signature and 300 KiB after it: too large for a page to hold. */
export const LARGE_PNG = Buffer.concat([PIXEL_PNG.subarray(0, 8), Buffer.alloc(300 * 1024, 7)]);
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="8"/></svg>\n';

export const TAGS_PAGE = `Every tag, once: {% badge text="Beta" type="warning" /%} {% icon classes="fas fa-star" /%} {% key key="Enter" /%} {% glossary term="Lamp" /%} {% inline-image url="../../assets/diagram.png" /%}.

{% callout type="success" title="Done" %}
All **set**.
{% /callout %}

{% image url="https://cdn.lumen.test/wide.png" width=640 mode="full" %}
A wide picture
{% /image %}

{% html %}
<p class="note">Raw HTML.</p>
{% /html %}

{% video provider="youtube" videoId="lumen01" /%}

{% code %}
\`\`\`sh {% title="install.sh" %}
lumen install
\`\`\`
{% /code %}

\`\`\`json {% id="sample" %}
{"a": 1}
\`\`\`

{% tabs %}
{% tab title="Cloud" %}
Hosted by us.
{% /tab %}
{% tab title="Local" %}
Hosted by you.
{% /tab %}
{% /tabs %}

{% cards %}
{% card title="Concepts" text="The ideas" link="concepts.md" /%}
{% /cards %}

{% accordion-group %}
{% accordion title="More?" %}
Yes, more.
{% /accordion %}
{% /accordion-group %}

{% code-steps %}
{% step title="First" %}
Do this.
{% /step %}
{% /code-steps %}

{% table %}
{% row %}
{% cell colwidth=[90] %}
Key
{% /cell %}
{% cell %}
Value
{% /cell %}
{% /row %}
{% /table %}

{% github-code url="https://github.test/lumen/lumen/blob/main/x.js" /%}

{% index-list /%}

{% if $plan %}
For subscribers.
{% /if %}`;

const NAV = `items:
  - page: welcome
    icon: house
  - category: Setting up
    items:
      - page: install
        items:
          - page: install/linux
            items:
              - install/linux/arm
          - install/windows
      - link:
          title: Status
          url: https://status.lumen.test
  - category: Reference
    items:
      - concepts
      - tags
      - support
      - page: hidden
`;

const DEFINITION = `openapi: 3.0.3
info:
  title: Store API
  version: 1.0.0
paths:
  /items:
    get:
      operationId: listItems
      responses:
        '200':
          description: The items
`;

export function gitFixture(): ZipEntrySpec[] {
  const text: Record<string, string> = {
    'developerhub.yaml': [
      'title: Lumen Docs',
      'variables:',
      '  product: Lumen',
      '  plan:',
      '    name: Pro',
      'settings:',
      "  mainColour: '1f5fbf'",
      '  darkMode: true',
      'navigation:',
      '  links:',
      '    - title: Home',
      "      url: 'https://lumen.test'",
      '',
    ].join('\n'),
    '_theme/custom.css': '.content h2 { letter-spacing: 0.01em; }\n',
    '_theme/logo.svg': LOGO_SVG,
    '_theme/head.html': '<meta name="lumen" content="1">\n',
    '_synced-blocks/beta.md': gitPage(
      { title: "'Beta notice'" },
      '{% callout type="warning" title="Beta" %}\nThis is in beta. Tell [support](../v1/guides/support.md) what you think.\n{% /callout %}',
    ),
    '_synced-blocks/open-menu.md': gitPage(
      { title: "'Open the menu'" },
      '- Press {% key key="/" /%} on a new line.\n- Or click {% icon classes="fas fa-plus" /%}.',
    ),
    '_synced-blocks/notice.md': gitPage({ title: 'Notice' }, '{% synced id="beta" /%}\n\nRead on.'),
    'assets/manual.pdf': '%PDF-1.4 not really\n',
    'v1/_settings.yaml':
      "name: 'Lumen 1'\npublished: true\ndocumentations:\n  - guides\n  - api-docs\nreferences:\n  - store\n",
    'v1/guides/_settings.yaml': 'title: Guides\npublished: true\ndescription: All the guides\n',
    'v1/guides/_nav.yaml': NAV,
    'v1/guides/welcome.md': gitPage(
      { title: 'Welcome' },
      [
        'Welcome to %product% (%plan.name% plan).',
        '{% synced id="notice" /%}',
        'Start with [installing](install.md#before-you-start) or read the [concepts](./concepts.md).',
        '![Diagram](../../assets/diagram.png)',
      ].join('\n\n'),
    ),
    'v1/guides/install.md': gitPage(
      { title: 'Install' },
      '## Before you start\n\n{% synced id="open-menu" /%}\n\nSee [Linux](install/linux.md) and [Windows](install/windows.md#paths).',
    ),
    'v1/guides/install/linux.md': gitPage(
      { title: "'On Linux'" },
      'Back to [install](../install.md#before-you-start). The large picture: ![Big](../../../assets/huge.png)',
    ),
    'v1/guides/install/linux/arm.md': gitPage(
      { title: 'On ARM' },
      'Before.\n\n{% synced id="gone" /%}\n\nUse the arm64 build.',
    ),
    'v1/guides/install/windows.md': gitPage(
      { title: 'On Windows' },
      '## Paths\n\nUse {% badge text="PowerShell" type="primary" /%} 7.',
    ),
    'v1/guides/concepts.md': gitPage({ title: 'Concepts', slug: 'ideas' }, 'Lamps and wicks.'),
    'v1/guides/tags.md': gitPage({ title: 'Every tag' }, TAGS_PAGE),
    'v1/guides/support.md': gitPage(
      { title: 'Support', description: 'Get help' },
      '{% image url="./screen.png" %}\nThe support screen\n{% /image %}\n\nWrite to support@lumen.test.',
    ),
    'v1/guides/hidden.md': gitPage({ title: 'Hidden', hidden: true }, 'Not in the index.'),
    'v1/guides/orphan.md': gitPage({ title: 'Orphan' }, 'Named by no navigation.'),
    'v1/api-docs/_settings.yaml': "title: 'API Docs'\npublished: false\n",
    'v1/api-docs/_nav.yaml': 'items:\n  - authentication\n  - page: errors\n',
    'v1/api-docs/authentication.md': gitPage(
      { title: 'Authentication' },
      'Send the key in {% key key="X-Api-Key" /%}.',
    ),
    'v1/api-docs/errors.md': gitPage(
      { title: 'Errors' },
      'Errors answer JSON; see [auth](authentication.md) and [welcome](../guides/welcome.md).',
    ),
    'v1/refs/store.yaml': DEFINITION,
    'v1/refs/store.settings.yaml': 'title: Store\npublished: true\nshowTryItOut: true\n',
    'v2/_settings.yaml': "name: 'Lumen 2'\npublished: false\n",
    'v2/guides/settings.yaml': 'title: Guides\n',
    'v2/guides/a-start.md': gitPage({ title: 'Start', slug: 'begin' }, 'Begin here.'),
    'v2/guides/a-start/detail.md': gitPage({ title: 'Detail' }, 'Up to [start](../a-start.md).'),
    'v2/guides/b-next.md': gitPage({ title: 'Next' }, 'Back to [the start](a-start.md#top).'),
    'changelogs/releases/_settings.yaml': 'title: Releases\n',
    'changelogs/releases/first.md': gitPage(
      { title: "'First release'", date: "'2026-01-01'", published: true },
      '- {% badge text="New" type="success" /%} %product% ships.',
    ),
    'changelogs/releases/second.md': gitPage(
      { title: "'Second release'", date: "'2026-02-01'", published: true },
      '{% synced id="beta" /%}',
    ),
  };
  return [
    ...Object.entries(text).map(([name, data]) => ({ name, data })),
    { name: 'assets/diagram.png', data: PIXEL_PNG },
    { name: 'assets/huge.png', data: LARGE_PNG },
    { name: 'v1/guides/screen.png', data: PIXEL_PNG },
  ];
}
