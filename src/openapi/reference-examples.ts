import type { ViewBudget } from './reference-budget.ts';
import { follow, isObject, textOf, type Json } from './reference-json.ts';
import type { ExampleView } from './reference-view.types.ts';

const MAX_EXAMPLES = 5;
const MAX_EXAMPLE_CHARS = 8_000;
const MAX_TEXT = 2_000;
/** Example text on one page, in characters; beyond it examples are left out. */
const EXAMPLES_PER_PAGE = 1_000_000;

/**
 * The examples of a reference page. One example object may be named by thousands of operations
 * (a `$ref`): its text is written once and reused, and the page's total is bounded.
 */
export class ExampleTexts {
  private readonly texts = new Map<unknown, string>();
  private chars = EXAMPLES_PER_PAGE;

  constructor(
    private readonly doc: Json,
    private readonly budget: ViewBudget,
  ) {}

  /** A media type's or parameter's examples: `example`, the `examples` map, else the schema's own. */
  of(holder: Json, schema: unknown): ExampleView[] {
    const views: ExampleView[] = [];
    if (holder.example !== undefined)
      views.push({ name: null, summary: '', value: this.text(holder.example) });
    if (isObject(holder.examples)) {
      for (const [name, raw] of Object.entries(holder.examples).slice(0, MAX_EXAMPLES)) {
        const example = follow(this.doc, raw).node;
        if (!isObject(example)) continue;
        const value = 'value' in example ? example.value : textOf(example.externalValue);
        views.push({
          name: this.budget.text(name, MAX_TEXT),
          summary: this.budget.text(textOf(example.summary), MAX_TEXT),
          value: this.text(value),
        });
      }
    }
    const schemaNode = follow(this.doc, schema).node;
    if (views.length === 0 && isObject(schemaNode) && schemaNode.example !== undefined) {
      views.push({ name: null, summary: '', value: this.text(schemaNode.example) });
    }
    return views.filter((view) => view.value !== '');
  }

  /** An example as text (pretty JSON, or a string as it is): each written once, within the page's total. */
  text(value: unknown): string {
    const known = this.texts.get(value);
    if (known !== undefined) return known;
    let text: string;
    if (this.chars <= 0) {
      this.budget.cut = true;
      text = '';
    } else {
      try {
        text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '');
      } catch {
        // A value that holds itself (YAML aliases) has no JSON text.
        text = '';
      }
      text = this.budget.text(text, MAX_EXAMPLE_CHARS);
      this.chars -= text.length;
    }
    if (typeof value === 'object' && value !== null) this.texts.set(value, text);
    return text;
  }
}

/** The value of the first entry of an `examples` map, or undefined. */
export function firstExampleValue(doc: Json, examples: unknown): unknown {
  if (!isObject(examples)) return undefined;
  const first = follow(doc, Object.values(examples)[0]).node;
  return isObject(first) ? first.value : undefined;
}
