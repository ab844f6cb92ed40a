import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIMI_MAX_SVG_BYTES, bimiRecord, checkBimiSvg, fetchBimiLogo } from '../../src/domains/bimi.ts';
import { loopbackCertificate, type LoopbackCertificate } from '../support/tls.ts';

const ROOT_ATTRS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"';
const BODY = `  <title>Example Inc.</title>
  <defs>
    <linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>
  </defs>
  <circle cx="50" cy="50" r="50" fill="url(#g)"/>
  <path id="c" d="M25 25h50v50h-50z" style="fill:url('#g');stroke:#fff"/>
  <use xlink:href="#c" transform="rotate(45 50 50)"/>`;

/** A logo built from parts, so each fixture differs from the good one in one rule only. */
const logo = ({ name = 'svg', attrs = ROOT_ATTRS, body = BODY, prolog = '<?xml version="1.0" encoding="UTF-8"?>' } = {}) =>
  `${prolog}\n<${name} ${attrs}>\n${body}\n</${name}>\n`;

const GOOD = logo();
const codes = (svg: string) => checkBimiSvg(svg).map((i) => i.code);

describe('checkBimiSvg', () => {
  it('accepts a valid SVG Tiny PS logo', () => {
    expect(checkBimiSvg(GOOD)).toEqual([]);
  });

  it('accepts a prefixed svg root in the SVG namespace and a square given by width and height', () => {
    const prefixed = `<s:svg xmlns:s="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" width="64px" height="64"><s:title>Example</s:title><s:rect width="64" height="64"/></s:svg>`;

    expect(checkBimiSvg(prefixed)).toEqual([]);
  });

  it('requires the root to be svg in the SVG namespace', () => {
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('xmlns="http://www.w3.org/2000/svg" ', '') }))).toEqual(['root_element']);
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('2000/svg', '1999/xhtml') }))).toEqual(['root_element']);
    expect(codes(logo({ name: 'g' }))).toEqual(['root_element']);
  });

  it('requires version="1.2"', () => {
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('version="1.2"', 'version="1.1"') }))).toEqual(['version']);
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('version="1.2" ', '') }))).toEqual(['version']);
  });

  it('requires baseProfile="tiny-ps"', () => {
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('tiny-ps', 'tiny') }))).toEqual(['base_profile']);
  });

  it('requires a non-empty <title> child of the root', () => {
    expect(codes(logo({ body: BODY.replace('<title>Example Inc.</title>', '') }))).toEqual(['missing_title']);
    expect(codes(logo({ body: BODY.replace('<title>Example Inc.</title>', '<title>  </title>') }))).toEqual(['missing_title']);
    expect(codes(logo({ body: BODY.replace('<title>Example Inc.</title>', '<g><title>Nested</title></g>') }))).toEqual(['missing_title']);
  });

  it('refuses scripts', () => {
    expect(codes(logo({ body: `${BODY}\n<script>alert(1)</script>` }))).toEqual(['script']);
  });

  it('refuses foreignObject', () => {
    expect(codes(logo({ body: `${BODY}\n<foreignObject width="10" height="10"><p xmlns="http://www.w3.org/1999/xhtml">hi</p></foreignObject>` }))).toEqual(['foreign_object']);
  });

  it.each(['animate', 'animateMotion', 'animateColor', 'animateTransform', 'set'])('refuses the animation element <%s>', (element) => {
    const issues = checkBimiSvg(logo({ body: BODY.replace('<circle cx="50" cy="50" r="50" fill="url(#g)"/>', `<circle cx="50" cy="50" r="50" fill="url(#g)"><${element} attributeName="r" to="40" dur="1s"/></circle>`) }));

    expect(issues.map((i) => i.code)).toEqual(['animation']);
    expect(issues[0].message).toContain(`<${element}>`);
  });

  it('refuses images, embedded or external', () => {
    expect(codes(logo({ body: `${BODY}\n<image width="10" height="10" xlink:href="#c"/>` }))).toEqual(['image']);
    expect(codes(logo({ body: `${BODY}\n<image width="10" height="10" href="https://cdn.example.com/logo.png"/>` }))).toEqual(['image', 'external_reference']);
  });

  it('refuses references outside the file: href, xlink:href, CSS url() and style sheets', () => {
    expect(codes(logo({ body: `${BODY}\n<use xlink:href="https://example.com/sprite.svg#c"/>` }))).toEqual(['external_reference']);
    expect(codes(logo({ body: `${BODY}\n<a href="https://example.com/"><rect width="1" height="1"/></a>` }))).toEqual(['external_reference']);
    expect(codes(logo({ body: `${BODY}\n<rect width="1" height="1" fill="url(https://example.com/p.svg#g)"/>` }))).toEqual(['external_reference']);
    expect(codes(logo({ body: `${BODY}\n<style>@import "https://example.com/logo.css";</style>` }))).toEqual(['external_reference']);
    expect(codes(logo({ prolog: '<?xml version="1.0"?>\n<?xml-stylesheet type="text/css" href="https://example.com/logo.css"?>' }))).toEqual(['external_reference']);
  });

  it('refuses event attributes, on the root or inside', () => {
    expect(codes(logo({ body: `${BODY}\n<rect width="1" height="1" onclick="alert(1)"/>` }))).toEqual(['event_attribute']);
    expect(codes(logo({ attrs: `${ROOT_ATTRS} onload="alert(1)"` }))).toEqual(['event_attribute']);
  });

  it('refuses x and y on the root', () => {
    expect(codes(logo({ attrs: `${ROOT_ATTRS} x="0"` }))).toEqual(['root_position']);
    expect(codes(logo({ attrs: `${ROOT_ATTRS} x="0" y="0"` }))).toEqual(['root_position', 'root_position']);
  });

  it('says so when the logo is not square', () => {
    const wide = checkBimiSvg(logo({ attrs: ROOT_ATTRS.replace('0 0 100 100', '0 0 200 100') }));
    expect(wide.map((i) => i.code)).toEqual(['not_square']);
    expect(wide[0].message).toMatch(/200 wide and 100 high/);

    const noViewBox = ROOT_ATTRS.replace(' viewBox="0 0 100 100"', '');
    expect(codes(logo({ attrs: `${noViewBox} width="64" height="32"` }))).toEqual(['not_square']);
    expect(codes(logo({ attrs: `${noViewBox} width="64" height="64"` }))).toEqual([]);
    expect(codes(logo({ attrs: noViewBox }))).toEqual(['not_square']);
    expect(codes(logo({ attrs: ROOT_ATTRS.replace('0 0 100 100', '0 0 100') }))).toEqual(['not_square']);
  });

  it('refuses a file over 32 KiB', () => {
    const padded = logo({ body: `${BODY}\n<!-- ${'x'.repeat(BIMI_MAX_SVG_BYTES)} -->` });

    expect(codes(padded)).toEqual(['too_large']);
  });

  it('refuses DOCTYPE and ENTITY declarations without parsing them', () => {
    const laughs = `<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>\n<svg ${ROOT_ATTRS}>\n${BODY.replace('Example Inc.', '&lol2;')}\n</svg>`;

    expect(codes(laughs)).toEqual(['doctype']);
    expect(codes(logo({ prolog: '<!doctype svg>' }))).toEqual(['doctype']);
  });

  it('refuses a file that is not well-formed XML', () => {
    expect(codes(GOOD.replace('</svg>', ''))).toEqual(['invalid_xml']);
    expect(codes('PNG\u0000\u0001')).toEqual(['invalid_xml']);
  });

  it('reports every failed check at once', () => {
    const bad = logo({
      attrs: ROOT_ATTRS.replace('tiny-ps', 'tiny').replace('0 0 100 100', '0 0 100 50'),
      body: `${BODY.replace('<title>Example Inc.</title>', '')}\n<script>1</script>\n<image href="#c"/>`,
    });

    expect(codes(bad).sort()).toEqual(['base_profile', 'image', 'missing_title', 'not_square', 'script']);
  });
});

describe('fetchBimiLogo', () => {
  let certificate: LoopbackCertificate;
  let server: Server;
  let ca: string;
  let origin: string;
  let connections = 0;

  beforeAll(async () => {
    // a self-signed certificate for the loopback address, trusted only through the ca option
    certificate = loopbackCertificate();
    ca = certificate.cert;
    server = createServer({ key: certificate.key, cert: ca }, (req, res) => {
      switch (req.url) {
        case '/logo.svg':
          res.writeHead(200, { 'content-type': 'image/svg+xml; charset=utf-8' }).end(GOOD);
          return;
        case '/huge.svg': {
          // chunked, no Content-Length: the limit has to hold while reading
          res.writeHead(200, { 'content-type': 'image/svg+xml' });
          for (let i = 0; i < 40; i++) res.write(`<!-- ${'x'.repeat(1019)} -->`);
          res.end(GOOD);
          return;
        }
        case '/declared-huge.svg':
          res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(`${GOOD}<!-- ${'x'.repeat(BIMI_MAX_SVG_BYTES)} -->`);
          return;
        case '/logo.txt':
          res.writeHead(200, { 'content-type': 'text/plain' }).end(GOOD);
          return;
        case '/moved.svg':
          res.writeHead(301, { location: 'https://cdn.example.com/brand/logo.svg' }).end();
          return;
        case '/silent.svg':
          // never answers: the client's timeout has to end the wait
          return;
        default:
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      }
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    certificate?.remove();
  });

  const local = { allowPrivate: true, get ca() { return ca; } };

  it('fetches and checks a good logo', async () => {
    expect(await fetchBimiLogo(`${origin}/logo.svg`, local)).toEqual({ svg: GOOD, issues: [] });
  });

  it('connects to a host name through the guarded lookup', async () => {
    const port = (server.address() as AddressInfo).port;

    expect(await fetchBimiLogo(`https://localhost:${port}/logo.svg`, local)).toEqual({ svg: GOOD, issues: [] });
  });

  it('stops reading a logo beyond maxBytes', async () => {
    const streamed = await fetchBimiLogo(`${origin}/huge.svg`, local);
    expect(streamed).toEqual({ svg: null, issues: [expect.objectContaining({ code: 'too_large' })] });

    const declared = await fetchBimiLogo(`${origin}/declared-huge.svg`, local);
    expect(declared).toEqual({ svg: null, issues: [expect.objectContaining({ code: 'too_large' })] });

    const small = await fetchBimiLogo(`${origin}/logo.svg`, { ...local, maxBytes: 100 });
    expect(small.issues.map((i) => i.code)).toEqual(['too_large']);
  });

  it('reports a content type other than image/svg+xml', async () => {
    const { svg, issues } = await fetchBimiLogo(`${origin}/logo.txt`, local);

    expect(svg).toBe(GOOD);
    expect(issues).toEqual([{ code: 'content_type', message: expect.stringContaining('text/plain') }]);
  });

  it('does not follow a redirect and names where it points', async () => {
    const { svg, issues } = await fetchBimiLogo(`${origin}/moved.svg`, local);

    expect(svg).toBeNull();
    expect(issues).toEqual([{ code: 'redirect', message: expect.stringContaining('https://cdn.example.com/brand/logo.svg') }]);
  });

  it('reports a status other than 2xx', async () => {
    expect(await fetchBimiLogo(`${origin}/missing.svg`, local)).toEqual({ svg: null, issues: [{ code: 'http_status', message: expect.stringContaining('404') }] });
  });

  it('gives up after the timeout', async () => {
    expect(await fetchBimiLogo(`${origin}/silent.svg`, { ...local, timeoutMs: 300 })).toEqual({ svg: null, issues: [expect.objectContaining({ code: 'timeout' })] });
  });

  it('verifies the certificate: without the test CA the connection fails', async () => {
    const { svg, issues } = await fetchBimiLogo(`${origin}/logo.svg`, { allowPrivate: true });

    expect(svg).toBeNull();
    expect(issues.map((i) => i.code)).toEqual(['fetch_failed']);
  });

  it('refuses loopback and private addresses without connecting unless allowPrivate', async () => {
    const before = connections;
    const port = (server.address() as AddressInfo).port;

    for (const url of [`${origin}/logo.svg`, `https://localhost:${port}/logo.svg`, `https://[::ffff:127.0.0.1]:${port}/logo.svg`, 'https://10.0.0.1/logo.svg']) {
      const result = await fetchBimiLogo(url, { ca });
      expect(result).toEqual({ svg: null, issues: [expect.objectContaining({ code: 'refused_address' })] });
    }
    expect(connections).toBe(before);
  });

  it('refuses anything but https', async () => {
    const before = connections;

    expect(await fetchBimiLogo(`http://127.0.0.1:${(server.address() as AddressInfo).port}/logo.svg`, local)).toEqual({
      svg: null,
      issues: [{ code: 'not_https', message: expect.stringContaining('https') }],
    });
    expect((await fetchBimiLogo('ftp://example.com/logo.svg', local)).issues.map((i) => i.code)).toEqual(['not_https']);
    expect((await fetchBimiLogo('not a url', local)).issues.map((i) => i.code)).toEqual(['invalid_url']);
    expect(connections).toBe(before);
  });
});

describe('bimiRecord', () => {
  it('publishes the logo at default._bimi of the domain', () => {
    expect(bimiRecord('Example.com.', 'https://example.com/brand/logo.svg')).toEqual({
      type: 'TXT',
      name: 'default._bimi.example.com',
      value: 'v=BIMI1; l=https://example.com/brand/logo.svg; a=;',
    });
  });

  it('declines BIMI with an empty location when there is no logo', () => {
    expect(bimiRecord('example.com', null)).toEqual({ type: 'TXT', name: 'default._bimi.example.com', value: 'v=BIMI1; l=; a=;' });
  });

  it('percent-encodes the characters that would end the location tag early', () => {
    expect(bimiRecord('example.com', 'https://example.com/a;b,c.svg').value).toBe('v=BIMI1; l=https://example.com/a%3Bb%2Cc.svg; a=;');
  });
});
