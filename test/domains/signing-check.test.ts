// check-signing without DNS: from pasted headers (a blob or a JSON map) and Authentication-Results,
// whether mail from a domain carries an aligned DKIM signature, which one decided, and what else
// was seen. Look-alike and public-suffix neighbours never align; malformed signatures never decide.
import { describe, expect, it } from 'vitest';
import { checkSigning, SigningInputError, type DkimSignatureSeen } from '../../src/domains/signing-check.ts';

const CUSTOMER_SIGNATURE = `v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com;
\th=content-type:from:mime-version:subject:reply-to:list-unsubscribe:
\tlist-unsubscribe-post:to:cc:content-type:from:subject:to;
\ts=s1; bh=XHcfShLrWn+yGzIBtw2ovhWHOkluLcmqwna93G2R4H0=;
\tb=v2RZ5vIPVb2GVpZ3+vYXr3+JPInERZj+bgj0TShjRtwnWZGbESOVuKlmerPlNcTcWUqgwy
\tS46JljO5jwgyE8TPzCjX+ybswkRzRHrgtu9MOqTg5NxVxlYvgtZce/2TDW6ml5IAzA3YiI
\tRx05AEUx93Sqbs7W+Z7xue7dOKdmI0tsDUzvMC4VI+lJoC6IcQJalHqdO8o5uyr4vo1ATe
\tQ34Avj55NZ797868/G6paCHk7zXgx7sAkLjZjN2ypLLIrXAuzz2iKFLDbaNMZJPAxLQ78Q
\tI/q0qyodMYkjwRTYSKMpl6U9yJKQXYb0D5U0xTESaBa2+TzgR0glma4cAfL6qA==`;

const ESP_SIGNATURE = `v=1; a=rsa-sha256; c=relaxed/relaxed; d=sendgrid.net;
\th=content-type:from:mime-version:subject:reply-to:list-unsubscribe:
\tlist-unsubscribe-post:x-feedback-id:to:cc:content-type:from:subject:to;
\ts=smtpapi; bh=vGHnW08plvqRDbfe8mXr+hcHa/YDU3hZIOpy+f5ttBs=;
\tb=4LtDqFsvbPOwSg7Zw/QYbMxPN2VvmvWkdQEaSCXZZCoCTq6IpHnvy1EX+pBXaIvxuq+nob
\tWPl041ChMHKuaT93uHaFNXlFwX3uPDp8kipx+e12xgi4F1qd2/4kSS5D88XTcszz3S8M04
\tZIpeLYGD5fpwDzdOAOdy+ikhz+TtXzi5ubq5m5UJSN+DHt7vRUZyL/LXXz2IgNjkqmtTfg
\tcWKFHZHnSPplsoMluDJH0uUOmKGnQpAeisQuRv8stX+KiM1JX7rqv/AsOJhmZaYQAsvpUi
\tzOq46a1VqOpeZKE+v4uXzBjp/XdYmuCTfqcLdWXyYSEVR6uZS89PLqC8iKE8zg==`;

const GMAIL_AUTHENTICATION_RESULTS = `mx.google.com;
       dkim=pass header.i=@example.com header.s=s1 header.b=v2RZ5vIP;
       dkim=pass header.i=@sendgrid.net header.s=smtpapi header.b=4LtDqFsv;
       spf=pass (google.com: domain of bounces+3141592-ab12-alice=gmail.com@em1234.example.com designates 149.72.154.87 as permitted sender) smtp.mailfrom="bounces+3141592-ab12-alice=gmail.com@em1234.example.com";
       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com`;

/** Gmail's "Show original", copied: ARC set, Authentication-Results, the ESP's and the customer's signatures, a body. */
const GMAIL_ORIGINAL = `Delivered-To: alice@gmail.com
Received: by 2002:a05:6a10:8e0c:b0:5a1:3f4:1b2c with SMTP id f12csp2081553pxu;
        Mon, 1 Jul 2024 02:14:07 -0700 (PDT)
X-Google-Smtp-Source: AGHT+IEvT0qRu3w5ExampleOnlyxYz0a9
X-Received: by 2002:a05:620a:4409:b0:79d:5f5c:1e2 with SMTP id v9mr1234567qkp.12.1719825247123;
        Mon, 01 Jul 2024 02:14:07 -0700 (PDT)
ARC-Seal: i=1; a=rsa-sha256; t=1719825247; cv=none;
        d=google.com; s=arc-20160816;
        b=Zx9pQ2ExampleArcSealSignatureValueOnly0a1b2c3d4e5f6g7h8i9j0kLmNoP
         qRsTuVwXyZ==
ARC-Message-Signature: i=1; a=rsa-sha256; c=relaxed/relaxed; d=google.com; s=arc-20160816;
        h=to:subject:message-id:date:from:mime-version:dkim-signature
         :dkim-signature;
        bh=uQ2bExampleArcBodyHashOnly0123456789abcdefgh=;
        b=Kj8ExampleArcMessageSignatureValueOnly0a1b2c3d4e5f6g7h8i9j0kLmNoP==
ARC-Authentication-Results: i=1; mx.google.com;
       dkim=pass header.i=@example.com header.s=s1 header.b=v2RZ5vIP;
       dkim=pass header.i=@sendgrid.net header.s=smtpapi header.b=4LtDqFsv;
       dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com
Return-Path: <bounces+3141592-ab12-alice=gmail.com@em1234.example.com>
Received: from o1.em1234.example.com (o1.em1234.example.com. [149.72.154.87])
        by mx.google.com with ESMTPS id d75a77b69052e-446c8f2e1b3si1234567cf.512.2024.07.01.02.14.06
        for <alice@gmail.com>
        (version=TLS1_3 cipher=TLS_AES_128_GCM_SHA256 bits=128/128);
        Mon, 01 Jul 2024 02:14:07 -0700 (PDT)
Received-SPF: pass (google.com: domain of bounces+3141592-ab12-alice=gmail.com@em1234.example.com designates 149.72.154.87 as permitted sender) client-ip=149.72.154.87;
Authentication-Results: ${GMAIL_AUTHENTICATION_RESULTS}
DKIM-Signature: ${CUSTOMER_SIGNATURE}
DKIM-Signature: ${ESP_SIGNATURE}
Received: by filterdrecv-7c9c86c7b8-x2vqp with SMTP id filterdrecv-7c9c86c7b8-x2vqp-1-66827A5E-2
        2024-07-01 09:14:06.512093448 +0000 UTC m=+1234567.123456789
From: Example Shop <news@example.com>
Subject: Your July offers
Message-ID: <Qv2yTd8mS3-Z9xExampleOnly@geopod-ismtpd-3>
Date: Mon, 01 Jul 2024 09:14:06 +0000 (UTC)
MIME-Version: 1.0
To: alice@gmail.com
Content-Type: multipart/alternative; boundary=2f1c0e9a7b

--2f1c0e9a7b
Content-Type: text/plain; charset=us-ascii

Hello Alice, here are this month's offers.
`;

const CUSTOMER_SEEN: DkimSignatureSeen = {
  d: 'example.com',
  s: 's1',
  a: 'rsa-sha256',
  i: null,
  signed_headers: ['content-type', 'from', 'mime-version', 'subject', 'reply-to', 'list-unsubscribe', 'list-unsubscribe-post', 'to', 'cc', 'content-type', 'from', 'subject', 'to'],
  alignment: 'strict',
  malformed: null,
};

/** A well-formed signature for `d` (and extra tags), as a header line. */
const signature = (d: string, extra = '') =>
  `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=${d}; s=s1; ${extra}h=from:to:subject; bh=XHcfShLrWn+yGzIBtw2ovhWHOkluLcmqwna93G2R4H0=; b=v2RZ5vIPVb2GVpZ3+vYXr3+JPInERZj+bgj0TShjRtwn`;

const blob = (...lines: string[]) => ['From: Example Shop <news@example.com>', 'To: alice@example.net', 'Subject: Hi', ...lines].join('\r\n');

const inputError = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SigningInputError);
    return (error as Error).message;
  }
  throw new Error('expected a SigningInputError');
};

describe('a Gmail "Show original" copy', () => {
  it('passes on the aligned dkim=pass of Authentication-Results; both DKIM-Signatures are reported, ARC headers are not', () => {
    const check = checkSigning('example.com', GMAIL_ORIGINAL);
    expect(check.verdict).toBe('pass');
    expect(check.decided_by).toEqual({ source: 'authentication_results', d: 'example.com', s: 's1', alignment: 'strict', result: 'pass' });
    expect(check.signatures).toEqual([
      CUSTOMER_SEEN,
      {
        d: 'sendgrid.net',
        s: 'smtpapi',
        a: 'rsa-sha256',
        i: null,
        signed_headers: ['content-type', 'from', 'mime-version', 'subject', 'reply-to', 'list-unsubscribe', 'list-unsubscribe-post', 'x-feedback-id', 'to', 'cc', 'content-type', 'from', 'subject', 'to'],
        alignment: null,
        malformed: null,
      },
    ]);
    // only Authentication-Results counts: ARC-Authentication-Results repeats the same two results
    expect(check.results).toEqual([
      { result: 'pass', d: 'example.com', s: 's1', authserv_id: 'mx.google.com', alignment: 'strict' },
      { result: 'pass', d: 'sendgrid.net', s: 'smtpapi', authserv_id: 'mx.google.com', alignment: null },
    ]);
  });

  it('without Authentication-Results, the customer signature makes it present (signed, unverified)', () => {
    const headersOnly = GMAIL_ORIGINAL.replace(/^Authentication-Results:[^]*?(?=^DKIM-Signature)/m, '');
    expect(headersOnly).not.toMatch(/^Authentication-Results/m);
    const check = checkSigning('example.com', headersOnly);
    expect(check.verdict).toBe('present');
    expect(check.decided_by).toEqual({ source: 'dkim_signature', d: 'example.com', s: 's1', alignment: 'strict', result: null });
    expect(check.results).toEqual([]);
  });

  it('reads CRLF line endings the same as LF', () => {
    expect(checkSigning('example.com', GMAIL_ORIGINAL.replace(/\n/g, '\r\n'))).toEqual(checkSigning('example.com', GMAIL_ORIGINAL));
  });

  it('stops at the blank line: a DKIM-Signature line in the body is not a header', () => {
    const check = checkSigning('example.com', blob(signature('sendgrid.net'), '', signature('example.com')));
    expect(check.signatures.map((s) => s.d)).toEqual(['sendgrid.net']);
    expect(check.verdict).toBe('missing');
    expect(check.decided_by).toBeNull();
  });
});

describe('the JSON map form', () => {
  const map = {
    From: 'Example Shop <news@example.com>',
    'DKIM-Signature': [ESP_SIGNATURE, CUSTOMER_SIGNATURE],
    'authentication-results': GMAIL_AUTHENTICATION_RESULTS.replace('dkim=pass header.i=@example.com', 'dkim=fail header.i=@example.com'),
  };

  it('as text or as an object decides the same, with header names in any case and arrays of values', () => {
    const fromText = checkSigning('example.com', JSON.stringify(map, null, 2));
    expect(checkSigning('example.com', map)).toEqual(fromText);
    expect(fromText.verdict).toBe('fail');
    expect(fromText.decided_by).toEqual({ source: 'authentication_results', d: 'example.com', s: 's1', alignment: 'strict', result: 'fail' });
    expect(fromText.signatures.map((s) => [s.d, s.alignment, s.malformed])).toEqual([
      ['sendgrid.net', null, null],
      ['example.com', 'strict', null],
    ]);
  });
});

describe('Authentication-Results given separately', () => {
  it('strips comments (which may hide ";" and "="), reads header.i for the domain, and aligns a subdomain relaxed', () => {
    const ar =
      'mx.example.net 1; dkim=pass (2048-bit key; unprotected) header.i=@mail.example.com (identity; d=evil.test) header.s="s1" header.b="Qm4bX2xv"; spf=fail (sender IP is 203.0.113.5) smtp.mailfrom=example.com';
    const check = checkSigning('example.com', blob(), ar);
    expect(check.results).toEqual([{ result: 'pass', d: 'mail.example.com', s: 's1', authserv_id: 'mx.example.net', alignment: 'relaxed' }]);
    expect(check.verdict).toBe('pass');
    expect(check.decided_by).toEqual({ source: 'authentication_results', d: 'mail.example.com', s: 's1', alignment: 'relaxed', result: 'pass' });
  });

  it('prefers header.d over header.i, tolerates the field name pasted with the value, and is listed before those in the blob', () => {
    const check = checkSigning(
      'example.com',
      blob('Authentication-Results: mx.inbound.test; dkim=neutral header.d=example.com'),
      'Authentication-Results: relay.example.org; dkim=pass header.d=Example.COM header.i=@other.test header.s=s2',
    );
    expect(check.results).toEqual([
      { result: 'pass', d: 'example.com', s: 's2', authserv_id: 'relay.example.org', alignment: 'strict' },
      { result: 'neutral', d: 'example.com', s: null, authserv_id: 'mx.inbound.test', alignment: 'strict' },
    ]);
    expect(check.verdict).toBe('pass');
  });

  it('fails when results say dkim=fail for the domain and nothing aligned passes, even with an aligned signature present', () => {
    const check = checkSigning(
      'example.com',
      blob(signature('example.com'), signature('sendgrid.net')),
      'mx.example.net; dkim=fail (body hash did not verify) header.d=example.com header.s=s1; dkim=pass header.d=sendgrid.net header.s=smtpapi',
    );
    expect(check.verdict).toBe('fail');
    expect(check.decided_by).toEqual({ source: 'authentication_results', d: 'example.com', s: 's1', alignment: 'strict', result: 'fail' });
  });

  it('passes when one aligned signature failed and another aligned one passed', () => {
    const check = checkSigning('example.com', blob(), 'mx.example.net; dkim=temperror header.d=example.com; dkim=pass header.d=news.example.com header.s=k2');
    expect(check.verdict).toBe('pass');
    expect(check.decided_by).toEqual({ source: 'authentication_results', d: 'news.example.com', s: 'k2', alignment: 'relaxed', result: 'pass' });
  });

  it('dkim=none and results without a domain are listed but never decide', () => {
    const check = checkSigning('example.com', blob(), 'mx.example.net; dkim=none; dkim=pass header.s=s1; spf=pass smtp.mailfrom=example.com');
    expect(check.results).toEqual([
      { result: 'none', d: null, s: null, authserv_id: 'mx.example.net', alignment: null },
      { result: 'pass', d: null, s: 's1', authserv_id: 'mx.example.net', alignment: null },
    ]);
    expect(check.verdict).toBe('missing');
  });
});

describe('alignment', () => {
  it('a signature of a subdomain aligns relaxed', () => {
    const check = checkSigning('example.com', blob(signature('mail.example.com')));
    expect(check.verdict).toBe('present');
    expect(check.decided_by).toEqual({ source: 'dkim_signature', d: 'mail.example.com', s: 's1', alignment: 'relaxed', result: null });
  });

  it.each(['example.com.evil.test', 'notexample.com', 'example.co'])('the look-alike d=%s does not align, by signature or by result', (d) => {
    const check = checkSigning('example.com', blob(signature(d)), `mx.example.net; dkim=pass header.d=${d}`);
    expect(check.signatures[0].alignment).toBeNull();
    expect(check.results[0].alignment).toBeNull();
    expect(check.verdict).toBe('missing');
  });

  it('under a public suffix (co.uk) a neighbour does not align, a subdomain of the same name does', () => {
    expect(checkSigning('shop.co.uk', blob(signature('other.co.uk'))).verdict).toBe('missing');
    expect(checkSigning('shop.co.uk', blob(signature('mail.shop.co.uk'))).decided_by?.alignment).toBe('relaxed');
  });

  it('two customers of one hosting suffix (github.io, a private PSL entry) do not align', () => {
    expect(checkSigning('victim.github.io', blob(signature('attacker.github.io'))).verdict).toBe('missing');
  });

  it('the checked domain is compared lower-cased, without its trailing dot, in IDNA form', () => {
    const check = checkSigning('Bücher.Example.', blob(signature('xn--bcher-kva.example')));
    expect(check.decided_by).toEqual({ source: 'dkim_signature', d: 'xn--bcher-kva.example', s: 's1', alignment: 'strict', result: null });
  });
});

describe('malformed signatures are reported and never decide', () => {
  it.each([
    ['a duplicate tag', `${signature('example.com')}; d=example.com`, 'duplicate tag d='],
    ['no d=', signature('example.com').replace('d=example.com; ', ''), 'missing required tag d='],
    ['v=2', signature('example.com').replace('v=1', 'v=2'), 'v=2 is not 1'],
    ['an h= without From', signature('example.com').replace('h=from:to:subject', 'h=to:subject'), 'h= does not sign From'],
    ['an i= outside d=', signature('example.com', 'i=news@evil.test; '), 'i=news@evil.test is not within d=example.com'],
    ['a b= that is not base64', signature('example.com').replace(/b=v2RZ.*$/, 'b=not base64!'), 'b= or bh= is not base64'],
    ['a tag without a value', signature('example.com').replace('c=relaxed/relaxed', 'relaxed'), '"relaxed" is not tag=value'],
  ])('%s', (_case, line, problem) => {
    const check = checkSigning('example.com', blob(line));
    expect(check.signatures).toHaveLength(1);
    expect(check.signatures[0].malformed).toBe(problem);
    expect(check.verdict).toBe('missing');
    expect(check.decided_by).toBeNull();
  });

  it('a malformed aligned signature is passed over for a later well-formed one', () => {
    const check = checkSigning('example.com', blob(`${signature('example.com')}; s=s9`, signature('mail.example.com', 'i=@news.mail.example.com; ')));
    expect(check.signatures.map((s) => [s.d, s.alignment, s.malformed])).toEqual([
      ['example.com', 'strict', 'duplicate tag s='],
      ['mail.example.com', 'relaxed', null],
    ]);
    expect(check.decided_by).toEqual({ source: 'dkim_signature', d: 'mail.example.com', s: 's1', alignment: 'relaxed', result: null });
  });

  it('whitespace around tags and "=" and a trailing ";" are allowed', () => {
    const check = checkSigning('example.com', blob(signature('example.com').replace('d=example.com;', ' d = example.com ;') + ';'));
    expect(check.signatures[0]).toMatchObject({ d: 'example.com', malformed: null });
  });
});

describe('input that cannot be checked', () => {
  it.each([
    ['an empty string', ''],
    ['only whitespace', '  \r\n\t'],
    ['an empty JSON object', '{}'],
  ])('refuses %s as empty', (_case, headers) => {
    expect(inputError(() => checkSigning('example.com', headers))).toBe('headers are empty');
  });

  it('refuses an empty object', () => {
    expect(inputError(() => checkSigning('example.com', {}))).toBe('headers are empty');
  });

  it('refuses text with no header fields, broken JSON, a JSON array and a JSON value that is not text', () => {
    expect(inputError(() => checkSigning('example.com', 'hello, this is not a header'))).toMatch(/^no header fields found/);
    expect(inputError(() => checkSigning('example.com', '{"DKIM-Signature": "v=1;'))).toMatch(/not valid JSON/);
    expect(inputError(() => checkSigning('example.com', '[{"DKIM-Signature": "v=1"}]'))).toMatch(/must be a header blob or a JSON object/);
    expect(inputError(() => checkSigning('example.com', '{"DKIM-Signature": 1}'))).toBe('header "DKIM-Signature" must be a string or an array of strings');
  });

  it('refuses more than 256 KiB of headers', () => {
    const huge = blob(`X-Padding: ${'a'.repeat(256 * 1024)}`);
    expect(inputError(() => checkSigning('example.com', huge))).toBe('headers are larger than 256 KiB');
  });

  it('refuses a checked domain that is not a domain name', () => {
    expect(inputError(() => checkSigning('not a domain', blob()))).toBe('"not a domain" is not a domain name');
  });
});
