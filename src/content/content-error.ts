/**
 * Raised when content cannot be read (for example a page file whose front matter is not valid YAML).
 * The content module is pure and has no dependency on the service's error hierarchy; the HTTP layer
 * maps this to a 400 by its `code`.
 */
export class ContentError extends Error {
  readonly code = 'invalid_content';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ContentError';
  }
}
