import type { ChangeCollector } from './definition-diff.types.ts';
import { isObject } from './reference-json.ts';

/**
 * An operation's security requirements compared. A requirement list is a choice: a client meets
 * any one of its entries, each entry naming schemes it must all satisfy (with their scopes). An
 * empty list, or an empty entry in it, lets a client send nothing. So: authentication now needed
 * where none was is breaking (`security.added`), and so is an entry the client may have met that
 * is gone (a scheme or a scope added to it makes it another entry); new entries beside old ones,
 * or needing nothing any more, are not.
 */
export function diffSecurity(out: ChangeCollector, where: string, [before, after]: [unknown[], unknown[]]) {
  const [oldEntries, newEntries] = [entriesOf(before), entriesOf(after)];
  const [wasOpen, isOpen] = [oldEntries.includes(''), newEntries.includes('')];
  if (wasOpen && !isOpen) {
    out.add('security.added', where, `authentication is now required: ${choices(newEntries)}`);
    return;
  }
  if (!wasOpen && isOpen) {
    out.add('security.removed', where, 'authentication is no longer required');
    return;
  }
  if (wasOpen) return;
  for (const entry of oldEntries) {
    if (!newEntries.includes(entry)) {
      out.add('security.requirement-removed', where, `security requirement ${entry} is no longer accepted`);
    }
  }
  for (const entry of newEntries) {
    if (!oldEntries.includes(entry)) {
      out.add('security.requirement-added', where, `security requirement ${entry} is accepted too`);
    }
  }
}

/** Each entry as text (`api_key + oauth[read, write]`); '' for an entry that needs nothing. */
function entriesOf(list: unknown[]): string[] {
  if (list.length === 0) return [''];
  return [
    ...new Set(
      list.filter(isObject).map((entry) =>
        Object.entries(entry)
          .map(([scheme, scopes]) => {
            const named = Array.isArray(scopes) ? scopes.filter((s) => typeof s === 'string').sort() : [];
            return named.length > 0 ? `${scheme}[${named.join(', ')}]` : scheme;
          })
          .sort()
          .join(' + '),
      ),
    ),
  ].sort();
}

const choices = (entries: string[]): string => entries.join(' or ');
