// The TwiML a Twilio voice integration's call reads out (README "Voice and RCS: Twilio"): the
// message's text in <Say>, escaped, so a message is only ever words and never markup of its own.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { sayTwiml } from '../../src/channels/twilio-voice.ts';

describe('sayTwiml', () => {
  it('says the text, its markup characters escaped', () => {
    const twiml = sayTwiml('Tom & "Jerry" <3 it\'s');
    expect(twiml).toBe('<Response><Say>Tom &amp; &quot;Jerry&quot; &lt;3 it&apos;s</Say></Response>');
    expect(new XMLParser().parse(twiml)).toEqual({ Response: { Say: 'Tom & "Jerry" <3 it\'s' } });
  });

  it('keeps text that looks like TwiML as words', () => {
    const twiml = sayTwiml('</Say><Dial>+19005550100</Dial><Say>');
    expect(XMLValidator.validate(twiml)).toBe(true);
    expect(new XMLParser().parse(twiml)).toEqual({ Response: { Say: '</Say><Dial>+19005550100</Dial><Say>' } });
  });

  it('leaves out characters XML cannot carry, keeping line breaks', () => {
    const twiml = sayTwiml('code\u0000 12\u000734\nthanks');
    expect(twiml).toBe('<Response><Say>code 1234\nthanks</Say></Response>');
    expect(XMLValidator.validate(twiml)).toBe(true);
  });
});
