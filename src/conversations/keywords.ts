// The sms/whatsapp keywords every sender must honour (README "Inbound messages and conversations"): the whole
// trimmed body, in any case, is the keyword; a sentence that merely contains one is a message.
import type { Keyword } from '../../commands/conversation.ts';

const KEYWORDS: Readonly<Record<string, Keyword>> = {
  STOP: 'stop', STOPALL: 'stop', UNSUBSCRIBE: 'stop', CANCEL: 'stop', END: 'stop', QUIT: 'stop',
  START: 'start', UNSTOP: 'start',
  HELP: 'help',
};

export function keywordOf(body: string): Keyword | undefined {
  return Object.hasOwn(KEYWORDS, body.trim().toUpperCase()) ? KEYWORDS[body.trim().toUpperCase()] : undefined;
}

/** What HELP answers when the account has set no help text of its own. */
export const defaultHelpText = (accountName: string) => `${accountName}: reply STOP to unsubscribe, START to subscribe again.`;
