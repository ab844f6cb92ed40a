// How the CLI takes a password (README "The CLI"): from --password (visible to other users of the
// machine in the process list, and kept in shell history), from the first line of stdin
// (--password-stdin, as `docker login` takes one), or asked on the terminal without echo.
import { InvalidArgumentError } from 'commander';
import { StringDecoder } from 'node:string_decoder';
import type { ReadStream } from 'node:tty';

export interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

/**
 * The password these options give. With neither, it is asked twice on the terminal (`label` names
 * whose it is); `check` refuses one before it is asked again (its message, or undefined when fine).
 */
export async function readPassword(opts: PasswordOptions, label: string, check: (password: string) => string | undefined): Promise<string> {
  if (opts.password !== undefined && opts.passwordStdin) throw new InvalidArgumentError('give --password or --password-stdin, not both');
  const checked = (password: string) => {
    const problem = check(password);
    if (problem) throw new InvalidArgumentError(problem);
    return password;
  };
  if (opts.password !== undefined) return checked(opts.password);
  const stdin = process.stdin;
  if (opts.passwordStdin && !stdin.isTTY) {
    const line = await firstLine(stdin);
    if (line === '') throw new InvalidArgumentError('no password on stdin (--password-stdin reads its first line)');
    return checked(line);
  }
  if (!stdin.isTTY) throw new InvalidArgumentError('no password given: stdin is not a terminal to ask on; pipe it with --password-stdin (or give --password, visible to other users)');
  const terminal = stdin as ReadStream;
  // raw mode from before the first prompt to after the last answer: a key typed while echo was on
  // (ahead of a prompt, or between two) would be shown
  terminal.setRawMode(true);
  try {
    const first = checked(await askWithoutEcho(terminal, `password for ${label}: `));
    // --password-stdin on a terminal: what is typed is its first line, asked once as `docker login` does
    if (opts.passwordStdin) return first;
    if ((await askWithoutEcho(terminal, 'repeat the password: ')) !== first) throw new InvalidArgumentError('the passwords do not match');
    return first;
  } finally {
    terminal.setRawMode(false);
    stdin.destroy();
  }
}

/** The first line of a stream (to its end when it has no newline), without its line ending; the rest is left unread. */
function firstLine(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    const finish = () => {
      input.off('data', onData).off('end', onEnd).off('error', reject);
      input.destroy();
      const newline = text.indexOf('\n');
      resolve((newline === -1 ? text : text.slice(0, newline)).replace(/\r$/, ''));
    };
    const onData = (chunk: Buffer) => {
      text += decoder.write(chunk);
      if (text.includes('\n')) finish();
    };
    const onEnd = () => {
      text += decoder.end();
      finish();
    };
    input.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/**
 * Writes the prompt (to stderr: stdout stays what the command prints) and reads a line from the
 * terminal, which the caller has put in raw mode: it echoes nothing of it. Backspace erases a
 * character, Ctrl-U the line; Ctrl-C stops the command (exit 130), and Ctrl-D on an empty line
 * ends it unanswered.
 */
function askWithoutEcho(terminal: ReadStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let typed: string[] = [];
    const done = () => {
      terminal.off('data', onData);
      terminal.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: Buffer) => {
      for (const c of decoder.write(chunk)) {
        if (c === '\r' || c === '\n') {
          done();
          return resolve(typed.join(''));
        }
        if (c === '\u0003') {
          done();
          terminal.setRawMode(false);
          process.exit(130);
        }
        if (c === '\u0004' && typed.length === 0) {
          done();
          return reject(new InvalidArgumentError('no password typed'));
        }
        if (c === '\u007f' || c === '\b') typed.pop();
        else if (c === '\u0015') typed = [];
        else if (c >= ' ') typed.push(c);
      }
    };
    process.stderr.write(prompt);
    terminal.on('data', onData);
    terminal.resume();
  });
}
