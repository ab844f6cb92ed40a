// An inbound email's raw bytes parsed (mailparser) into what a conversation keeps, every field
// cleaned of what Postgres cannot store (README "Security notes"). Pure: it runs on a CPU work thread.
import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser';
import { storableText } from '../storable-text.ts';

/** A Message-ID without its angle brackets, storable (README "Security notes"). */
const bare = (id: string) => storableText(id).trim().replace(/^<(.*)>$/, '$1');
const idsOf = (v: string | string[] | undefined) => (v === undefined ? [] : (Array.isArray(v) ? v : v.split(/\s+/)).map(bare).filter((id) => id.length > 0 && id.length <= 998));
const firstAddress = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value.find((v) => v.address)?.address;

/**
 * What is kept of a parsed email, every field cleaned of what Postgres cannot store (NUL dropped, a
 * lone surrogate U+FFFD): a mail server that is refused retries for days and then bounces the
 * customer's reply, so a stray byte must not cost the message.
 */
function inboundFieldsOf(mail: ParsedMail) {
  const from = firstAddress(mail.from);
  const messageId = mail.messageId ? bare(mail.messageId) : '';
  const inReplyTo = mail.inReplyTo ? bare(mail.inReplyTo) : '';
  return {
    from: from === undefined ? undefined : storableText(from),
    // (mailparser converts an HTML-only message's body to text itself)
    body: storableText(mail.text ?? '').trim(),
    subject: storableText(mail.subject ?? ''),
    html: typeof mail.html === 'string' ? storableText(mail.html) : undefined,
    messageId: messageId || undefined,
    inReplyTo: inReplyTo || undefined,
    references: idsOf(mail.references),
  };
}

export type InboundEmailFields = ReturnType<typeof inboundFieldsOf>;

/** Parses a whole message (headers and body) into its kept fields. */
export async function parseInboundEmail(raw: Uint8Array): Promise<InboundEmailFields> {
  return inboundFieldsOf(await simpleParser(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)));
}
