// SPDX-License-Identifier: GPL-3.0-or-later
// brock's dashboard: a client of brock's JSON API (/api/). Every name from the network is
// put on the page as text (textContent, attribute values), never as HTML. Views follow the
// address's fragment: #/ the map (map.js), #/sites, #/site/NAME, #/trackers, #/tracker/NAME,
// #/settings, #/log (log.js).
'use strict';

const TOKEN = document.querySelector('meta[name="brock-token"]').content;
const main = document.getElementById('main');
// Counts the views begun (route()): a view whose answers come after another view began draws
// nothing (stale()), or a slow answer would draw over the page the person went on to.
let navigation = 0;
const stale = (mine) => mine !== navigation;
const statusLine = document.getElementById('status');
let uid = 0;

// ---- helpers ----

// Appends kid to el: a node as it is, an array's items in order (arrays nest to any depth),
// anything else as text; undefined, null and false are nothing.
function put(el, kid) {
  if (kid === undefined || kid === null || kid === false) return;
  if (Array.isArray(kid)) for (const k of kid) put(el, k);
  else el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
}

// An element with attributes (on* keys become listeners) and children (see put()).
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  put(el, kids);
  return el;
}

// A domain name that a narrow screen may wrap after a dot and nowhere else: each label (with
// its dot) is a span that never breaks, and a <wbr> follows each dot.
function domain(name) {
  const labels = String(name).split('.');
  return h('span', { class: 'domain' }, labels.map((l, i) => i < labels.length - 1
    ? [h('span', { class: 'label' }, `${l}.`), h('wbr')] : h('span', { class: 'label' }, l)));
}

async function api(method, path, body) {
  const opt = { method, headers: {}, cache: 'no-store' };
  if (method !== 'GET') opt.headers['X-Brock-Token'] = TOKEN;
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const r = await fetch(path, opt);
  const type = r.headers.get('content-type') || '';
  const data = type.includes('json') ? await r.json() : await r.text();
  if (!r.ok) throw new Error((data && data.error) || r.statusText);
  return data;
}

function say(text) {
  statusLine.textContent = text;
}

const enc = encodeURIComponent;

// Privacy Badger's three positions; noaction and dnt show as allow.
function position(action) {
  if (action === 'block' || action === 'user_block') return 'block';
  if (action === 'cookieblock' || action === 'user_cookieblock') return 'cookieblock';
  return 'allow';
}

// What each of the API's action names means, in the words the page shows for it everywhere.
const ACTION_WORDS = {
  noaction: 'Allowed: not seen tracking',
  allow: 'Allowed: seen tracking on fewer than three sites',
  cookieblock: 'Cookies blocked',
  block: 'Blocked',
  dnt: 'Allowed: posts the DNT policy',
  user_allow: 'Allowed by you',
  user_cookieblock: 'Cookies blocked by you',
  user_block: 'Blocked by you',
};

function words(action) {
  return ACTION_WORDS[action] || 'Allowed';
}

function describe(t) {
  return `${t.domain}: ${words(t.action)}`;
}

// "1 site", "2 sites".
function count(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

// "1 blocked of 1 third-party domain", "2 blocked and 1 with cookies blocked of 5
// third-party domains".
function tally(blocked, cookieblocked, total) {
  const done = cookieblocked
    ? `${blocked} blocked and ${cookieblocked} with cookies blocked` : `${blocked} blocked`;
  return `${done} of ${count(total, 'third-party domain')}`;
}

// The words for the kinds of evidence the API names.
const EVIDENCE_WORDS = {
  cookie: 'Sent an identifying cookie',
  'set-cookie': 'Set an identifying cookie',
  beacon: 'Sent a tracking beacon',
  pixelcookieshare: 'Carried a site cookie in an image URL',
  canvas: 'Fingerprinted the browser by reading back a canvas it drew on',
  supercookie: 'Kept a unique value in its frame\'s local storage',
  linkdecoration: 'Was handed a site\'s cookie in the address of a link to it',
  imported: 'From Privacy Badger\'s pre-trained list or an import',
};

// What identified the tracker: the cookie's name; for pixel sharing, the cookie and the URL
// parameter that carried its value.
function evidenceDetail(e) {
  if ((e.kind === 'pixelcookieshare' || e.kind === 'linkdecoration') && (e.detail || e.param))
    return ` (cookie ${e.detail || '(no name)'} in parameter ${e.param || '(no name)'})`;
  if (e.kind === 'canvas' && e.detail) return ` (script ${e.detail})`;
  return e.detail ? ` (${e.detail})` : '';
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : 'not recorded';
}

// The three-position control: a radio group, so that keyboards and screen readers know it.
function slider(t, onchange) {
  const name = `pos${++uid}`;
  const current = position(t.action);
  const box = h('fieldset', { class: 'slider' }, h('legend', {}, `Action for ${t.domain}`));
  for (const [value, label] of [['block', 'Block'], ['cookieblock', 'Block cookies'],
                                ['allow', 'Allow']]) {
    const id = `${name}-${value}`;
    box.append(h('input', { type: 'radio', name, id, value, checked: value === current,
                            onchange: () => onchange(value) }),
               h('label', { for: id }, label));
  }
  return box;
}

// A choice for every site, or (with site) for that site only.
async function choose(name, action, site) {
  try {
    const t = await api('PUT', `/api/trackers/${enc(name)}`, site ? { action, site } : { action });
    if (site) {
      say(action === 'reset' ? `${name} on ${site}: back to the choice for every site`
                             : `${name} on ${site} only: ${words(action === 'allow' ? 'user_allow'
                               : `user_${action}`)}`);
    } else {
      say(action === 'reset' ? `${name}: back to what brock learned: ${words(t.action)}`
                             : describe(t));
    }
  } catch (e) {
    say(`Could not change ${name}: ${e.message}`);
  }
  await route();
}

// Where a slider's choice holds, on a site's page: everywhere, or on this site only (the
// position it starts in is where the tracker's choice is now).
function scope(t) {
  const name = `scope${++uid}`;
  const box = h('fieldset', { class: 'scope' },
                h('legend', {}, `Where the choice for ${t.domain} holds`));
  for (const [value, label] of [['everywhere', 'Everywhere'], ['site', 'On this site only']]) {
    const id = `${name}-${value}`;
    box.append(h('input', { type: 'radio', name, id, value,
                            checked: value === (t.site_user ? 'site' : 'everywhere') }),
               h('label', { for: id }, label));
  }
  return box;
}

// One tracker with its colour, its slider, and an undo when it is the user's choice. On a
// site's page (site given) it shows the action there, and the slider offers "on this site
// only" beside "everywhere".
function trackerRow(t, site) {
  const action = site && t.site_action ? t.site_action : t.action;
  const pos = position(action);
  const where = site ? scope(t) : null;
  const li = h('li', { class: `tracker state-${pos}`, 'data-domain': t.domain,
                       'data-action': action, title: describe({ ...t, action }) },
    h('span', { class: 'who' }, h('a', { class: 'name', href: `#/tracker/${enc(t.domain)}` },
                    domain(t.domain)),
      t.dnt ? h('span', { class: 'dnt', title: 'This domain promises not to track you' },
                'DNT') : null),
    slider({ ...t, action }, (value) => {
      const only = where && where.querySelector('input:checked').value === 'site';
      return choose(t.domain, value, only ? site : undefined);
    }),
    where);
  const extra = [`${words(action)}${t.site_user ? ' on this site only' : ''}.`];
  if (t.count) extra.push(` Seen ${count(t.count, 'time')}.`);
  if (t.site_user) {
    extra.push(' ', h('button', { class: 'link undo', type: 'button',
                                  onclick: () => choose(t.domain, 'reset', site) },
                      'Undo: back to the choice for every site'));
  } else if (t.user) {
    extra.push(' ', h('button', { class: 'link undo', type: 'button',
                                  onclick: () => choose(t.domain, 'reset') },
                      'Undo: back to what brock learned'));
  }
  li.append(h('span', { class: 'extra' }, extra));
  if (t.breakage) {
    li.append(h('p', { class: 'warning', role: 'note' },
                'Blocking this domain may break this site: Privacy Badger would only block ' +
                'its cookies. Choose "Block cookies" if the site misbehaves.'));
  }
  return li;
}

// A button that asks before it acts: it shows a confirming button and one that cancels,
// and only the first does what it says. Returns the element to put on the page.
function askFirst(id, label, question, yes, act) {
  const ask = h('span', { class: 'ask', id: `${id}-ask`, role: 'group', 'aria-label': question,
                          hidden: true }, question, ' ');
  const first = h('button', { type: 'button', id, 'aria-expanded': 'false', onclick: () => {
    ask.hidden = false;
    first.setAttribute('aria-expanded', 'true');
    ask.querySelector('button').focus();
  } }, label);
  const cancel = () => {
    ask.hidden = true;
    first.setAttribute('aria-expanded', 'false');
    first.focus();
  };
  put(ask, [h('button', { type: 'button', id: `${id}-confirm`, onclick: act }, yes), ' ',
            h('button', { type: 'button', id: `${id}-cancel`, onclick: cancel }, 'Cancel')]);
  return h('p', {}, first, ' ', ask);
}

// ---- the chart of what brock did each day ----

const SVG = 'http://www.w3.org/2000/svg';

// An SVG element, as h() makes an HTML one (no listeners).
function svg(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  put(el, kids);
  return el;
}

// One day in words, for the chart's text and screen readers.
function dayWords(d) {
  return `${d.day}: ${count(d.blocked, 'request')} blocked, ` +
         `${count(d.cookieblocked, 'request')} with cookies blocked, ` +
         `${count(d.allowed, 'request')} allowed, ${count(d.learned, 'tracker')} learned, ` +
         `${count(d.sites, 'site')} visited, ${count(d.cleaned || 0, 'link')} cleaned`;
}

const KINDS = [['blocked', 'block', 'Blocked'], ['cookieblocked', 'cookieblock', 'Cookies blocked'],
               ['allowed', 'allow', 'Allowed']];

// Requests per day as stacked bars (blocked at the bottom, then cookies blocked, allowed),
// a marker with the number above a day on which trackers were learned, and a legend with
// the period's totals. Drawn once, as wide as the page is now; every number is also text.
function chart(days) {
  const width = Math.max(300, main.clientWidth || 0), height = 150, top = 18, bottom = 20;
  const room = height - top - bottom, step = width / days.length;
  const most = Math.max(1, ...days.map((d) => d.blocked + d.cookieblocked + d.allowed));
  const every = Math.ceil(days.length / Math.floor(width / 44)); // date labels that fit
  const bars = days.map((d, i) => {
    const x = i * step + step * 0.15, w = step * 0.7;
    let y = top + room;
    const rects = KINDS.map(([key, cls]) => {
      const hgt = d[key] / most * room;
      y -= hgt;
      return svg('rect', { class: `bar bar-${cls}`, x, y, width: w, height: hgt,
                           'data-n': d[key] });
    });
    const learned = d.learned ? svg('text', { class: 'learned', x: x + w / 2, y: y - 4,
                                              'text-anchor': 'middle' }, `+${d.learned}`)
                              : null;
    const label = i % every === 0 || i === days.length - 1
      ? svg('text', { class: 'date', x: x + w / 2, y: height - 5, 'text-anchor': 'middle' },
            d.day.slice(5)) : null;
    return svg('g', { class: 'day', role: 'img', 'aria-label': dayWords(d), 'data-day': d.day,
                      'data-blocked': d.blocked, 'data-cookieblocked': d.cookieblocked,
                      'data-allowed': d.allowed, 'data-learned': d.learned,
                      'data-sites': d.sites, 'data-cleaned': d.cleaned || 0 },
               svg('title', {}, dayWords(d)), rects, learned, label);
  });
  const total = (key) => days.reduce((n, d) => n + d[key], 0);
  return h('figure', { class: 'chart' },
    svg('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', height,
                 role: 'group', 'aria-label': `Requests per day, the last ${days.length} days` },
        svg('line', { class: 'axis', x1: 0, x2: width, y1: top + room, y2: top + room }), bars),
    h('figcaption', {},
      h('ul', { class: 'legend' },
        KINDS.map(([key, cls, words]) => h('li', { 'data-total': key },
          h('span', { class: `swatch swatch-${cls}`, 'aria-hidden': 'true' }),
          `${words}: ${total(key)}`)),
        h('li', { 'data-total': 'learned' },
          h('span', { class: 'swatch swatch-learned', 'aria-hidden': 'true' }, '+'),
          `Trackers learned: ${total('learned')}`),
        h('li', { 'data-total': 'cleaned' }, `Links cleaned: ${total('cleaned')}`))));
}

// ---- brock off for a while: the pause, and a site's time off ----

// The countdowns on the page: their timers, for the view shown (route() stops them).
const countdowns = new Set();

function countdownStop() {
  for (const t of countdowns) clearInterval(t);
  countdowns.clear();
}

// What is left until an end, as a clock reads: "9:58", "1:02:03".
function timeLeft(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  const hours = Math.floor(s / 3600), minutes = Math.floor(s / 60) % 60;
  return hours ? `${hours}:${two(minutes)}:${two(s % 60)}` : `${minutes}:${two(s % 60)}`;
}

// The time left until untilMs, counting down each second; the view is shown again once it
// is over (brock ends it on time, by itself), a moment later so that brock has.
function ticker(untilMs, id) {
  const el = h('time', { class: 'countdown', id, datetime: new Date(untilMs).toISOString(),
                         title: new Date(untilMs).toLocaleString() },
               timeLeft(untilMs - Date.now()));
  const t = setInterval(() => {
    const ms = untilMs - Date.now();
    el.textContent = timeLeft(ms);
    if (ms <= -500) {
      countdownStop();
      route();
    }
  }, 1000);
  countdowns.add(t);
  return el;
}

// A row of buttons, each of which does act(value) and shows the page again.
function offChoices(id, label, choices, act) {
  return h('div', { class: 'off-choices', role: 'group', id, 'aria-label': label },
    h('span', { class: 'off-label' }, `${label}:`), ' ',
    choices.map(([value, words]) => [h('button', {
      type: 'button', 'data-for': value || 'ever', 'aria-label': `${label}: ${words}`,
      onclick: async () => {
        try { say(await act(value, words)); } catch (e) { say(e.message); }
        await route();
      } }, words), ' ']));
}

// brock paused everywhere, or the choice to pause it: on the map and on each site's page.
// status is /api/status.
function pauseBox(status) {
  if (status.paused) {
    return h('section', { class: 'off active', id: 'pause', 'aria-label': 'brock is paused' },
      h('p', {}, h('strong', {}, 'brock is paused: '),
        'it blocks nothing and changes no request, as on a disabled site. ',
        status.paused_until_ms
          ? ['Back on in ', ticker(status.paused_until_ms, 'countdown'), '.']
          : 'It stays off until you resume it.'),
      h('p', {}, h('button', { type: 'button', id: 'resume', onclick: async () => {
        try {
          await api('DELETE', '/api/pause');
          say('brock is on again.');
        } catch (e) { say(e.message); }
        await route();
      } }, 'Resume')));
  }
  return h('section', { class: 'off', id: 'pause' },
    offChoices('pause-choices', 'Pause brock',
               [['10m', '10 minutes'], ['1h', '1 hour'], [null, 'until I resume']],
               async (value, words) => {
                 await api('PUT', '/api/pause', value ? { for: value } : { until_resume: true });
                 return `brock is paused ${value ? `for ${words}` : 'until you resume it'}.`;
               }));
}

// brock off on one site (for a while, or until it is turned back on), or the choice to turn
// it off there: on the site's page. settings is /api/settings.
function siteOffBox(site, settings) {
  const timed = (settings.disabled_until || []).find((d) => d.site === site);
  if (settings.disabled_sites.includes(site)) {
    return h('section', { class: 'off active', id: 'site-off' },
      h('p', {}, h('strong', {}, 'brock is off on this site: '),
        'it changes nothing on this site\'s requests. ',
        timed ? ['Back on here in ', ticker(timed.until_ms, 'site-countdown'), '.']
              : 'It stays off until you turn it back on.'),
      h('p', {}, h('button', { type: 'button', id: 'site-toggle', onclick: async () => {
        try {
          await api('DELETE', `/api/disabled/${enc(site)}`);
          say(`brock is on again on ${site}`);
        } catch (e) { say(e.message); }
        await route();
      } }, 'Turn it back on')));
  }
  return h('section', { class: 'off', id: 'site-off' },
    offChoices('site-off-choices', 'Turn off on this site',
               [['10m', '10 minutes'], ['1h', '1 hour'], [null, 'until I turn it back on']],
               async (value, words) => {
                 await api('PUT', `/api/disabled/${enc(site)}`, value ? { for: value } : {});
                 return `brock is off on ${site} ${value ? `for ${words}`
                                                         : 'until you turn it back on'}.`;
               }));
}

// ---- views ----

// The clients brock has seen or keeps browsing of, to pick whose sites to show; nothing while
// there is only this machine.
function clientsBox(clients, client) {
  const mine = clients.filter((c) => c.sites || c.client === client);
  if (!mine.length) return null;
  const label = (c) => (c.name && c.address ? `${c.name} (${c.address})` : c.name || c.client);
  const pick = h('select', { id: 'sites-client', onchange: () => {
    location.hash = pick.value ? `#/sites/${enc(pick.value)}` : '#/sites';
  } }, h('option', { value: '' }, 'Everyone'),
  mine.map((c) => h('option', { value: c.client }, `${label(c)}: ${count(c.sites, 'site')}`)));
  pick.value = client;
  return h('p', {}, h('label', { for: 'sites-client' }, 'Whose browsing: '), pick);
}

// One client's own switches, which the owner sets for it: brock paused for that client, or
// off on a site for it alone (/api/me?client=).
function clientSwitches(client, me) {
  const q = `?client=${enc(client)}`;
  const act = async (method, path, body) => {
    try {
      await api(method, `${path}${q}`, body);
    } catch (e) { say(e.message); }
    await route();
  };
  const box = h('section', { id: 'client-switches', 'aria-label': `brock for ${client}` },
    h('h2', {}, `brock for ${client}`),
    h('p', {}, me.paused ? `Paused for ${client} ` +
      (me.paused_until_ms ? `until ${new Date(me.paused_until_ms).toLocaleString()}.`
                          : 'until resumed.') : `On for ${client}.`, ' ',
    me.paused ? h('button', { type: 'button', id: 'client-resume',
                              onclick: () => act('DELETE', '/api/me/pause') }, 'Resume')
              : h('button', { type: 'button', id: 'client-pause',
                              onclick: () => act('PUT', '/api/me/pause', { for: '1h' }) },
                  `Pause for ${client} for an hour`)));
  if (me.disabled_sites.length) {
    box.append(h('ul', { class: 'rows', id: 'client-off', 'aria-label': `Off for ${client}` },
      me.disabled_sites.map((d) => h('li', {}, 'Off on ', domain(d.site), ` for ${client} `,
        h('button', { type: 'button',
                      onclick: () => act('DELETE', `/api/me/disabled/${enc(d.site)}`) },
          'Turn brock on there')))));
  }
  return box;
}

async function viewSites(client = '') {
  const mine = navigation;
  const q = client ? `client=${enc(client)}&` : '';
  // Asked all at once: the chart's days are cut to the settings' once both are here.
  const [settings, first, month, status, clients] = await Promise.all([
    api('GET', '/api/settings'), api('GET', `/api/sites?${q}limit=${SITES_PAGE}`),
    api('GET', `/api/stats?${q}days=31`), api('GET', '/api/status'),
    api('GET', '/api/clients')]);
  if (stale(mine)) return;
  // The days kept, within what a chart shows readably.
  const days = month.slice(-Math.min(Math.max(settings.page_view_days, 7), 31));
  main.replaceChildren(h('h1', {}, client ? `Recent sites of ${client}` : 'Recent sites'));
  const who = clientsBox(clients, client);
  if (who) main.append(who);
  const me = client ? await api('GET', `/api/me?client=${enc(client)}`) : null;
  if (stale(mine)) return;
  if (me) main.append(clientSwitches(client, me));
  const notice = await httpsNotice(status);
  if (stale(mine)) return;
  if (notice) main.append(notice);
  main.append(h('h2', {}, 'What brock did each day'), chart(days));
  if (settings.page_view_days === 0)
    main.append(h('p', { class: 'note' }, 'Nothing is counted while recent sites are kept ' +
                                          'for 0 days (Settings).'));
  if (!first.total) {
    main.append(h('p', { class: 'muted' },
                  'No site has been visited through brock yet. Point a browser at brock ' +
                  `(${location.host}) as its proxy and browse.`));
    return;
  }
  // The counts are what brock did on the visits, not what it would do now. The tally says
  // them in words, with the blocked count first: no badge repeats it.
  const offFor = (site) => me && me.disabled_sites.some((d) => d.site === site);
  const siteRow = (s) => h('li', { class: 'siterow', 'data-site': s.site },
    h('a', { href: `#/site/${enc(s.site)}` }, domain(s.site)),
    h('span', { class: `counts${s.blocked + s.cookieblocked ? ' some' : ''}` },
      s.disabled ? 'brock is off here' : tally(s.blocked, s.cookieblocked, s.trackers)),
    me ? h('button', { type: 'button', class: 'client-site', onclick: async () => {
      try {
        await api(offFor(s.site) ? 'DELETE' : 'PUT',
                  `/api/me/disabled/${enc(s.site)}?client=${enc(client)}`);
      } catch (e) { say(e.message); }
      await route();
    } }, offFor(s.site) ? `Turn brock on here for ${client}` : `Turn brock off here for ${client}`)
       : null);
  const list = h('ul', { class: 'rows', id: 'site-rows', 'aria-label': 'Recent sites' },
                 first.sites.map(siteRow));
  main.append(h('p', { class: 'muted', id: 'sites-count' }, count(first.total, 'site')), list);
  main.append(more('sites-more', first, 'site', async (offset) => {
    const page = await api('GET', `/api/sites?${q}limit=${SITES_PAGE}&offset=${offset}`);
    list.append(...page.sites.map(siteRow));
    return page;
  }));
  // The list is a browsing history; what brock learned about trackers stays.
  if (client) {
    main.append(askFirst('forget', `Forget the browsing of ${client}…`,
                         `Forget ${client}'s ${count(first.total, 'recent site')} and daily ` +
                         'counts? Everyone\'s stay, and what brock learned.', 'Yes, forget them',
                         async () => {
      try {
        await api('POST', `/api/forget?client=${enc(client)}`);
        say(`Forgot the browsing of ${client}.`);
      } catch (e) { say(e.message); }
      location.hash = '#/sites';
    }));
    return;
  }
  main.append(askFirst('forget', 'Forget recent sites…',
                       `Forget all ${count(first.total, 'recent site')}? ` +
                       'What brock learned stays.', 'Yes, forget them', async () => {
    try {
      const r = await api('POST', '/api/forget');
      say(`Forgot ${count(r.forgotten, 'recent site')}.`);
    } catch (e) { say(e.message); }
    await route();
  }));
}

async function viewSite(site) {
  const mine = navigation;
  const [s, settings, status] = await Promise.all([api('GET', `/api/sites/${enc(site)}`),
                                                   api('GET', '/api/settings'),
                                                   api('GET', '/api/status')]);
  if (stale(mine)) return;
  const rank = (t) => (t.breakage ? 0 : 1);
  // What a tracker gets on this site, a choice for the site only included.
  const on = (t) => t.site_action || t.action;
  const sliders = s.trackers.filter((t) => on(t) !== 'noaction' && on(t) !== 'allow')
    .sort((a, b) => rank(a) - rank(b));
  const undecided = s.trackers.filter((t) => on(t) === 'allow');
  const quiet = s.trackers.filter((t) => on(t) === 'noaction');
  main.replaceChildren(
    h('h1', {}, domain(s.site)),
    h('p', { class: 'muted' },
      `On your visits: ${tally(s.blocked, s.cookieblocked, s.trackers.length)}; ` +
      `last visit ${when(s.time_ms)}.`),
    siteOffBox(s.site, settings), pauseBox(status));
  if (s.passthrough) {
    main.append(h('p', { class: 'warning', id: 'site-passthrough', role: 'note' },
      'brock passes this site\'s HTTPS through unseen, so it cannot block or learn inside ' +
      `it: ${s.passthrough}. `, h('a', { href: '#/settings' }, 'Passed-through hosts')));
  }
  const group = (title, list) => {
    if (!list.length) return;
    main.append(h('h2', {}, title),
                h('ul', { class: 'rows', 'aria-label': title },
                  list.map((t) => trackerRow(t, s.site))));
  };
  // "Not yet decided" is a group of its own only while brock learns (section 12).
  group('Trackers', s.learning ? sliders : sliders.concat(undecided));
  if (s.learning) group('Not yet decided', undecided);
  group('Don\'t appear to be tracking', quiet);
}

// How the All trackers page orders and narrows the list; kept while the dashboard is open,
// so that a choice made on a row, which shows the page again, keeps the person's place.
const TRACKER_SORTS = [['recent', 'What matters first'], ['sites', 'Seen on the most sites'],
                       ['name', 'Name']];
const TRACKER_SHOWS = [['any', 'Every tracker'], ['learned', 'Learned from your browsing'],
                       ['pretrained', 'Pre-trained (Privacy Badger\'s list)'],
                       ['blocked', 'Blocked'], ['cookieblocked', 'Cookies blocked'],
                       ['allowed', 'Allowed'], ['user', 'Your choices'],
                       ['dnt', 'Promise not to track']];
const trackersShown = { sort: 'recent', show: 'any', q: '', rows: 0 };
const TRACKERS_PAGE = 100;
const SITES_PAGE = 100;

// A button that fetches the next page of a list (fetch(offset) appends it and returns it)
// while there is one; page is the first page's answer ({total, offset, limit}).
function more(id, page, what, fetchPage) {
  let shown = page.offset + page[`${what}s`].length;
  const left = () => Math.min(page.limit, page.total - shown);
  const button = h('button', { type: 'button', id, onclick: async () => {
    try {
      const next = await fetchPage(shown);
      shown += next[`${what}s`].length;
      if (shown >= next.total) button.remove();
      else button.textContent = `Show ${count(left(), `more ${what}`, `more ${what}s`)}`;
    } catch (e) { say(e.message); }
  } }, `Show ${count(left(), `more ${what}`, `more ${what}s`)}`);
  return shown < page.total ? h('p', {}, button) : null;
}

// A name typed in the filter that could be a domain (one the list has not got can be added).
function looksLikeDomain(q) {
  return /^([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.)+[a-z]{2,63}$/.test(q) && q.length <= 253;
}

// What the filter offers when its text names a domain brock knows nothing of: a choice for
// it, as Privacy Badger's options page lets one add a domain.
async function addDomainBox(q) {
  if (!looksLikeDomain(q)) return null;
  try {
    await api('GET', `/api/trackers/${enc(q)}`);
    return null;
  } catch (e) { /* unknown to brock: offer to add it */ }
  const add = (action) => async () => {
    try {
      const t = await api('PUT', `/api/trackers/${enc(q)}`, { action });
      say(`Added ${describe(t)}`);
      location.hash = `#/tracker/${enc(q)}`;
    } catch (e) { say(`Could not add ${q}: ${e.message}`); }
  };
  return h('div', { class: 'add-domain', id: 'add-domain', role: 'group',
                    'aria-label': `Add ${q}` },
    h('p', {}, h('strong', {}, q), ' is not in the list. Add it as:'),
    h('p', {}, [['block', 'Blocked'], ['cookieblock', 'Cookies blocked'], ['allow', 'Allowed']]
      .map(([value, label]) => [h('button', { type: 'button', 'data-action': value,
                                              'aria-label': `Add ${q}: ${label}`,
                                              onclick: add(value) }, label), ' '])));
}

async function viewTrackers() {
  const want = trackersShown;
  const text = h('input', { type: 'search', id: 'filter-text', placeholder: 'example.com',
                            value: want.q, autocomplete: 'off', spellcheck: 'false' });
  const pick = (id, options, value) => h('select', { id }, options.map(([v, label]) =>
    h('option', { value: v, selected: v === value }, label)));
  const sort = pick('filter-sort', TRACKER_SORTS, want.sort);
  const show = pick('filter-state', TRACKER_SHOWS, want.show);
  const list = h('ul', { class: 'rows', id: 'tracker-rows', 'aria-label': 'Tracking domains' });
  const shownCount = h('p', { class: 'muted', id: 'trackers-count', 'aria-live': 'polite' });
  const extra = h('div', { id: 'trackers-extra' });
  const query = (offset, limit) => `/api/trackers?sort=${want.sort}&show=${want.show}` +
    `${want.q ? `&q=${enc(want.q)}` : ''}&offset=${offset}&limit=${limit}`;
  let asked = 0;
  const fill = async () => {
    const mine = ++asked;
    const q = text.value.trim().toLowerCase();
    if (/[^a-z0-9._-]/.test(q)) {
      shownCount.textContent = 'A domain name has only letters, digits, dots and hyphens.';
      list.replaceChildren();
      extra.replaceChildren();
      return;
    }
    Object.assign(want, { q, sort: sort.value, show: show.value });
    // After a choice on a row the page shows as many rows as before.
    const page = await api('GET', query(0, Math.max(TRACKERS_PAGE, want.rows)));
    if (mine !== asked) return; // a newer filter is on its way
    want.rows = page.trackers.length;
    shownCount.textContent = `${page.total} of ${count(page.known, 'domain')}`;
    list.replaceChildren(...page.trackers.map((t) => trackerRow(t)));
    list.dataset.shown = `${want.sort} ${want.show} ${want.q}`; // what the rows answer
    extra.replaceChildren(...[await addDomainBox(q),
      more('trackers-more', page, 'tracker', async (offset) => {
        const next = await api('GET', query(offset, TRACKERS_PAGE));
        list.append(...next.trackers.map((t) => trackerRow(t)));
        want.rows = offset + next.trackers.length;
        return next;
      })].filter(Boolean));
  };
  let typing = null;
  const again = () => { want.rows = 0; fill().catch((e) => say(e.message)); };
  text.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(again, 150); });
  sort.addEventListener('change', again);
  show.addEventListener('change', again);
  // The first rows are there before the page shows.
  await fill();
  main.replaceChildren(h('h1', {}, 'All trackers'),
    h('div', { class: 'filters', role: 'search' },
      h('label', {}, 'Domain contains', text), h('label', {}, 'Show', show),
      h('label', {}, 'Order', sort)),
    shownCount, list, extra);
}

async function viewTracker(name) {
  const mine = navigation;
  const t = await api('GET', `/api/trackers/${enc(name)}`);
  if (stale(mine)) return;
  const seen = t.sites.length;
  const needed = 'Sites need it to work (it is on Privacy Badger\'s list of such domains), ' +
    'so brock blocks only its cookies.';
  let why;
  if (t.user) {
    why = { user_allow: 'You chose to allow it.', user_block: 'You chose to block it.',
            user_cookieblock: 'You chose to block its cookies.' }[t.user] ||
          `You chose: ${words(t.user)}.`;
  } else if (t.dnt) why = 'It posts EFF\'s Do Not Track policy, so brock never blocks it.';
  else if (t.action === 'block' || t.action === 'cookieblock') {
    why = (seen ? `brock saw it tracking on ${count(seen, 'site')}; three are enough.`
                : 'It came blocked from Privacy Badger\'s pre-trained list or an import.') +
      (t.action === 'cookieblock' ? ` ${needed}` : '');
  } else if (seen) {
    why = `Seen tracking on ${count(seen, 'site')} so far; three are enough to block it.`;
  } else why = 'brock has not seen it track anyone.';
  main.replaceChildren(
    h('h1', {}, domain(t.domain)),
    h('ul', { class: 'rows' }, trackerRow({ ...t, count: 0 })),
    h('p', { id: 'tracker-why' }, why),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Now'), h('dd', { id: 'tracker-state' }, words(t.action)),
      h('dt', {}, 'Learned'), h('dd', {}, t.heuristic ? words(t.heuristic) : 'Nothing yet'),
      h('dt', {}, 'Your choice'), h('dd', {}, t.user ? words(t.user) : 'None'),
      h('dt', {}, 'Base domain'), h('dd', {}, domain(t.base)),
      h('dt', {}, 'If blocked'), h('dd', {}, t.cookieblock_listed
        ? 'Only its cookies are blocked: sites need it to work'
        : 'None of its requests reach it'),
      h('dt', {}, 'DNT policy'), h('dd', {}, t.dnt ? 'Posted: promises not to track'
                                                    : 'None known'),
      h('dt', {}, 'First seen'), h('dd', {}, when(t.first_seen)),
      h('dt', {}, 'Last seen'), h('dd', {}, when(t.last_seen))),
    h('h2', {}, 'Seen tracking on'));
  if (!t.evidence.length) main.append(h('p', { class: 'muted' }, 'No site yet.'));
  else {
    main.append(h('table', { id: 'evidence' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Site'),
                        h('th', { scope: 'col' }, 'Evidence'),
                        h('th', { scope: 'col' }, 'Host'), h('th', { scope: 'col' }, 'When'))),
      h('tbody', {}, t.evidence.map((e) => h('tr', {},
        h('td', {}, domain(e.site)),
        h('td', {}, (EVIDENCE_WORDS[e.kind] || e.kind) + evidenceDetail(e)),
        h('td', {}, e.host ? domain(e.host) : '-'), h('td', {}, when(e.time_ms)))))));
  }
  if (t.seen_on.length) {
    main.append(h('h2', {}, 'Recently loaded on'),
      h('ul', {}, t.seen_on.map((s) => h('li', {},
        h('a', { href: `#/site/${enc(s.site)}` }, domain(s.site)), ` (${when(s.time_ms)})`))));
  }
}

// What the export formats are called on the page, and what reads each; a format brock adds
// later shows its name.
const EXPORT_WORDS = {
  pb: ['Privacy Badger backup', 'Privacy Badger\'s options import it, and so does brock'],
  hosts: ['Hosts file', 'for /etc/hosts, or any blocker that reads one'],
  abp: ['Adblock Plus filter list', 'also read by uBlock Origin and AdGuard'],
  dnsmasq: ['dnsmasq blocking', 'blocked names answer "no such domain"'],
  unbound: ['Unbound blocking', 'blocked names answer "no such domain"'],
  rpz: ['DNS firewall zone', 'a response policy zone for BIND, Knot Resolver, PowerDNS'],
  privoxy: ['Privoxy actions', 'blocks, and strips cookies where brock does'],
  ubo: ['uBlock Origin rules', 'for its "My rules" pane'],
  adguard: ['AdGuard Home and Pi-hole list', 'DNS filtering rules'],
  dnr: ['Chromium extension rules', 'a declarativeNetRequest ruleset'],
  safari: ['Safari content blocker', 'a WebKit content blocker list'],
};

// How brock runs, in words, with the options that chose it as secondary text.
function runFacts(status) {
  const https = status.https || {};
  const flag = (text) => (text ? h('span', { class: 'note' }, ` (${text})`) : null);
  return h('dl', { class: 'facts', id: 'run-options' },
    h('dt', {}, 'HTTPS'),
    h('dd', {}, https.seen ? 'brock sees inside: it blocks and learns on HTTPS pages too.'
                           : 'Passed unseen: brock sees only the names of HTTPS sites.',
      flag(https.flag),
      https.seen ? null : [' ', h('a', { href: '/ca' }, 'How to let brock see inside')],
      https.fix ? [h('br'), h('span', { class: 'note' }, 'On brock\'s machine: ',
                              h('code', {}, https.fix), ', then start brock again.')] : null),
    h('dt', {}, 'Pages'),
    h('dd', {}, status.inject
      ? 'brock\'s script goes in each page, to catch what only the page sees.'
      : 'Passed as they come: brock adds nothing to them.', flag(status.inject ? null
                                                                      : '--no-inject')));
}

// The owner's password, which other devices sign in with: set here from this machine alone.
function ownerBox(me) {
  const pw = h('input', { type: 'password', id: 'owner-password', autocomplete: 'new-password' });
  const again = h('input', { type: 'password', id: 'owner-again', autocomplete: 'new-password' });
  return h('section', { 'aria-labelledby': 'owner-title' },
    h('h2', { id: 'owner-title' }, 'Signing in from other devices'),
    h('p', { class: 'note' }, me.password
      ? 'A password is set: other devices see only their own requests until they sign in ' +
        'with it. Setting a new one signs every device out.'
      : 'No password is set: only this machine manages brock, and other devices see only ' +
        'their own requests.'),
    me.local
      ? h('form', { class: 'inline setting', onsubmit: async (ev) => {
        ev.preventDefault();
        if (pw.value !== again.value) {
          say('The two passwords differ.');
          return;
        }
        try {
          await api('PUT', '/api/owner/password', { password: pw.value });
          say('The password is set; every other device is signed out.');
        } catch (e) { say(e.message); }
        await route();
      } }, h('label', { for: 'owner-password' }, 'New password '), pw,
        h('label', { for: 'owner-again' }, ' again '), again,
        h('button', { type: 'submit' }, 'Set the password'))
      : h('p', { class: 'note' }, 'It is set on the machine brock runs on.'));
}

// A list of names kept in the settings, each with its remove button, and a form to add one:
// PUT and DELETE o.path + NAME answer the settings.
// Makes a change (change(): a promise), shows the view again, then says done (or what went
// wrong): once the sentence is there, so is the view it speaks of.
async function changeThenSay(change, done) {
  let said = done;
  try { await change(); } catch (e) { said = e.message; }
  await route();
  if (said) say(said);
}

function nameList(o) {
  const input = h('input', { type: 'text', id: `${o.id}-site`, placeholder: o.placeholder,
                             'aria-label': o.inputLabel });
  return [
    h('h2', {}, o.title),
    h('p', { class: 'note' }, o.note),
    h('ul', { id: o.id }, (o.names || []).map((d) => h('li', {}, domain(d), ' ',
      h('button', { type: 'button', class: 'link', 'aria-label': o.removeLabel(d),
                    onclick: () => changeThenSay(() => api('DELETE', `${o.path}${enc(d)}`),
                                                 '') }, 'remove')))),
    h('form', { class: 'inline', onsubmit: (ev) => {
      ev.preventDefault();
      const d = input.value.trim();
      return changeThenSay(() => api('PUT', `${o.path}${enc(d)}`), o.added(d));
    } }, input, h('button', { type: 'submit' }, o.button)),
  ];
}

async function viewSettings() {
  const mine = navigation;
  const [s, status, pass, me, params] = await Promise.all([api('GET', '/api/settings'),
                                                           api('GET', '/api/status'),
                                                           api('GET', '/api/passthrough'),
                                                           api('GET', '/api/session'),
                                                           api('GET', '/api/params')]);
  if (stale(mine)) return;
  const toggle = (key, label, help) => {
    const id = `set-${key}`;
    return h('div', { class: 'setting' },
      h('input', { type: 'checkbox', id, checked: s[key], onchange: (ev) => changeThenSay(
        () => api('PUT', '/api/settings', { [key]: ev.target.checked }),
        `${label}: ${ev.target.checked ? 'on' : 'off'}`) }),
      h('label', { for: id }, label, h('br'), h('span', { class: 'note' }, help)));
  };
  const keep = h('input', { type: 'number', id: 'page-view-days', min: 0, max: 3650,
                            value: s.page_view_days });
  const site = h('input', { type: 'text', id: 'disable-site', placeholder: 'example.com',
                            'aria-label': 'Site to disable brock on' });
  // The sites off for a while only, with their ends.
  const ends = new Map((s.disabled_until || []).map((d) => [d.site, d.until_ms]));
  const file = h('input', { type: 'file', id: 'import-file', accept: '.json,application/json',
                            'aria-label': 'Privacy Badger export or seed file' });
  main.replaceChildren(
    h('h1', {}, 'Settings'),
    toggle('learn', 'Learn to block new trackers', 'From the cookies third parties set.'),
    toggle('send_dnt', 'Send Do Not Track and Global Privacy Control',
           'DNT: 1 and Sec-GPC: 1 on every request.'),
    toggle('check_dnt', 'Check and honour DNT policies',
           'A domain that posts EFF\'s DNT policy is not blocked.'),
    toggle('clean_urls', 'Take tracking parameters out of links',
           'utm_source, fbclid, gclid and the others ClearURLs\' rules name, on every request; ' +
           'a page\'s address is sent to its clean form.'),
    toggle('uncloak', 'See through CNAME cloaking',
           'A site\'s own host that DNS says is an alias of a tracker\'s name is judged as the ' +
           'tracker.'),
    runFacts(status),
    h('form', { class: 'inline setting', onsubmit: async (ev) => {
      ev.preventDefault();
      const days = Number(keep.value);
      try {
        await api('PUT', '/api/settings', { page_view_days: days });
        say(`Recent sites are kept ${count(days, 'day')}.`);
      } catch (e) { say(e.message); }
      await route();
    } }, h('label', { for: 'page-view-days' }, 'Keep recent sites for (days, 0: none) '), keep,
      h('button', { type: 'submit' }, 'Save')),
    ownerBox(me),
    h('h2', {}, 'Passed through unseen'),
    h('p', { class: 'note' },
      pass.intercept
        ? `brock sees inside HTTPS except on these hosts, and on ${count(pass.shipped, 'host')} ` +
          'of the list it ships (banks, services with sensitive personal data, hosts whose ' +
          'apps refuse brock\'s certificate). A host whose apps refuse the certificate twice ' +
          'in ten minutes is added by itself.'
        : 'brock does not see inside HTTPS now, so everything is passed through unseen.'),
    h('ul', { id: 'passthrough' }, pass.entries.map((p) => h('li', { 'data-host': p.host },
      domain(p.host), ' ',
      h('span', { class: 'note' }, p.taken_off_shipped ? 'taken off the shipped list: seen inside'
        : `${p.learned ? 'added by brock' : 'yours'}, since ${when(p.time_ms)}` +
          `${p.why ? `: ${p.why}` : ''}`), ' ',
      h('button', { type: 'button', class: 'link', 'aria-label': `Stop passing ${p.host} through`,
                    onclick: async () => {
                      try {
                        // A host taken off the shipped list goes back by removing the "!".
                        await api('DELETE', `/api/passthrough/${enc(p.taken_off_shipped
                          ? `!${p.host}` : p.host)}`);
                      } catch (e) { say(e.message); }
                      await route();
                    } }, p.taken_off_shipped ? 'put back' : 'remove')))),
    h('form', { class: 'inline', onsubmit: async (ev) => {
      ev.preventDefault();
      const host = document.getElementById('passthrough-host').value.trim();
      try {
        await api('PUT', `/api/passthrough/${enc(host)}`, {});
        say(`${host} is passed through unseen`);
      } catch (e) { say(e.message); }
      await route();
    } }, h('input', { type: 'text', id: 'passthrough-host', placeholder: '*.bank.example',
                      'aria-label': 'Host to pass through unseen' }),
      h('button', { type: 'submit' }, 'Pass through')),
    h('h2', {}, 'Disabled sites'),
    h('p', { class: 'note' }, 'On these sites brock changes nothing.'),
    h('ul', { id: 'disabled-sites' }, s.disabled_sites.map((d) => h('li', {}, domain(d), ' ',
      ends.has(d) ? h('span', { class: 'note' }, `(until ${when(ends.get(d))}) `) : null,
      h('button', { type: 'button', class: 'link', 'aria-label': `Enable brock on ${d}`,
                    onclick: async () => {
                      try { await api('DELETE', `/api/disabled/${enc(d)}`); } catch (e) {
                        say(e.message);
                      }
                      await route();
                    } }, 'remove')))),
    h('form', { class: 'inline', onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        await api('PUT', `/api/disabled/${enc(site.value.trim())}`);
        say(`brock is off on ${site.value.trim()}`);
      } catch (e) { say(e.message); }
      await route();
    } }, site, h('button', { type: 'submit' }, 'Disable brock there')),
    ...nameList({
      title: 'Links left as they are', id: 'clean-off', path: '/api/clean-off/',
      names: s.clean_urls_off, note: 'On these sites brock takes no tracking parameters out of links.',
      removeLabel: (d) => `Clean links on ${d} again`, placeholder: 'example.com',
      inputLabel: 'Site to leave links alone on', button: 'Leave links alone there',
      added: (d) => `Links are left as they are on ${d}`,
    }),
    ...nameList({
      title: 'CNAME targets not judged', id: 'uncloak-off', path: '/api/uncloak-off/',
      names: s.uncloak_off,
      note: 'A host whose DNS answer is an alias of a tracker is judged as the tracker. At these ' +
        'names (a CDN sites alias their own hosts to, say) and the names under them, a chain ' +
        'is judged no further.',
      removeLabel: (d) => `Judge CNAME chains at ${d} again`, placeholder: 'cdn.example',
      inputLabel: 'Name to stop judging CNAME chains at', button: 'Stop judging chains there',
      added: (d) => `CNAME chains are judged no further at ${d}`,
    }),
    h('h2', {}, 'Parameters learned from links'),
    h('p', { class: 'note' }, 'Parameters of links from one site to another that carried the ' +
      'first site\'s cookie: once one has done so from three sites, brock takes it out of ' +
      'links too.'),
    params.length
      ? h('ul', { id: 'link-params' }, params.map((p) => h('li', { 'data-param': p.name },
        h('code', {}, p.name), ' ',
        h('span', { class: 'note' }, p.kept ? 'kept in links (yours)'
          : p.learned ? 'taken out of links' : `seen on ${count(p.sites.length, 'site')}`,
          p.sites.length ? `: from ${p.sites.join(', ')}` : ''), ' ',
        h('button', { type: 'button', class: 'link', 'aria-label': p.kept
          ? `Take ${p.name} out of links again` : `Keep ${p.name} in links`,
                      onclick: async () => {
                        try {
                          await api('PUT', `/api/params/${enc(p.name)}`, { keep: !p.kept });
                          say(p.kept ? `${p.name} is taken out if learned` : `Links keep ${p.name}`);
                        } catch (e) { say(e.message); }
                        await route();
                      } }, p.kept ? 'take out again' : 'keep'), ' ',
        h('button', { type: 'button', class: 'link', 'aria-label': `Forget ${p.name}`,
                      onclick: async () => {
                        try {
                          await api('DELETE', `/api/params/${enc(p.name)}`);
                          say(`Forgot ${p.name}`);
                        } catch (e) { say(e.message); }
                        await route();
                      } }, 'forget'))))
      : h('p', { class: 'muted', id: 'link-params' }, 'None yet.'),
    h('h2', {}, 'Widgets allowed on sites'),
    h('p', { class: 'note' }, 'Social widgets (videos, posts, comments) that you chose to ' +
      'always allow on a site, from the placeholder brock shows in their place.'),
    s.widget_allowlist.length
      ? h('ul', { id: 'widget-allowlist' }, s.widget_allowlist.map((w) => h('li', {},
        w.widget, ' on ', domain(w.site), ' ',
        h('button', { type: 'button', class: 'link',
                      'aria-label': `Stop allowing ${w.widget} on ${w.site}`,
                      onclick: async () => {
                        try {
                          await api('DELETE', `/api/widgets/${enc(w.site)}`, { widget: w.widget });
                          say(`${w.widget} is replaced again on ${w.site}`);
                        } catch (e) { say(e.message); }
                        await route();
                      } }, 'remove'))))
      : h('p', { class: 'muted', id: 'widget-allowlist' }, 'None.'),
    h('h2', {}, 'Export'),
    h('p', { class: 'note' }, 'What brock blocks, for Privacy Badger or for another blocker ' +
      'to use.'),
    h('ul', { id: 'exports', 'aria-label': 'Export' }, status.exports.map((x) => h('li', {},
      h('a', { href: `/api/export?format=${enc(x.format)}`, download: x.file,
               'data-format': x.format }, (EXPORT_WORDS[x.format] || [x.format])[0]), ' ',
      h('span', { class: 'note' }, (EXPORT_WORDS[x.format] || [])[1] || '', ` (${x.file})`)))),
    h('h2', {}, 'Import'),
    h('form', { class: 'inline', onsubmit: async (ev) => {
      ev.preventDefault();
      if (!file.files.length) { say('Choose a file first.'); return; }
      try {
        const r = await api('POST', '/api/import', await file.files[0].text());
        say(`Imported ${count(r.entries, 'entry', 'entries')}; ${r.blocked} newly blocked.`);
      } catch (e) { say(`Import failed: ${e.message}`); }
      await route();
    } }, file, h('button', { type: 'submit' }, 'Import')),
    h('h2', {}, 'Reset'),
    h('p', { class: 'note' }, 'Forget everything learned and start again from Privacy ' +
                             'Badger\'s pre-trained list. Your own choices stay.'),
    askFirst('reset', 'Start again from the pre-trained list…', 'Forget what brock learned?',
             'Yes, forget what brock learned', async () => {
      try {
        const r = await api('POST', '/api/reset');
        say('Started again from Privacy Badger\'s pre-trained list: ' +
            `${count(r.domains, 'domain')}.`);
      } catch (e) { say(e.message); }
      await route();
    }));
}

// ---- HTTPS, when brock cannot see inside it ----

// A notice on the first pages while HTTPS passes unseen: what that means, the command that
// changes it (shown, never run: the dashboard installs nothing), and the page on trusting
// brock's certificate. Nothing when brock sees inside HTTPS, or when the user turned it off.
async function httpsNotice(given) {
  let status = given;
  if (!status) {
    try { status = await api('GET', '/api/status'); } catch (e) { return null; }
  }
  const https = status.https || {};
  if (https.seen || !https.fix) return null;
  const cmd = h('p', { class: 'command', id: 'https-fix', hidden: true },
    'On the machine brock runs on: ', h('code', {}, https.fix),
    ', then start brock again.');
  return h('div', { class: 'warning https-notice', id: 'https-notice', role: 'note' },
    h('p', {}, h('strong', {}, 'brock cannot see inside HTTPS yet. '),
      'It sees only the names of HTTPS sites, so it learns only on plain-HTTP pages, and ' +
      'nearly the whole web is HTTPS.'),
    h('p', {},
      h('button', { type: 'button', 'aria-controls': 'https-fix', onclick: (ev) => {
        cmd.hidden = !cmd.hidden;
        ev.target.setAttribute('aria-expanded', String(!cmd.hidden));
      }, 'aria-expanded': 'false' }, 'Let brock see inside HTTPS'), ' ',
      h('a', { href: '/ca' }, 'How to trust brock\'s certificate on other devices')),
    cmd);
}

// ---- routing ----

async function route() {
  const parts = location.hash.replace(/^#\/?/, '').split('/');
  navigation++;
  const arg = parts.length > 1 ? decodeURIComponent(parts.slice(1).join('/')) : '';
  if (parts[0] !== 'log') logStop();
  countdownStop();
  try {
    if (parts[0] === 'log') viewLog();
    else if (parts[0] === 'site' && arg) await viewSite(arg);
    else if (parts[0] === 'trackers') await viewTrackers();
    else if (parts[0] === 'tracker' && arg) await viewTracker(arg);
    else if (parts[0] === 'settings') await viewSettings();
    else if (parts[0] === 'sites') await viewSites(arg);
    else await viewMap();
    document.title = `brock: ${main.querySelector('h1')?.textContent || 'dashboard'}`;
    for (const a of document.querySelectorAll('nav a')) {
      if (a.getAttribute('href') === `#/${parts[0]}`) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  } catch (e) {
    main.replaceChildren(h('h1', {}, 'Something went wrong'), h('p', {}, e.message));
  }
}

// The header's line: what brock did today (UTC, as the daily counters count), and, while
// brock cannot see inside HTTPS, the way to the page that says how to let it.
async function today() {
  const line = document.getElementById('today');
  try {
    const [[d], status] = await Promise.all([api('GET', '/api/stats?days=1'),
                                             api('GET', '/api/status')]);
    const unseen = status.https && !status.https.seen;
    document.getElementById('trust')?.remove();
    if (unseen) {
      line.after(h('a', { id: 'trust', class: 'trust', href: '/ca' },
                     'HTTPS unseen: let brock see inside'));
    }
    line.dataset.blocked = d.blocked;
    line.dataset.cookieblocked = d.cookieblocked;
    line.replaceChildren('Today: ', h('strong', {}, d.blocked), ' blocked, ',
                         h('strong', {}, d.cookieblocked), ' with cookies blocked');
  } catch (e) {
    line.textContent = '';
  }
}

// A new view starts at its top (a view shown again after a change on it keeps its place).
window.addEventListener('hashchange', () => {
  route().then(() => {
    window.scrollTo(0, 0);
    main.focus({ preventScroll: true });
  });
  today();
});
route();
today();
