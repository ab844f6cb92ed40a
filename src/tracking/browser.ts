// What a website gets: the ready-to-paste <script> of GET /v1/account/tracking-key, in the style of
// analytics.js (it defines window.engage as a function that queues its calls, and loads the SDK
// asynchronously), and the SDK itself, the hand-written src/tracking/sdk.ts, which sends what was
// queued and every call after it.
import { createHash } from 'node:crypto';
import { SDK_SOURCE } from './sdk.ts';

/** Where the SDK and the ingestion endpoint are, under the service's public base URL. */
export const SDK_PATH = '/v1/track/sdk.js';
export const INGEST_PATH = '/v1/track';

/** A value as a JavaScript string literal that cannot close the <script> element it sits in. */
const literal = (value: string) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

export function trackingSnippet(publicKey: string, scriptUrl: string, ingestUrl: string): string {
  return [
    '<script>',
    '!function(w,d){if(w.engage)return;var e=w.engage=function(){e.q.push(arguments)};e.q=[];' +
      `e.key=${literal(publicKey)};e.url=${literal(ingestUrl)};` +
      'var s=d.createElement("script");s.async=!0;' +
      `s.src=${literal(scriptUrl)};` +
      'var f=d.getElementsByTagName("script")[0];f?f.parentNode.insertBefore(s,f):d.head.appendChild(s)}(window,document);',
    'engage("page");',
    '</script>',
  ].join('\n');
}

/** The SDK's source and its ETag. */
export function readSdk(): { source: string; etag: string } {
  const source = SDK_SOURCE;
  return { source, etag: `"${createHash('sha256').update(source).digest('base64url').slice(0, 22)}"` };
}
