/**
 * What a command of `bin/quire` declares: its options, its arguments, a line saying what it does and a
 * few examples. The parser (src/cli/program.ts) builds the help, the suggestions and the checks of
 * choices from it; the command itself gets the values typed by this declaration.
 */

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** the value's placeholder in help and usage (`ID`, `NAME`) */
  value?: string;
  description: string;
  /** the only values allowed: the parser refuses others, listing these */
  choices?: readonly string[];
  /** shown as required (the command checks it, so an empty value is refused alike) */
  required?: boolean;
  /** read from this environment variable when the flag is not given */
  env?: string;
}

export type OptionsSpec = Record<string, OptionSpec>;

export type OptionValues<T extends OptionsSpec> = {
  [K in keyof T]?: [T[K]['type']] extends ['boolean']
    ? boolean
    : [T[K]['type']] extends ['string']
      ? string
      : string | boolean;
};

/** What a command receives from the parser. */
export interface ParsedInput<T extends OptionsSpec> {
  values: OptionValues<T>;
  positionals: string[];
}

/** A command run with `Ctx` at hand, answering `R` (the record printed, or an exit code). */
export interface CommandSpec<Ctx, R = object, T extends OptionsSpec = OptionsSpec> {
  summary: string;
  /** positional arguments, in order, as their placeholders (`ID`, `FILE.zip`); all required */
  args?: readonly string[];
  options: T;
  examples: readonly string[];
  // A method, not a property: a command typed by its own options stands in a table of commands.
  run(ctx: Ctx, input: ParsedInput<T>): Promise<R>;
}

/** Declares a command with its values typed by its options. */
export function command<Ctx, R, const T extends OptionsSpec>(
  spec: CommandSpec<Ctx, R, T>,
): CommandSpec<Ctx, R> {
  return spec;
}

/** One usage line: `key create --project ID [--name NAME] [--plan free|grow|enterprise]`. */
export function usageLine(name: string, spec: CommandSpec<never, unknown>): string {
  const parts = [name, ...(spec.args ?? [])];
  for (const [flag, option] of Object.entries(spec.options)) {
    const value =
      option.type === 'boolean'
        ? ''
        : ` ${option.choices ? option.choices.join('|') : (option.value ?? 'VALUE')}`;
    parts.push(option.required === true ? `--${flag}${value}` : `[--${flag}${value}]`);
  }
  return parts.join(' ');
}
