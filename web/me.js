// SPDX-License-Identifier: GPL-3.0-or-later
// A client's own page: who it is, what brock did for it, its recent sites with their third
// parties, and its own requests from brock's live log as they come.
'use strict';

const rows = document.getElementById('rows');
const said = document.getElementById('said');
const KEEP = 200;
const WORDS = {
  block: 'blocked', cookieblock: 'cookies blocked', allow: 'allowed',
  first_party: 'first party', disabled: 'off on this site',
};

function row(ev) {
  const tr = document.createElement('tr');
  const cells = [new Date(ev.time).toLocaleTimeString(), ev.host, ev.site || '—',
                 WORDS[ev.decision] || ev.decision, ev.status ? String(ev.status) : '—'];
  for (const text of cells) {
    const td = document.createElement('td');
    td.textContent = text;
    tr.append(td);
  }
  tr.className = `decision-${ev.decision}`;
  return tr;
}

async function who() {
  try {
    const s = await (await fetch('/api/session', { cache: 'no-store' })).json();
    if (s.owner) {
      location.replace('/');
      return;
    }
    document.getElementById('me').textContent = s.name ? `${s.name} (${s.address})` : s.address;
  } catch (e) {
    said.textContent = 'brock does not answer.';
  }
}

const ACTIONS = {
  block: 'blocked', user_block: 'blocked (the owner\'s choice)',
  cookieblock: 'loads without cookies', user_cookieblock: 'loads without cookies (the owner\'s choice)',
  allow: 'allowed, being watched', user_allow: 'allowed (the owner\'s choice)',
  dnt: 'allowed: promises not to track', noaction: 'does not appear to track',
};

const plural = (n, one) => `${n} ${one}${n === 1 ? '' : 's'}`;

async function getJSON(path, method = 'GET', body) {
  const opt = { method, cache: 'no-store', headers: {} };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  const r = await fetch(path, opt);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || `${path}: ${r.status}`);
  return data;
}

// The device's own switches, as /api/me last said them.
let mine = { paused: false, disabled_sites: [], widget_allowlist: [],
             everyone: { paused: false } };

function until(ms) {
  return ms ? `until ${new Date(ms).toLocaleString()}` : 'until you resume it';
}

function showSwitches() {
  const line = document.getElementById('switch');
  if (mine.everyone.paused) {
    line.textContent = `brock's owner paused brock for everyone ${until(mine.everyone.paused_until_ms)}.`;
  } else if (mine.paused) {
    line.textContent = `brock is paused for this device ${until(mine.paused_until_ms)}.`;
  } else {
    line.textContent = 'brock is on for this device.';
  }
  document.getElementById('resume').hidden = !mine.paused;
  document.getElementById('pause-hour').hidden = mine.paused;
  document.getElementById('pause-on').hidden = mine.paused;
  const off = document.getElementById('offsites');
  off.replaceChildren(...mine.disabled_sites.map((d) => {
    const li = document.createElement('li');
    li.append(`Off on ${d.site} ${d.until_ms ? until(d.until_ms) : 'for this device'} `,
              button('Turn brock on there', () => change('DELETE', `/api/me/disabled/${enc(d.site)}`)));
    return li;
  }));
  const widgets = document.getElementById('widgets');
  widgets.replaceChildren(...(mine.widget_allowlist || []).map((w) => {
    const li = document.createElement('li');
    li.append(`${w.widget} always loads on ${w.site} for this device `,
              button('Replace it again', () => change('DELETE', `/api/me/widgets/${enc(w.site)}`,
                                                      { widget: w.widget })));
    return li;
  }));
  for (const b of document.querySelectorAll('button[data-site]')) {
    const isOff = mine.disabled_sites.some((d) => d.site === b.dataset.site);
    b.textContent = isOff ? 'Turn brock on here' : 'Turn brock off here';
  }
}

const enc = encodeURIComponent;

function button(text, act) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', act);
  return b;
}

async function change(method, path, body) {
  try {
    mine = await getJSON(path, method, body);
    showSwitches();
  } catch (e) {
    said.textContent = e.message;
  }
}

async function switches() {
  try {
    mine = await getJSON('/api/me');
    showSwitches();
  } catch (e) {
    document.getElementById('switch').textContent = 'brock does not answer.';
  }
}

document.getElementById('pause-hour').addEventListener('click',
  () => change('PUT', '/api/me/pause', { for: '1h' }));
document.getElementById('pause-on').addEventListener('click',
  () => change('PUT', '/api/me/pause', { until_resume: true }));
document.getElementById('resume').addEventListener('click',
  () => change('DELETE', '/api/me/pause'));

// The last seven days' counts, summed.
async function week() {
  const out = document.getElementById('week');
  try {
    const days = await getJSON('/api/stats?days=7');
    const sum = (k) => days.reduce((n, d) => n + d[k], 0);
    out.textContent = `In the last seven days brock blocked ${plural(sum('blocked'), 'request')} ` +
      `of this device's and sent ${plural(sum('cookieblocked'), 'request')} without cookies; ` +
      `today this device opened pages of ${plural(days[days.length - 1].sites, 'site')}.`;
    out.dataset.blocked = sum('blocked');
  } catch (e) {
    out.textContent = 'brock does not answer.';
  }
}

// One of the device's sites: its counts, and its trackers when opened.
function siteItem(s) {
  const li = document.createElement('li');
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = `${s.site}: ${plural(s.trackers, 'third party')}, ` +
    `${s.blocked} blocked, ${s.cookieblocked} without cookies`;
  details.append(summary);
  details.addEventListener('toggle', async () => {
    if (!details.open || details.dataset.loaded) return;
    details.dataset.loaded = '1';
    const list = document.createElement('ul');
    try {
      const site = await getJSON(`/api/sites/${encodeURIComponent(s.site)}`);
      for (const t of site.trackers) {
        const item = document.createElement('li');
        item.textContent = `${t.domain}: ${ACTIONS[t.site_action || t.action] || t.action}`;
        item.className = `action-${t.site_action || t.action}`;
        list.append(item);
      }
    } catch (e) {
      list.textContent = 'brock does not answer.';
    }
    details.append(list);
  });
  li.className = 'siterow';
  li.dataset.site = s.site;
  const toggle = button('Turn brock off here', () => {
    const isOff = mine.disabled_sites.some((d) => d.site === s.site);
    change(isOff ? 'DELETE' : 'PUT', `/api/me/disabled/${enc(s.site)}`);
  });
  toggle.dataset.site = s.site;
  li.append(details, ' ', toggle);
  return li;
}

async function sites() {
  const list = document.getElementById('sites');
  try {
    const all = await getJSON('/api/sites');
    list.replaceChildren(...all.map(siteItem));
    if (!all.length) list.textContent = 'No site yet.';
    showSwitches();
  } catch (e) {
    list.textContent = 'brock does not answer.';
  }
}

const log = new EventSource('/api/log');
log.onmessage = (m) => {
  rows.prepend(row(JSON.parse(m.data)));
  while (rows.children.length > KEEP) rows.lastChild.remove();
  said.textContent = '';
};
log.onerror = () => {
  said.textContent = 'The log is not reachable; brock tries again.';
};

who();
switches().then(sites);
week();
