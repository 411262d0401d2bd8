// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is not ours to judge.
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;

export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL.test(value);
export const normaliseEmail = (value: string): string => value.trim().toLowerCase();
