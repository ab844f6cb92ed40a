// The engage browser SDK as the text GET /v1/track/sdk.js serves, byte for byte (README "Browser
// tracking"). It is plain ES5 JavaScript for the browser, not code of this service: it lives in a
// string so that the compiled service (npm run build, the Docker image) carries it with no asset to
// copy. It must contain no backtick and no dollar-brace.
export const SDK_SOURCE = String.raw`/*
 * engage browser SDK, served at /v1/track/sdk.js (README "Browser tracking"). Hand-written, no build
 * step, plain ES5 so that every browser still in use runs it as it is.
 *
 * The snippet defines window.engage as a function that queues its calls (with .key and .url); this
 * script sends what was queued, then takes calls directly:
 *   engage('identify', {email | phone | external_id, user_hash?, traits?})
 *   engage('track', name, properties?)
 *   engage('page', properties?)      url, path, title and referrer are added
 *   engage('reset')                  forgets the visitor (on sign-out)
 * The identity is kept in memory and in localStorage, so later pages need not identify again.
 * Events made before the visitor is identified wait (up to 100, in memory) and go with the identity.
 * The calls of one tick go as one POST of text/plain JSON: a simple CORS request, so no preflight.
 * Failures are reported on the console; nothing here ever throws into the page.
 */
(function (window) {
  'use strict';

  var stub = window.engage;
  if (typeof stub !== 'function' || stub.loaded) return;

  var MAX_EVENTS_PER_REQUEST = 50;
  var MAX_WAITING = 100;
  var IDENTIFIERS = ['email', 'phone', 'external_id'];

  function report(level, message, detail) {
    try {
      var c = window.console;
      if (c && c[level]) c[level]('[engage] ' + message, detail === undefined ? '' : detail);
    } catch (e) {
      /* a console that throws: nothing more to do */
    }
  }

  var key = stub.key;
  var url = stub.url;
  if (typeof key !== 'string' || typeof url !== 'string') {
    report('error', 'the snippet gives no tracking key or url: nothing will be sent');
    return;
  }
  var storageKey = 'engage.identity.' + key;

  function loadIdentity() {
    try {
      var value = JSON.parse(window.localStorage.getItem(storageKey) || 'null');
      return value && typeof value === 'object' ? value : null;
    } catch (e) {
      return null; // storage disabled or unreadable: in memory only
    }
  }

  function saveIdentity(value) {
    try {
      if (value) window.localStorage.setItem(storageKey, JSON.stringify(value));
      else window.localStorage.removeItem(storageKey);
    } catch (e) {
      /* storage disabled: in memory only */
    }
  }

  function extend(target, source) {
    if (source && typeof source === 'object') for (var k in source) if (Object.prototype.hasOwnProperty.call(source, k)) target[k] = source[k];
    return target;
  }

  var identity = loadIdentity();
  /** events made while nobody was identified */
  var waiting = [];
  /** what goes in the next request: {identity, identify, traits, events} */
  var batch = null;
  var timer = null;

  function handleAnswer(status, text) {
    var body = null;
    try {
      body = JSON.parse(text);
    } catch (e) {
      /* not JSON */
    }
    if (status >= 400) {
      report('error', body && body.error ? body.error + ': ' + body.message : 'the request failed with HTTP ' + status);
      return;
    }
    var results = (body && body.results) || [];
    for (var i = 0; i < results.length; i++) {
      if (results[i].status === 'failed') report('warn', 'an event was refused: ' + results[i].error + ': ' + results[i].message);
    }
    // traits the account does not let a browser set: left out, the rest applied
    if (body && body.ignored_traits && body.ignored_traits.length) report('warn', 'traits ignored (not allowed for the browser by the account): ' + body.ignored_traits.join(', '));
  }

  function post(body) {
    var text = JSON.stringify(body);
    if (typeof window.fetch === 'function') {
      window
        .fetch(url, {
          method: 'POST',
          body: text,
          mode: 'cors',
          credentials: 'omit',
          // keepalive lets a request made as the page unloads finish (its body is limited to 64 KiB)
          keepalive: text.length < 60000,
          headers: { 'Content-Type': 'text/plain;charset=UTF-8' },
        })
        .then(function (res) {
          return res.text().then(function (t) {
            handleAnswer(res.status, t);
          });
        })
        .then(null, function (err) {
          // a CORS refusal (an origin the key does not allow), a rate limit or the network
          report('error', 'could not send to ' + url + ' (origin not allowed, rate limited or offline)', err && err.message);
        });
    } else if (window.navigator && typeof window.navigator.sendBeacon === 'function') {
      if (!window.navigator.sendBeacon(url, text)) report('error', 'the browser refused to send the events');
    } else {
      report('error', 'this browser can send nothing (no fetch, no sendBeacon)');
    }
  }

  function flush() {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    var b = batch;
    batch = null;
    if (!b) return;
    var first = true;
    for (var at = 0; first || at < b.events.length; at += MAX_EVENTS_PER_REQUEST) {
      var body = { key: key, identity: b.identity };
      // the traits go once, with the first request
      if (first && b.traits) body.traits = b.traits;
      var events = b.events.slice(at, at + MAX_EVENTS_PER_REQUEST);
      if (events.length) body.events = events;
      if (events.length || (first && b.identify)) post(body);
      first = false;
    }
  }

  function schedule() {
    if (timer === null) timer = setTimeout(flush, 0);
  }

  function sameIdentity(a, b) {
    return JSON.stringify(a) === JSON.stringify(b);
  }

  function open() {
    if (batch && !sameIdentity(batch.identity, identity)) flush();
    if (!batch) batch = { identity: identity, identify: false, traits: null, events: [] };
    return batch;
  }

  function add(event) {
    if (!identity) {
      if (waiting.length >= MAX_WAITING) {
        waiting.shift();
        report('warn', 'more than ' + MAX_WAITING + ' events are waiting for identify: the oldest was dropped');
      }
      waiting.push(event);
      return;
    }
    open().events.push(event);
    schedule();
  }

  function identify(input) {
    if (!input || typeof input !== 'object') {
      report('error', "identify needs an object: {email | phone | external_id, user_hash?, traits?}");
      return;
    }
    var next = {};
    var named = 0;
    for (var i = 0; i < IDENTIFIERS.length; i++) {
      var value = input[IDENTIFIERS[i]];
      if (value !== undefined && value !== null) {
        next[IDENTIFIERS[i]] = String(value);
        named++;
      }
    }
    if (named !== 1) {
      report('error', 'identify needs exactly one of email, phone or external_id');
      return;
    }
    if (input.user_hash !== undefined && input.user_hash !== null) next.user_hash = String(input.user_hash);
    identity = next;
    saveIdentity(next);
    var b = open();
    b.identify = true;
    if (input.traits && typeof input.traits === 'object') b.traits = extend(b.traits || {}, input.traits);
    // what the visitor did before being identified is theirs
    while (waiting.length) b.events.push(waiting.shift());
    schedule();
  }

  function track(name, properties) {
    if (typeof name !== 'string' || name === '') {
      report('error', "track needs an event name: engage('track', 'Signed Up', {plan: 'pro'})");
      return;
    }
    var event = { type: 'track', name: name, timestamp: new Date().toISOString() };
    if (properties !== undefined && properties !== null) event.properties = properties;
    add(event);
  }

  function page(properties) {
    var location = window.location;
    var document = window.document;
    var base = { url: location.href, path: location.pathname, title: document.title, referrer: document.referrer };
    add({ type: 'page', properties: extend(base, properties), timestamp: new Date().toISOString() });
  }

  function reset() {
    flush();
    identity = null;
    waiting = [];
    saveIdentity(null);
  }

  function engage(method) {
    try {
      if (method === 'identify') identify(arguments[1]);
      else if (method === 'track') track(arguments[1], arguments[2]);
      else if (method === 'page') page(arguments[1]);
      else if (method === 'reset') reset();
      else report('error', 'unknown call ' + String(method) + ": use identify, track, page or reset");
    } catch (err) {
      report('error', 'could not handle ' + String(method), err);
    }
  }

  engage.key = key;
  engage.url = url;
  engage.loaded = true;
  var queued = stub.q || [];
  window.engage = engage;
  for (var i = 0; i < queued.length; i++) engage.apply(null, queued[i]);

  // a page being left sends what is still in this tick's batch (keepalive carries it through)
  if (window.addEventListener) window.addEventListener('pagehide', flush);
})(window);
`;
