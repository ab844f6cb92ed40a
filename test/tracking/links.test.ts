import { createHmac, randomBytes } from 'node:crypto';
import { parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';
import { readClickToken, rewriteLinks, signClickToken } from '../../src/tracking/links.ts';

const tracked = (_url: string, index: number) => `https://t.example/c/${index}`;

/** Puts the original attribute texts back where the tracked ones are, in document order. */
function untrack(html: string, originals: string[]): string {
  const queue = [...originals];
  const restored = html.replace(/href="https:\/\/t\.example\/c\/\d+"/g, () => {
    const original = queue.shift();
    if (original === undefined) throw new Error('more tracked links than originals');
    return original;
  });
  expect(queue).toEqual([]);
  return restored;
}

const MARKETING = `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">
<head>
  <meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
  <!--[if mso]><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->
  <style type="text/css">
    a[x-apple-data-detectors] { color: inherit !important; }
    @media only screen and (max-width:600px) { .col { width:100% !important; } }
  </style>
  <title>Spring sale &mdash; 30% off</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f4;">
  <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
    <tr>
      <td align="center"   style="padding:20px 0;">
        <!--[if mso]><table width="600"><tr><td><a href="https://example.com/mso-only">MSO</a><![endif]-->
        <a class="logo" href="https://example.com/?utm_source=mail&amp;utm_medium=email" target="_blank"><img src="https://cdn.example.com/logo.png" alt="Example &amp; Co" width="120" /></a>
        <h1 style="font-family:Arial,sans-serif;font-size:28px;">Spring&nbsp;sale</h1>
        <p>Hello {{first_name}}, our <A HREF='https://shop.example.com/sale?a=1&amp;b=2' style="color:#0066cc">sale</A> is on.</p>
        <!--[if !mso]><!-->
        <a href=https://shop.example.com/new data-id=7>New in</a>
        <!--<![endif]-->
        <a
          style="display:inline-block"
          href = "https://shop.example.com/sale?a=1&amp;b=2" >Same sale again</a>
        <img src="https://cdn.example.com/map.png" usemap="#m" alt="">
        <map name="m"><area shape="rect" coords="0,0,10,10" href="https://example.com/area&#x3F;x=1" alt="area"></map>
        <a href="https://example.com/&quot;quoted&quot;">Quoted</a>
        <a href="mailto:help@example.com">Mail us</a> &middot;
        <a href="tel:+15551234567">Call</a> &middot;
        <a href="sms:+15551234567">Text</a> &middot;
        <a href="#top">Top</a> &middot;
        <a href="/relative/path">Relative</a> &middot;
        <a href="javascript:alert(1)">Script</a> &middot;
        <a href="https://example.com/u/{{contact.id}}">Profile</a> &middot;
        <a href="https://example.com/u/%7B%7Bcontact.id%7D%7D">Encoded profile</a> &middot;
        <a href="https://example.com/account" data-engage-track="off">Account</a>
      </td>
    </tr>
  </table>
</body>
</html>
`;

describe('rewriteLinks', () => {
  it('rewrites every absolute http(s) link of a marketing email and keeps every other byte', () => {
    const { html, links } = rewriteLinks(MARKETING, tracked);

    expect(links).toEqual([
      'https://example.com/?utm_source=mail&utm_medium=email',
      'https://shop.example.com/sale?a=1&b=2',
      'https://shop.example.com/new',
      'https://example.com/area?x=1',
      'https://example.com/"quoted"',
    ]);
    expect(untrack(html, [
      'href="https://example.com/?utm_source=mail&amp;utm_medium=email"',
      "HREF='https://shop.example.com/sale?a=1&amp;b=2'",
      'href=https://shop.example.com/new',
      'href = "https://shop.example.com/sale?a=1&amp;b=2"',
      'href="https://example.com/area&#x3F;x=1"',
      'href="https://example.com/&quot;quoted&quot;"',
    ])).toBe(MARKETING);
  });

  it('gives the same URL the same index each time it appears', () => {
    const seen: [string, number][] = [];
    rewriteLinks(MARKETING, (url, index) => {
      seen.push([url, index]);
      return tracked(url, index);
    });

    expect(seen.filter(([url]) => url === 'https://shop.example.com/sale?a=1&b=2')).toEqual([
      ['https://shop.example.com/sale?a=1&b=2', 1],
      ['https://shop.example.com/sale?a=1&b=2', 1],
    ]);
  });

  it('leaves mailto, tel, sms, fragments, relative, javascript, placeholders, opted-out and conditional-comment links alone', () => {
    const { html } = rewriteLinks(MARKETING, tracked);

    for (const untouched of [
      '<a href="https://example.com/mso-only">MSO</a>',
      '<a href="mailto:help@example.com">',
      '<a href="tel:+15551234567">',
      '<a href="sms:+15551234567">',
      '<a href="#top">',
      '<a href="/relative/path">',
      '<a href="javascript:alert(1)">',
      '<a href="https://example.com/u/{{contact.id}}">',
      '<a href="https://example.com/u/%7B%7Bcontact.id%7D%7D">',
      '<a href="https://example.com/account" data-engage-track="off">',
    ]) {
      expect(html).toContain(untouched);
    }
  });

  it('HTML-escapes the new URL so the attribute reads back as exactly what track returned', () => {
    const target = 'https://t.example/c?x=1&y="2"<3>';
    const { html } = rewriteLinks('<p><a href="https://example.com/">go</a></p>', () => target);

    expect(html).toBe('<p><a href="https://t.example/c?x=1&amp;y=&quot;2&quot;&lt;3&gt;">go</a></p>');
    const a = parseFragment(html).childNodes[0];
    const link = 'childNodes' in a ? a.childNodes[0] : undefined;
    expect(link && 'attrs' in link ? link.attrs : []).toEqual([{ name: 'href', value: target }]);
  });

  it('rewrites a fragment without <html>, including links the parser re-creates for misnested markup, once each', () => {
    const fragment = '  <b><a href="http://example.org/a">bold <div>block</div> link</a></b>\n<!-- footer --><p>Bye &amp; <a href=\'HTTP://EXAMPLE.org/b\'>b</a>';
    const { html, links } = rewriteLinks(fragment, tracked);

    expect(links).toEqual(['http://example.org/a', 'HTTP://EXAMPLE.org/b']);
    expect(html).toBe('  <b><a href="https://t.example/c/0">bold <div>block</div> link</a></b>\n<!-- footer --><p>Bye &amp; <a href="https://t.example/c/1">b</a>');
  });

  it('returns a document without links unchanged', () => {
    const plain = '<p>No links here, only <a name="anchor">an anchor</a> and <a href="">an empty one</a>.</p>';

    expect(rewriteLinks(plain, tracked)).toEqual({ html: plain, links: [] });
  });
});

describe('click tokens', () => {
  const key = randomBytes(32);
  const url = 'https://shop.example.com/sale?a=1&b=2#ünïcode';

  it('round-trip the message id and the URL', () => {
    const token = signClickToken(key, 'msg_01J0000000000000000000000', url);

    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(readClickToken(key, token)).toEqual({ messageId: 'msg_01J0000000000000000000000', url });
  });

  it('refuse a token whose payload was altered', () => {
    const [, signature] = signClickToken(key, 'msg_1', url).split('.');
    const forged = Buffer.from(JSON.stringify({ m: 'msg_1', u: 'https://evil.example/' })).toString('base64url');

    expect(readClickToken(key, `${forged}.${signature}`)).toBeNull();
  });

  it('refuse a token whose signature was altered', () => {
    const token = signClickToken(key, 'msg_1', url);
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);

    expect(readClickToken(key, flipped)).toBeNull();
    expect(readClickToken(key, token.slice(0, -1))).toBeNull();
    expect(readClickToken(key, `${token}A`)).toBeNull();
  });

  it('refuse a token signed with another key', () => {
    expect(readClickToken(key, signClickToken(randomBytes(32), 'msg_1', url))).toBeNull();
  });

  it('refuse garbage', () => {
    for (const garbage of ['', '.', 'abc', 'a.b.c', '!!!.???', `${'A'.repeat(10)}.${'A'.repeat(22)}`]) {
      expect(readClickToken(key, garbage)).toBeNull();
    }
  });

  it('refuse a correctly signed payload that is not {m, u}', () => {
    const payload = Buffer.from(JSON.stringify({ m: 1, u: null })).toString('base64url');
    const signature = createHmac('sha256', key).update(payload).digest().subarray(0, 16).toString('base64url');

    expect(readClickToken(key, `${payload}.${signature}`)).toBeNull();
  });
});
