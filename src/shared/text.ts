import { InvalidFieldError } from '../errors.ts';

/** Names and titles label things people pick from lists: whitespace alone names nothing. */
export function assertNotBlank(field: string, value: string): void {
  if (value.trim() === '') throw new InvalidFieldError(field, 'must not be blank');
}
