// Which events carry personal data, where in their data it sits, and whose it is (the subject whose
// key seals it). A new event type with personal data gets its rule here; nothing else changes.
import { addressSubject, contactSubject, submissionSubject } from './keys.ts';

type Data = Record<string, any>;

export interface PersonalDataRule {
  /** dotted paths of the personal values in the event's data */
  paths: readonly string[];
  /**
   * The subject whose key seals them (`hash` is the keyed address hash), or 'stream': the key that
   * sealed the first event of the event's stream (a message's status events are sealed like its
   * MessageAccepted, under its recipient address's key, which they do not name themselves).
   */
  subject: ((data: Data, hash: (address: string) => string) => string) | 'stream';
  /**
   * A field holding an address whose keyed hash the event also keeps in clear, as `address_hash`:
   * a reader that only needs to recognise the address (reply routing) then opens nothing.
   */
  clearHashOf?: string;
}

const CONTACT_FIELDS = (at: string) => ['email', 'phone', 'first_name', 'last_name', 'external_id'].map((f) => `${at}.${f}`);
const ofContact = (data: Data) => contactSubject(data.id as string);
const ofAddress = (field: string) => (data: Data, hash: (address: string) => string) => addressSubject((data.address_hash as string | undefined) ?? hash(String(data[field])));

export const PERSONAL_DATA_RULES: Readonly<Record<string, PersonalDataRule>> = {
  // a contact's standard identifying fields and every custom value (country, language, timezone and
  // tags stay readable: segments, quiet hours and reports use them, and they identify nobody alone)
  ContactCreated: { paths: [...CONTACT_FIELDS('fields'), 'custom_fields'], subject: ofContact },
  ContactUpdated: { paths: [...CONTACT_FIELDS('changes'), 'custom_fields'], subject: ofContact },
  // a bounce's reason is the provider's diagnostic, which names the mailbox
  ContactBounced: { paths: ['email', 'reason'], subject: ofContact },
  // a push device's token reaches the person's phone or browser: the contact's (README "Push devices")
  ContactDeviceRegistered: { paths: ['token'], subject: ofContact },
  // a signup form's submission, under its own key until it is confirmed (README "Signup forms"); the
  // consent a contact gave keeps where it came from under the contact's key
  FormSubmitted: { paths: ['fields', 'ip', 'user_agent'], subject: (data: Data) => submissionSubject(data.id as string) },
  ContactConsentRecorded: { paths: ['ip', 'user_agent'], subject: ofContact },
  // what a contact did: its properties are the contact's (the event's name stays readable for segments)
  EventTracked: { paths: ['properties'], subject: (data: Data) => contactSubject(data.contact_id as string) },
  // a message's recipient and content belong to its recipient address (erasing a contact erases the
  // keys of every address it ever had)
  MessageAccepted: { paths: ['to', 'message', 'htmlmessage', 'subject', 'reply_to', 'from_name', 'headers'], subject: ofAddress('to'), clearHashOf: 'to' },
  // the link a recipient followed came from the message's content (and may name them): the recipient address's, by its hash
  MessageLinkClicked: { paths: ['url'], subject: ofAddress('to') },
  // what providers say about a message (bounce diagnostics, SMTP replies, carrier and WhatsApp errors
  // and callback data) names its recipient: sealed like the message; a failure's category (`reason`)
  // stays readable for reports and billing (commands/message.ts MessageFailedData)
  MessageFailed: { paths: ['reason_text', 'provider_data'], subject: 'stream' },
  MessageDelivered: { paths: ['provider_data'], subject: 'stream' },
  MessageDispatchDeferred: { paths: ['error'], subject: 'stream' },
  RecipientSuppressed: { paths: ['address'], subject: ofAddress('address') },
  // what a contact wrote to us: its address and words are the contact's (our number or reply address is not personal)
  InboundMessageReceived: { paths: ['from', 'body', 'subject', 'html'], subject: (data: Data) => contactSubject(data.contact_id as string) },
  RecipientUnsuppressed: { paths: ['address'], subject: ofAddress('address') },
};
