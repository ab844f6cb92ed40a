// Test doubles of the providers' HTTP APIs, each a real local server speaking that API's wire
// protocol: Twilio's Messages and Calls resources (form-encoded, Basic auth, 201 with an SM… or CA…
// sid; a message From a number or through a Messaging Service), SendGrid's v3 Mail Send (JSON,
// Bearer key, 202 with X-Message-Id) and Meta's WhatsApp Cloud messages (JSON, Bearer token, 200
// with a wamid). They check credentials as the real ones do (401), keep what they took, and refuse a
// recipient on request with the provider's own error body.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TakenRequest {
  provider: 'twilio' | 'sendgrid' | 'whatsapp';
  path: string;
  authorization: string | undefined;
  form?: URLSearchParams;
  json?: any;
}

export interface ProviderApis {
  url: string;
  taken: TakenRequest[];
  /** recipients the APIs refuse as invalid (a permanent 400 in each API's own shape) */
  refuse: Set<string>;
  close(): Promise<void>;
}

/** One Twilio account the double knows: its Account SID and auth token. */
export interface TwilioAccount {
  sid: string;
  token: string;
}

const sid = (prefix: 'SM' | 'CA') => `${prefix}${randomBytes(16).toString('hex')}`;

/** Twilio's error body: `{code, message, more_info, status}`. */
const twilioError = (status: number, code: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/** `twilio`: the Twilio account (or accounts) whose credentials it takes. */
export async function startProviderApis(accounts: { twilio: TwilioAccount | TwilioAccount[]; sendgridKey: string; whatsappToken: string }): Promise<ProviderApis> {
  const twilioAccounts = [accounts.twilio].flat();
  const taken: TakenRequest[] = [];
  const refuse = new Set<string>();
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const path = req.url ?? '';
    const twilio = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls)\.json$/.exec(path);
    if (req.method === 'POST' && twilio) {
      const account = twilioAccounts.find((a) => a.sid === twilio[1]);
      const basic = account && `Basic ${Buffer.from(`${account.sid}:${account.token}`).toString('base64')}`;
      if (!account || req.headers.authorization !== basic) return send(401, twilioError(401, 20003, 'Authenticate'));
      const form = new URLSearchParams(body);
      taken.push({ provider: 'twilio', path, authorization: req.headers.authorization, form });
      const to = form.get('To');
      const common = { account_sid: account.sid, api_version: '2010-04-01', to };
      if (twilio[2] === 'Calls') {
        // the call is placed later; its TwiML (Url, Twiml or ApplicationSid) is read when it is answered
        if (!to) return send(400, twilioError(400, 21201, "No 'To' number is specified"));
        if (!form.get('From')) return send(400, twilioError(400, 21213, "No 'From' number is specified"));
        if (!form.get('Url') && !form.get('Twiml') && !form.get('ApplicationSid')) return send(400, twilioError(400, 21205, 'Url parameter is required.'));
        if (refuse.has(to)) return send(400, twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`));
        const callSid = sid('CA');
        return send(201, { ...common, sid: callSid, from: form.get('From'), status: 'queued', uri: `/2010-04-01/Accounts/${account.sid}/Calls/${callSid}.json` });
      }
      // a message From a number, or through a Messaging Service (then `accepted`: the service picks the sender)
      const service = form.get('MessagingServiceSid');
      if (!form.get('From') && !service) return send(400, twilioError(400, 21603, "A 'From' phone number is required."));
      if (refuse.has(to ?? '')) return send(400, twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`));
      const messageSid = sid('SM');
      return send(201, {
        ...common, sid: messageSid, from: form.get('From'), messaging_service_sid: service, body: form.get('Body'), status: service && !form.get('From') ? 'accepted' : 'queued',
        uri: `/2010-04-01/Accounts/${account.sid}/Messages/${messageSid}.json`,
      });
    }
    if (req.method === 'POST' && path === '/v3/mail/send') {
      if (req.headers.authorization !== `Bearer ${accounts.sendgridKey}`) return send(401, { errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null }] });
      const json = JSON.parse(body);
      taken.push({ provider: 'sendgrid', path, authorization: req.headers.authorization, json });
      if (refuse.has(json.personalizations?.[0]?.to?.[0]?.email)) return send(400, { errors: [{ message: 'Does not contain a valid address.', field: 'personalizations.0.to.0.email' }] });
      res.writeHead(202, { 'x-message-id': randomBytes(11).toString('base64url') });
      return res.end();
    }
    const whatsapp = /^\/v\d+\.\d+\/(\d+)\/messages$/.exec(path);
    if (req.method === 'POST' && whatsapp) {
      if (req.headers.authorization !== `Bearer ${accounts.whatsappToken}`) return send(401, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
      const json = JSON.parse(body);
      taken.push({ provider: 'whatsapp', path, authorization: req.headers.authorization, json });
      if (refuse.has(`+${json.to}`)) return send(400, { error: { message: '(#131030) Recipient phone number not in allowed list', type: 'OAuthException', code: 131030 } });
      return send(200, { messaging_product: 'whatsapp', contacts: [{ input: json.to, wa_id: json.to }], messages: [{ id: `wamid.${randomBytes(12).toString('hex')}` }] });
    }
    send(404, { message: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    taken,
    refuse,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
