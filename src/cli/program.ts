import { Command, CommanderError, Option } from 'commander';
import { oneLine } from './output.ts';
import type { CommandSpec, OptionValues, OptionsSpec, ParsedInput } from './spec.ts';

/** A table of commands by name: one word (`import`) or a group and an action (`key create`). */
export type CommandTable<Ctx, R> = Record<string, CommandSpec<Ctx, R>>;

/** What the command line asks for: a command to run, or nothing more (help shown, or refused). */
export type Parsed<Ctx, R> =
  | { kind: 'run'; name: string; spec: CommandSpec<Ctx, R>; input: ParsedInput<OptionsSpec> }
  | { kind: 'done'; code: number };

interface ParseIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * Parses `argv` with commander against `table`: per-command `--help` with examples, a suggestion for
 * a mistyped command or option, the valid values of an option with choices, values from the
 * environment (commander reads `process.env`). Help goes to standard output; a refusal is one line on standard error, exit code 2,
 * as every other usage error of the CLI.
 */
export function parseCommandLine<Ctx, R>(
  table: CommandTable<Ctx, R>,
  argv: readonly string[],
  io: ParseIo,
): Parsed<Ctx, R> {
  let chosen: Parsed<Ctx, R> | undefined;
  const program = new Command('quire')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: () => undefined, outputError: () => undefined })
    .showSuggestionAfterError(true)
    .allowExcessArguments(false)
    .helpCommand(false);
  const groups = new Map<string, Command>();
  for (const [name, spec] of Object.entries(table)) {
    const [first = '', second] = name.split(' ');
    let parent = program;
    if (second !== undefined) {
      parent = groups.get(first) ?? program.command(first).summary(`${first} commands`);
      groups.set(first, parent);
    }
    const cmd = parent.command(second ?? first).description(spec.summary);
    for (const arg of spec.args ?? []) cmd.argument(`<${arg}>`);
    const attributes: Array<[string, string]> = [];
    for (const [flag, option] of Object.entries(spec.options)) {
      const added = new Option(
        option.type === 'boolean' ? `--${flag}` : `--${flag} <${option.value ?? flag.toUpperCase()}>`,
        option.required === true ? `${option.description} (required)` : option.description,
      );
      if (option.choices) added.choices(option.choices);
      if (option.env !== undefined) added.env(option.env);
      cmd.addOption(added);
      attributes.push([flag, added.attributeName()]);
    }
    if (spec.examples.length > 0)
      cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}\n`);
    cmd.action(() => {
      const opts = cmd.opts<Record<string, string | boolean | undefined>>();
      const values: OptionValues<OptionsSpec> = {};
      for (const [flag, attribute] of attributes) values[flag] = opts[attribute];
      chosen = { kind: 'run', name, spec, input: { values, positionals: [...cmd.args] } };
    });
  }
  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
      return { kind: 'done', code: 0 };
    io.stderr(`quire: ${refusal(error, argv)}\n`);
    return { kind: 'done', code: 2 };
  }
  return chosen ?? { kind: 'done', code: 0 };
}

/** commander's message as one line: `unknown option '--nmae' (Did you mean --name?)`. */
function refusal(error: CommanderError, argv: readonly string[]): string {
  // A group without its action (`quire key`) is shown its help as an error: say what to run instead.
  if (error.code === 'commander.help' || error.code === 'commander.executeSubCommandAsync') {
    const group = argv.filter((a) => !a.startsWith('-')).join(' ');
    return `'${group}' needs a command (run 'quire ${group} --help' for the list)`;
  }
  return oneLine(error.message.replace(/^error: /, '').replace(/\n+/g, ' '));
}
