import type { StateCore } from 'markdown-it';

export const TASK_TOKEN = 'darkdown_task';

const TASK_PREFIX = /^\[([ xX])\][ \t]+/;

/**
 * GFM task list items: a list item whose first paragraph starts `[ ] ` or `[x] ` gets a disabled checkbox.
 * Written here rather than pulled in as a package: it is one pass over the tokens.
 */
export function taskListRule(state: StateCore): void {
  const tokens = state.tokens;
  const lists = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (token === undefined) continue;
    if (token.type === 'bullet_list_open' || token.type === 'ordered_list_open') lists.push(token);
    else if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') lists.pop();
    if (token.type !== 'list_item_open' || tokens[i + 1]?.type !== 'paragraph_open') continue;
    const inline = tokens[i + 2];
    const first = inline?.children?.[0];
    const match = inline === undefined ? null : TASK_PREFIX.exec(inline.content);
    if (
      inline === undefined ||
      first?.type !== 'text' ||
      match === null ||
      !first.content.startsWith(match[0])
    ) {
      continue;
    }
    first.content = first.content.slice(match[0].length);
    const checkbox = new state.Token(TASK_TOKEN, 'input', 0);
    checkbox.meta = { checked: match[1] !== ' ', raw: match[0] };
    inline.children?.unshift(checkbox);
    token.attrJoin('class', 'task-list-item');
    const list = lists[lists.length - 1];
    if (list !== undefined && list.attrGet('class') === null) list.attrSet('class', 'contains-task-list');
  }
}
