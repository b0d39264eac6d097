/**
 * @module cli/run
 *
 * What `perp`, the exchange's command line, does with its arguments (cli/main is the process
 * around it): `perp <command> [arguments] [options]`, `perp --help`, `perp <command> --help`.
 * Options common to every command: --url (or $PERP_URL, default http://localhost:8080),
 * --key-file (or $PERP_KEY_FILE, default ~/.perp/key), --subaccount, --json, --operator-key (or
 * $OPERATOR_KEY, default the testnet's). Arguments are read with node:util `parseArgs` (strict:
 * an unknown option is bad input).
 *
 * Exit status: 0 done; 1 the exchange refused (its status and text on one line) or could not be
 * reached; 2 bad input (one line saying what to send instead).
 *
 * `runCli` takes the arguments and where to write, and returns the exit status, so the tests read
 * every command's help and every refusal of bad input without a process each. Everything a
 * command prints goes where it is told, but `journal`: it runs the journal tool as a child
 * process writing to this process's own output, and returns the tool's exit status.
 *
 * May import: ./commands, ./usage, ../client (ExchangeError), node:util, cli/wallet-files.
 */
import { parseArgs } from 'node:util';
import { ExchangeError } from '../client/index.ts';
import { COMMANDS, type Command, type Context, type Option } from './commands.ts';
import { integer, UsageError } from './usage.ts';
import { defaultKeyFile } from './wallet-files.ts';

const COMMON: Record<string, Option> = {
  url: { type: 'string', description: 'the exchange (default $PERP_URL, else http://localhost:8080)' },
  'key-file': { type: 'string', description: 'your key (default $PERP_KEY_FILE, else ~/.perp/key)' },
  subaccount: { type: 'string', description: 'subaccount index (default 0)' },
  json: { type: 'boolean', description: "print the exchange's JSON instead of a table" },
  'operator-key': { type: 'string', description: 'operator commands: the operator key (default $OPERATOR_KEY, else the testnet key)' },
  help: { type: 'boolean', description: 'show this help' },
};

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => `${c.name} ${c.args}`.length));
  return [
    'usage: perp <command> [arguments] [options]     (in the repository: npm run cli -- <command> …)',
    '',
    ...COMMANDS.map((c) => `  ${`${c.name} ${c.args}`.padEnd(width)}  ${c.summary}`),
    '',
    'perp <command> --help shows its options. Exit status: 0 done, 1 refused by the exchange, 2 bad input.',
  ].join('\n');
}

function help(command: Command): string {
  const options = { ...command.options, ...(command.raw ? {} : COMMON) };
  const width = Math.max(...Object.keys(options).map((k) => k.length + (options[k].type === 'string' ? 6 : 0)));
  return [
    `usage: perp ${command.name} ${command.args}`.trimEnd(),
    '',
    command.summary,
    '',
    'options:',
    ...Object.entries(options).map(([name, o]) => `  --${`${name}${o.type === 'string' ? ' VALUE' : ''}`.padEnd(width)}  ${o.description}`),
  ].join('\n');
}

async function main(argv: string[], out: (text: string) => void): Promise<void | number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    out(overview());
    return;
  }
  const command = COMMANDS.find((c) => c.name === `${argv[0]} ${argv[1]}`) ?? COMMANDS.find((c) => c.name === argv[0]);
  if (command === undefined) {
    const group = COMMANDS.filter((c) => c.name.startsWith(`${argv[0]} `)).map((c) => c.name);
    throw new UsageError(group.length > 0 ? `${argv.slice(0, 2).join(' ')}: use one of ${group.join(', ')}` : `unknown command ${argv[0]}: perp --help lists them`);
  }
  const rest = argv.slice(command.name.split(' ').length);
  if (command.raw) {
    if (rest.length === 0 || rest.includes('--help')) {
      out(help(command));
      return;
    }
    return await command.run({ positionals: rest } as Context);
  }
  const { values, positionals } = parseArgs({ args: rest, options: { ...command.options, ...COMMON }, allowPositionals: true, strict: true });
  if (values.help === true) {
    out(help(command));
    return;
  }
  const json = values.json === true;
  const ctx: Context = {
    url: ((values.url as string | undefined) ?? process.env.PERP_URL ?? 'http://localhost:8080').replace(/\/+$/, ''),
    keyFile: (values['key-file'] as string | undefined) ?? defaultKeyFile(),
    subaccountIndex: integer('--subaccount', values.subaccount as string | undefined, 0),
    json,
    operatorKey: (values['operator-key'] as string | undefined) ?? process.env.OPERATOR_KEY ?? 'testnet-operator-key',
    values,
    positionals,
    show: (data, human) => out(json ? JSON.stringify(data, null, 2) : human()),
    print: out,
  };
  return await command.run(ctx);
}

/** Where `runCli` writes: standard output and standard error in the process, buffers in a test. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs `perp ARGV` and resolves with its exit status: 0 done, 1 refused by the exchange or not
 * reached, 2 bad input (each with its one line on `err`). Anything else is a defect and rejects.
 */
export async function runCli(argv: string[], io: CliOutput): Promise<number> {
  try {
    return (await main(argv, io.out)) ?? 0;
  } catch (error) {
    const e = error as Error & { code?: string };
    if (error instanceof UsageError || e.code?.startsWith('ERR_PARSE_ARGS')) {
      // One line, as every refusal: node's parseArgs explains some errors over three lines.
      io.err(`perp: ${e.message.replace(/\s*\n\s*/g, ' ')}`);
      return 2;
    }
    if (error instanceof ExchangeError) {
      io.err(`perp: ${error.status === 0 ? '' : `${error.request}: ${error.status} `}${error.message}`);
      return 1;
    }
    throw error;
  }
}
