// Test doubles of the push providers, each a real local server speaking the provider's protocol:
// Google's OAuth 2.0 token endpoint with FCM's HTTP v1 messages:send (HTTP/1.1), and Apple's APNs
// provider API (HTTP/2 over TLS with the loopback certificate of test/support/tls.ts). They check
// what the real ones check: the JWT assertion's RS256 signature by the service account's public key,
// its iss, scope, aud and lifetime; the bearer access token; APNs' ES256 provider token by the .p8
// key's public key (kid, iss, at most an hour old), :path, apns-topic, apns-push-type and
// apns-priority. They keep what they took, and answer a device token with the provider's own error
// bodies when a test scripts it. Each keeps time by the test's clock (`now`).
import { generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer, whileRunning } from './harness.ts';
import { loopbackCertificate } from './tls.ts';

export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** A Firebase service account's key file as the console gives it, with a key made for the test, and its public half. */
export function testServiceAccount(projectId = 'engage-test-1234') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccount = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    client_email: `firebase-adminsdk-x1y2z@${projectId}.iam.gserviceaccount.com`,
    client_id: '104'.padEnd(21, '7'),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/firebase-adminsdk-x1y2z%40${projectId}.iam.gserviceaccount.com`,
    universe_domain: 'googleapis.com',
  };
  return { serviceAccount, publicKey };
}

/** An APNs auth key (.p8: P-256, PKCS #8) made for the test, with its ids and public half. */
export function testApnsKey(topic = 'com.example.engage') {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    credentials: { key_p8: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, key_id: 'ABC123DEFG', team_id: 'TEAM123456', topic },
    publicKey,
  };
}

/** A device token as APNs makes them (64 hex digits). */
export const apnsDeviceToken = () => randomBytes(32).toString('hex');
/** A registration token as FCM makes them. */
export const fcmDeviceToken = () => `${randomBytes(8).toString('base64url')}:APA91b${randomBytes(100).toString('base64url')}`;

/** A scripted answer to one send to a device token. */
export interface ScriptedAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const FCM_ERROR = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const googleError = (code: number, status: string, message: string, fcmCode?: string, more: object[] = []) => ({
  error: { code, message, status, details: [...(fcmCode ? [{ '@type': FCM_ERROR, errorCode: fcmCode }] : []), ...more] },
});

/** FCM's own error answers. */
export const FCM_ANSWERS = {
  unregistered: (): ScriptedAnswer => ({ status: 404, body: googleError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED') }),
  invalidToken: (): ScriptedAnswer => ({
    status: 400,
    body: googleError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT', [
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }] },
    ]),
  }),
  senderIdMismatch: (): ScriptedAnswer => ({ status: 403, body: googleError(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH') }),
  quotaExceeded: (retryAfter: string): ScriptedAnswer => ({
    status: 429,
    body: googleError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric', 'QUOTA_EXCEEDED'),
    headers: { 'retry-after': retryAfter },
  }),
  unavailable: (): ScriptedAnswer => ({ status: 503, body: googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE') }),
};

/** APNs' own error answers. */
export const APNS_ANSWERS = {
  unregistered: (): ScriptedAnswer => ({ status: 410, body: { reason: 'Unregistered', timestamp: Date.now() } }),
  badDeviceToken: (): ScriptedAnswer => ({ status: 400, body: { reason: 'BadDeviceToken' } }),
  notForTopic: (): ScriptedAnswer => ({ status: 400, body: { reason: 'DeviceTokenNotForTopic' } }),
  tooManyRequests: (retryAfter: string): ScriptedAnswer => ({ status: 429, body: { reason: 'TooManyRequests' }, headers: { 'retry-after': retryAfter } }),
  unavailable: (): ScriptedAnswer => ({ status: 503, body: { reason: 'ServiceUnavailable' } }),
};

/** Answers scripted per device token, taken one per send; with none left, the send is taken. */
class Script {
  private readonly byToken = new Map<string, ScriptedAnswer[]>();
  add(token: string, ...answers: ScriptedAnswer[]) {
    this.byToken.set(token, [...(this.byToken.get(token) ?? []), ...answers]);
  }
  next(token: string): ScriptedAnswer | undefined {
    return this.byToken.get(token)?.shift();
  }
}

const read = (req: IncomingMessage | http2.ServerHttp2Stream) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export interface FcmSend {
  token: string;
  /** when it came (ms, Date.now) */
  at: number;
  authorization: string | undefined;
  json: any;
}

export interface FcmDouble {
  /** FCM_API_BASE */
  url: string;
  /** FCM_TOKEN_URL */
  tokenUrl: string;
  /** the claims of every assertion exchanged for an access token */
  tokenRequests: Record<string, unknown>[];
  /** assertions refused (bad signature or claims), with why */
  refusedAssertions: string[];
  sent: FcmSend[];
  script: Script;
  /** the access tokens' lifetime the endpoint answers (expires_in, seconds) */
  expiresIn: number;
  /** revokes every access token given so far: a send with one is a 401 */
  revokeTokens(): void;
  close(): Promise<void>;
}

/** Google's token endpoint (POST /token) and FCM's messages:send for the service account's project. */
export async function startFcmDouble(account: { projectId: string; clientEmail: string; publicKey: KeyObject }, now: () => number = Date.now): Promise<FcmDouble> {
  const granted = new Map<string, number>(); // access token → when it runs out (ms)
  const double = {
    tokenRequests: [] as Record<string, unknown>[],
    refusedAssertions: [] as string[],
    sent: [] as FcmSend[],
    script: new Script(),
    expiresIn: 3599,
    revokeTokens: () => granted.clear(),
  };
  let tokenUrl = '';
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (req.method === 'POST' && req.url === '/token') {
      const form = new URLSearchParams(body);
      if (req.headers['content-type'] !== 'application/x-www-form-urlencoded' || form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return send(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type: ' + form.get('grant_type') });
      }
      try {
        const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', account.publicKey, {
          algorithms: ['RS256'],
          issuer: account.clientEmail,
          audience: tokenUrl,
          requiredClaims: ['iat', 'exp'],
          currentDate: new Date(now()),
        });
        if (payload.scope !== FCM_SCOPE) throw new Error(`scope ${String(payload.scope)}`);
        if (payload.exp! - payload.iat! > 3600) throw new Error('assertion lives longer than an hour');
        if (protectedHeader.typ !== 'JWT') throw new Error(`typ ${protectedHeader.typ}`);
        double.tokenRequests.push({ ...payload, kid: protectedHeader.kid });
      } catch (err) {
        double.refusedAssertions.push((err as Error).message);
        return send(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      const token = `ya29.${randomBytes(48).toString('base64url')}`;
      granted.set(token, now() + double.expiresIn * 1000);
      return send(200, { access_token: token, expires_in: double.expiresIn, token_type: 'Bearer' });
    }
    const send_ = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
    if (req.method === 'POST' && send_) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const until = bearer ? granted.get(bearer) : undefined;
      if (until === undefined || now() >= until) {
        return send(401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.'));
      }
      if (decodeURIComponent(send_[1]) !== account.projectId) return send(403, googleError(403, 'PERMISSION_DENIED', `Permission denied on resource project ${send_[1]}.`));
      const json = JSON.parse(body);
      const token: string = json.message?.token;
      if (!token) return send(400, googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', 'INVALID_ARGUMENT'));
      double.sent.push({ token, at: Date.now(), authorization: req.headers.authorization, json });
      const scripted = double.script.next(token);
      if (scripted) return send(scripted.status, scripted.body, scripted.headers);
      return send(200, { name: `projects/${account.projectId}/messages/0:${Date.now()}%${randomBytes(8).toString('hex')}` });
    }
    send(404, googleError(404, 'NOT_FOUND', 'not found'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  tokenUrl = `${url}/token`;
  return Object.assign(double, {
    url,
    tokenUrl,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

export interface ApnsSend {
  token: string;
  /** when it came (ms, Date.now) */
  at: number;
  headers: http2.IncomingHttpHeaders;
  json: any;
  /** the provider token it carried */
  jwt: string;
}

export interface ApnsDouble {
  /** APNS_API_BASE */
  url: string;
  /** APNS_CA_FILE: the double's certificate */
  caFile: string;
  ca: string;
  sent: ApnsSend[];
  /** requests refused for what they carried (provider token, path, headers), with Apple's reason */
  refused: string[];
  script: Script;
  /** HTTP/2 sessions opened to it */
  sessions: number;
  /** the provider tokens given so far are expired: a request with one is a 403 ExpiredProviderToken */
  expireTokens(): void;
  /** sends GOAWAY on every open session, as Apple does when it closes a connection */
  goAway(): void;
  close(): Promise<void>;
}

/** APNs' provider API for one key and topic, over HTTP/2 with the loopback certificate. */
export async function startApnsDouble(key: { keyId: string; teamId: string; topic: string; publicKey: KeyObject }, now: () => number = Date.now): Promise<ApnsDouble> {
  const tls = loopbackCertificate();
  const expired = new Set<string>();
  const open = new Set<http2.ServerHttp2Session>();
  const double = {
    sent: [] as ApnsSend[],
    refused: [] as string[],
    script: new Script(),
    sessions: 0,
    expireTokens: () => {
      for (const s of double.sent) expired.add(s.jwt);
    },
    goAway: () => {
      for (const s of open) s.goaway();
    },
  };
  const server = http2.createSecureServer({ key: tls.key, cert: tls.cert });
  server.on('session', (session) => {
    double.sessions++;
    open.add(session);
    session.on('close', () => open.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', async (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => {
    stream.on('error', () => undefined);
    const body = await read(stream);
    const apnsId = (headers['apns-id'] as string | undefined) ?? randomUUID();
    const answer = (status: number, payload?: unknown, extra: Record<string, string> = {}) => {
      stream.respond({ ':status': status, 'apns-id': apnsId, ...(payload ? { 'content-type': 'application/json' } : {}), ...extra });
      stream.end(payload ? JSON.stringify(payload) : undefined);
    };
    const refuse = (status: number, reason: string) => {
      double.refused.push(reason);
      answer(status, { reason });
    };
    if (headers[':method'] !== 'POST') return refuse(405, 'MethodNotAllowed');
    const path = /^\/3\/device\/([0-9a-f]{64})$/i.exec(String(headers[':path']));
    if (!path) return refuse(404, 'BadPath');
    const jwt = /^bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    if (!jwt) return refuse(403, 'MissingProviderToken');
    if (expired.has(jwt)) return refuse(403, 'ExpiredProviderToken');
    try {
      const { payload } = await jwtVerify(jwt, key.publicKey, { algorithms: ['ES256'], issuer: key.teamId, maxTokenAge: '1h', currentDate: new Date(now()) });
      if (decodeProtectedHeader(jwt).kid !== key.keyId) throw new Error('kid');
      if (typeof payload.iat !== 'number') throw new Error('iat');
    } catch (err) {
      return refuse(403, (err as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'ExpiredProviderToken' : 'InvalidProviderToken');
    }
    if (headers['apns-topic'] !== key.topic) return refuse(400, headers['apns-topic'] ? 'BadTopic' : 'MissingTopic');
    if (headers['apns-push-type'] !== 'alert') return refuse(400, 'InvalidPushType');
    if (headers['apns-priority'] !== '10') return refuse(400, 'BadPriority');
    if (headers['apns-id'] !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(headers['apns-id']))) return refuse(400, 'BadMessageId');
    let json: any;
    try {
      json = JSON.parse(body);
    } catch {
      return refuse(400, 'PayloadEmpty');
    }
    double.sent.push({ token: path[1], at: Date.now(), headers, json, jwt });
    const scripted = double.script.next(path[1]);
    if (scripted) return answer(scripted.status, scripted.body, scripted.headers);
    answer(200);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(double, {
    url: `https://127.0.0.1:${port}`,
    caFile: tls.certFile,
    ca: tls.cert,
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      tls.remove();
    },
  });
}

/** The doubles of Firebase and Apple a suite's server sends push through, and that server. */
export interface PushSuite {
  fcm: FcmDouble;
  apns: ApnsDouble;
  server: TestServer;
}

/**
 * A server whose push integrations reach local doubles of FCM and APNs, for a file or describe block:
 * started before its tests, closed after them. The token endpoint is the service's own setting, never
 * the key file's token_uri (README "Integrations"); dispatch retries quickly and at most 3 times.
 */
export function pushSuite(firebase: ReturnType<typeof testServiceAccount>, apple: ReturnType<typeof testApnsKey>): PushSuite {
  let started: PushSuite | undefined;
  beforeAll(async () => {
    const fcm = await startFcmDouble({ projectId: firebase.serviceAccount.project_id, clientEmail: firebase.serviceAccount.client_email, publicKey: firebase.publicKey });
    const apns = await startApnsDouble({ keyId: apple.credentials.key_id, teamId: apple.credentials.team_id, topic: apple.credentials.topic, publicKey: apple.publicKey });
    const server = await startTestServer({
      FCM_API_BASE: fcm.url,
      FCM_TOKEN_URL: fcm.tokenUrl,
      APNS_API_BASE: apns.url,
      APNS_CA_FILE: apns.caFile,
      DISPATCH_RETRY_BASE_MS: '50',
      DISPATCH_MAX_ATTEMPTS: '3',
    });
    started = { fcm, apns, server };
  });
  afterAll(async () => {
    await started?.server.close();
    await started?.fcm.close();
    await started?.apns.close();
  });
  return whileRunning(() => started, 'the push suite');
}
