// The operator's switches of an account's AI add-ons (`engage ai coach|writer enable|disable
// <account>`, README "AI helpers"): they append to the account's ai stream; the running service's
// read model picks them up. What they need of the service is imported when one runs, so that
// `engage --help` loads none of it.
import type { Command } from 'commander';
import { AI_ADDONS } from '../../commands/ai.ts';
import type { Engage } from '../context.ts';

type WithEngage = <T>(fn: (engage: Engage) => Promise<T>) => Promise<T>;
type Out = (json: boolean, value: unknown, text: () => string) => void;

export function aiCommands(ai: Command, withEngage: WithEngage, out: Out): void {
  for (const addon of AI_ADDONS) {
    const group = ai.command(addon).description(`the AI ${addon} add-on of an account`);
    for (const enabled of [true, false]) {
      group
        .command(`${enabled ? 'enable' : 'disable'} <account>`)
        .description(enabled ? `enable the AI ${addon} for an account (whether or not it asked)` : `disable the AI ${addon} for an account, or decline its request`)
        .option('--json', 'machine-readable output')
        .action(async (account: string, opts: { json?: boolean }) => {
          const { setAddon } = await import('./service.ts');
          await withEngage(async (engage) => {
            const { position: _position, ...result } = await setAddon(engage, account, addon, enabled, { actor: 'cli' });
            out(!!opts.json, result, () => `AI ${addon} of ${account} is ${result.status === 'none' ? 'off' : result.status}`);
          });
        });
    }
  }
}
