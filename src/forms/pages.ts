// What people see of a signup form (README "Signup forms"): the hosted page, the script the
// snippet loads to draw the same form into any page, the answers after a submission, and the
// confirmation page behind the emailed link (a button that POSTs: mail scanners fetch links, and a
// GET never confirms). The hosted pages are self-contained (src/html-page.ts): no script at all.
import type { FieldDefinition } from '../../commands/custom-fields.ts';
import type { FormDefinition, FormField } from '../../commands/form.ts';
import { escapeHtml, htmlPage } from '../html-page.ts';

/** The hidden fields every rendering of a form carries (README "Signup forms": bots). */
export const HONEYPOT_FIELD = '_hp';
export const STARTED_FIELD = '_started';

/** One field as the inputs a page or the script draws: its input type, and a select's options. */
export interface InputSpec {
  name: string;
  label: string;
  required: boolean;
  type: 'email' | 'tel' | 'text' | 'number' | 'date' | 'checkbox' | 'select';
  options?: string[];
}

export function inputsOf(fields: readonly FormField[], definitions: readonly FieldDefinition[]): InputSpec[] {
  const custom = new Map(definitions.map((d) => [d.key, d]));
  return fields.flatMap((f): InputSpec[] => {
    const base = { name: f.name, label: f.label, required: f.required };
    if (f.name === 'email') return [{ ...base, type: 'email' }];
    if (f.name === 'phone') return [{ ...base, type: 'tel' }];
    if (f.name === 'first_name' || f.name === 'last_name') return [{ ...base, type: 'text' }];
    const def = custom.get(f.name);
    // a custom field removed since the form was made is not asked any more
    if (!def) return [];
    if (def.type === 'boolean') return [{ ...base, type: 'checkbox' }];
    if (def.type === 'select') return [{ ...base, type: 'select', options: def.options ?? [] }];
    return [{ ...base, type: def.type === 'number' ? 'number' : def.type === 'date' ? 'date' : 'text' }];
  });
}

function inputHtml(i: InputSpec): string {
  const req = i.required ? ' required' : '';
  const label = escapeHtml(i.label);
  const name = escapeHtml(i.name);
  if (i.type === 'checkbox') return `<label><input type="checkbox" name="${name}" value="true"${req}>${label}</label>`;
  if (i.type === 'select') {
    const options = (i.options ?? []).map((o) => `<option value="${escapeHtml(o)}">${escapeHtml(o)}</option>`).join('');
    return `<label>${label}<select name="${name}"${req}><option value=""></option>${options}</select></label>`;
  }
  const autocomplete = { email: 'email', phone: 'tel', first_name: 'given-name', last_name: 'family-name' }[i.name];
  return `<label>${label}<input type="${i.type}" name="${name}"${autocomplete ? ` autocomplete="${autocomplete}"` : ''}${req}></label>`;
}

/** The hosted form: it posts to the public submit route with its start token and an empty honeypot. */
export function formPage(def: FormDefinition, inputs: readonly InputSpec[], submitUrl: string, startToken: string): string {
  return htmlPage(
    def.name,
    `<h1>${escapeHtml(def.name)}</h1>
<form method="post" action="${escapeHtml(submitUrl)}">
${inputs.map(inputHtml).join('\n')}
<div class="hp" aria-hidden="true"><label>Leave this empty<input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></div>
<input type="hidden" name="${STARTED_FIELD}" value="${escapeHtml(startToken)}">
<p class="consent">${escapeHtml(def.consent_text)}</p>
<button type="submit">Subscribe</button>
</form>`,
  );
}

/**
 * The script the snippet loads: it draws the form into each `[data-engage-form="<id>"]` element of
 * the page (built node by node: nothing the account wrote is read as HTML), posting where the hosted
 * page posts. Served fresh on every load, with its own start token.
 */
export function embedScript(formId: string, def: FormDefinition, inputs: readonly InputSpec[], submitUrl: string, startToken: string): string {
  const spec = { id: formId, name: def.name, consent: def.consent_text, action: submitUrl, started: startToken, inputs, honeypot: HONEYPOT_FIELD, startedField: STARTED_FIELD };
  // JSON inside a script: "<" escaped, so no "</script>" or "<!--" can end or change it
  const data = JSON.stringify(spec).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `(function () {
  var spec = ${data};
  function el(tag, attrs, text) {
    var n = document.createElement(tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) n.setAttribute(k, attrs[k]);
    if (text !== undefined) n.appendChild(document.createTextNode(text));
    return n;
  }
  function draw(host) {
    if (host.getAttribute('data-engage-drawn')) return;
    host.setAttribute('data-engage-drawn', '1');
    var form = el('form', { method: 'post', action: spec.action, 'class': 'engage-form' });
    spec.inputs.forEach(function (i) {
      var label = el('label', {});
      var attrs = { name: i.name };
      if (i.required) attrs.required = '';
      var input;
      if (i.type === 'select') {
        input = el('select', attrs);
        input.appendChild(el('option', { value: '' }, ''));
        (i.options || []).forEach(function (o) { input.appendChild(el('option', { value: o }, o)); });
      } else {
        attrs.type = i.type;
        if (i.type === 'checkbox') attrs.value = 'true';
        input = el('input', attrs);
      }
      if (i.type === 'checkbox') { label.appendChild(input); label.appendChild(document.createTextNode(i.label)); }
      else { label.appendChild(document.createTextNode(i.label)); label.appendChild(input); }
      form.appendChild(label);
    });
    var hp = el('div', { 'aria-hidden': 'true', style: 'position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden' });
    hp.appendChild(el('input', { type: 'text', name: spec.honeypot, tabindex: '-1', autocomplete: 'off' }));
    form.appendChild(hp);
    form.appendChild(el('input', { type: 'hidden', name: spec.startedField, value: spec.started }));
    form.appendChild(el('p', { 'class': 'engage-consent' }, spec.consent));
    form.appendChild(el('button', { type: 'submit' }, 'Subscribe'));
    host.appendChild(form);
  }
  function drawAll() {
    var hosts = document.querySelectorAll('[data-engage-form="' + spec.id + '"]');
    for (var i = 0; i < hosts.length; i++) draw(hosts[i]);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', drawAll);
  else drawAll();
})();
`;
}

export function pendingPage(def: FormDefinition): string {
  const where = def.confirmation.channel === 'email' ? 'your inbox' : 'your text messages';
  return htmlPage('Check your ' + (def.confirmation.channel === 'email' ? 'inbox' : 'messages'), `<h1>Almost done</h1><p>Check ${where}: follow the link we just sent to confirm your subscription to ${escapeHtml(def.name)}.</p>`);
}

export function subscribedPage(formName: string): string {
  return htmlPage('Subscribed', `<h1>You are subscribed</h1><p>Thank you: your subscription to ${escapeHtml(formName)} is confirmed.</p>`);
}

/** The page behind the confirmation link: a button that POSTs back to this same URL. */
export function confirmPage(formName: string): string {
  return htmlPage(
    'Confirm your subscription',
    `<h1>Confirm your subscription</h1><p>Confirm your subscription to <strong>${escapeHtml(formName)}</strong>?</p>
<form method="post"><input type="hidden" name="confirm" value="yes"><button type="submit">Confirm</button></form>`,
  );
}

export function formErrorPage(status: number, message: string, issues: readonly { path: string; message: string }[] = []): string {
  const title = status === 404 ? 'Not found' : status === 410 ? 'This link has expired' : 'Something is not right';
  const list = issues.length ? `<ul>${issues.map((i) => `<li>${escapeHtml(i.path)}: ${escapeHtml(i.message)}</li>`).join('')}</ul><p>Go back, correct it and send the form again.</p>` : '';
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${list}`);
}
