// Inbound provider callbacks: the platform-internal endpoints under /v1/webhooks/<provider>
// through which carriers and channel providers report what became of the messages we handed them.
// They carry no API key; each provider proves itself with its shared secret or signature instead,
// which is why these routes live in a child context whose content-type parsers keep the raw body.
//
//   POST /v1/webhooks/sandbox   JSON, header X-Sandbox-Secret = the sandbox secret
//   POST /v1/webhooks/smtp      JSON email feedback, header X-Smtp-Feedback-Secret = the SMTP secret
//   POST /v1/webhooks/carrier   form-encoded status callback (Twilio style), header X-Twilio-Signature (or
//                               X-Carrier-Signature) = base64 HMAC-SHA1(carrier secret, or with ?integration=
//                               that Twilio integration's auth token, full URL + each param name+value sorted by name)
//   POST /v1/webhooks/whatsapp  WhatsApp Cloud API webhook JSON, header X-Hub-Signature-256 =
//                               "sha256=" + hex HMAC-SHA256(app secret, raw body)
//   GET  /v1/webhooks/whatsapp  Meta's verification handshake (hub.mode, hub.verify_token, hub.challenge)
//
// Reports become recordReports() calls: unknown messages and repeated reports change nothing and
// still answer 200 {received: n}, so a provider never retries what we already know.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../../deps.ts';
import { carrierRoutes } from './carrier.ts';
import { CALLBACK_BODY_LIMIT, providerSecrets, type ProviderRoutes } from './common.ts';
import { sandboxRoutes } from './sandbox.ts';
import { smtpRoutes } from './smtp.ts';
import { whatsappRoutes } from './whatsapp.ts';

const PROVIDERS: ProviderRoutes[] = [sandboxRoutes, smtpRoutes, carrierRoutes, whatsappRoutes];

/** Registers the providers' callback routes in a child context of their own (raw-body parsers). */
export function providerWebhookRoutes({ engage }: AppDeps): FastifyPluginAsync {
  return async (child: FastifyInstance) => {
    const secrets = await providerSecrets(engage);
    // every body arrives as raw bytes: signatures are computed over exactly what was sent
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CALLBACK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    for (const routes of PROVIDERS) routes(child, { engage, secrets });
  };
}
