// Test doubles of the providers' HTTP APIs, each a real local server speaking that API's wire
// protocol: Twilio's Messages resource (form-encoded, Basic auth, 201 with a sid), SendGrid's v3
// Mail Send (JSON, Bearer key, 202 with X-Message-Id) and Meta's WhatsApp Cloud messages (JSON,
// Bearer token, 200 with a wamid). They check credentials as the real ones do (401), keep what they
// took, and refuse a recipient on request with the provider's own error body.
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

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export async function startProviderApis(accounts: { twilio: { sid: string; token: string }; sendgridKey: string; whatsappToken: string }): Promise<ProviderApis> {
  const taken: TakenRequest[] = [];
  const refuse = new Set<string>();
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const path = req.url ?? '';
    const twilio = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
    if (req.method === 'POST' && twilio) {
      const basic = `Basic ${Buffer.from(`${accounts.twilio.sid}:${accounts.twilio.token}`).toString('base64')}`;
      if (twilio[1] !== accounts.twilio.sid || req.headers.authorization !== basic) return send(401, { code: 20003, message: 'Authenticate', status: 401 });
      const form = new URLSearchParams(body);
      taken.push({ provider: 'twilio', path, authorization: req.headers.authorization, form });
      if (refuse.has(form.get('To') ?? '')) return send(400, { code: 21211, message: `The 'To' number ${form.get('To')} is not a valid phone number.`, status: 400 });
      return send(201, { sid: `SM${randomBytes(16).toString('hex')}`, status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body') });
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
