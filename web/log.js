// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's live log (#/log): each request brock decided as it happens, streamed from
// GET /api/log (Server-Sent Events), newest first, coloured as the rest of the dashboard.
// Each row links its host to the tracker's page and its site to the site's; a third party's
// row offers to allow or block the host everywhere, or to turn brock off on its site, and
// then says what holds now (the row itself stays as it was decided: the log is history).
// Pause holds new requests back until Resume; the filter shows the rows whose words or
// names contain its text; Clear empties the list. The browser's EventSource reconnects by
// itself, asking for what it missed (Last-Event-ID); when the stream is refused outright,
// the page asks again after a few seconds. Uses app.js's helpers (h, api, say, describe,
// domain, count, enc).
'use strict';

// Rows kept on the page; older ones go.
const LOG_ROWS = 1000;

// What each decision and reason of the stream means, in the page's words.
const LOG_DECISIONS = {
  block: 'Blocked', cookieblock: 'Cookies blocked', allow: 'Allowed',
  first_party: 'First party', disabled: 'brock off here',
};
const LOG_REASONS = {
  first_party: 'the page\'s own site', private: 'a local or private address: never acted on',
  disabled: 'brock is off on the site, or paused', site_fix: 'a site fix leaves it alone',
  fingerprinting: 'a fingerprinting script', widget: 'a widget you allowed',
  user_site: 'your choice on this site', yellowlist: 'a site fix blocks its cookies here',
  user: 'your choice', dnt_policy: 'it posts the DNT policy',
  not_tracking: 'not seen tracking', invalid: 'not a valid host name',
};
// "learned" is the tracker's count of sites, which the decision says: fewer than three
// sites allow it; three or more (or Privacy Badger's pre-trained list) block it; the
// cookieblock list turns that block into cookies blocked for a domain sites need.
const LOG_LEARNED = {
  allow: 'seen tracking on fewer than three sites',
  block: 'seen tracking on three or more sites (pre-trained or learned)',
  cookieblock: 'tracking, but sites need it: cookies blocked',
};
// How brock came by a third party's page, when it is no page it saw opening.
const LOG_PAGES = {
  none: 'no page named it: judged as any page\'s third party, never learned from',
  guess: 'its page is a guess (the Referer of a page brock did not see open)',
};
// What the buttons of a third party's row do, and what the row says after.
const LOG_ACTIONS = [['allow', 'Allow', 'now allowed by you'],
                     ['block', 'Block', 'now blocked by you']];

const logState = { source: null, retry: null, paused: false, held: [], filter: '' };

// The colour class of a decision, as trackers have elsewhere.
function logClass(d) {
  if (d === 'block') return 'state-block';
  if (d === 'cookieblock') return 'state-cookieblock';
  if (d === 'allow') return 'state-allow';
  return 'state-none';
}

function logTime(ms) {
  const t = new Date(ms);
  return [t.getHours(), t.getMinutes(), t.getSeconds()]
    .map((n) => String(n).padStart(2, '0')).join(':');
}

// How a client came in, when not as a proxy's (the event's way).
const WAY_NOTE = { socks: ' (through SOCKS)', transparent: ' (redirected)' };

function logMatches(row) {
  return !logState.filter || row.dataset.text.includes(logState.filter);
}

// Whether the row is a third party's that a choice can change: decided by brock's rules on
// it, not a first party, a local address or a name that is none.
function logThirdParty(e) {
  return ['allow', 'block', 'cookieblock', 'disabled'].includes(e.decision) &&
    e.reason !== 'invalid' && e.page !== 'self';
}

// The decision in words. A request taken as its own page is no page's first party: nothing
// named a page (the browser's own requests do that, as does an address opened directly).
function logWhat(e) {
  if (e.decision === 'first_party' && e.page === 'self') return 'No page';
  if (e.reason === 'private') return 'Left alone';
  return LOG_DECISIONS[e.decision] || e.decision;
}

function logWhy(e) {
  if (e.decision === 'first_party' && e.page === 'self')
    return 'the browser\'s own request, or an address opened directly: nothing names a ' +
      'page, so it is taken as its own and left alone';
  if (e.reason === 'learned') return LOG_LEARNED[e.decision] || 'seen tracking';
  return LOG_REASONS[e.reason] || e.reason;
}

// Whose status it is: a blocked request never reaches the server, and brock's stand-in (an
// empty script or image, a 403) answers in its place.
function logStatus(e) {
  if (!e.status) return 'no answer went back';
  if (e.answered_by === 'brock')
    return e.decision === 'block' ? `brock answered ${e.status} in its place`
                                  : `brock answered ${e.status} itself`;
  if (e.answered_by === 'server') return `the server answered ${e.status}`;
  if (e.answered_by === 'tunnel') return `brock opened a tunnel to the server (${e.status})`;
  return `status ${e.status}`;
}

// A choice made from a row: the row keeps what was decided then, and says what holds now.
async function logAct(row, note, e, act) {
  try {
    let said;
    if (act[0] === 'off') {
      await api('PUT', `/api/disabled/${enc(e.site)}`, {});
      said = `brock is off on ${e.site} until you turn it back on.`;
      note.textContent = `brock now off on ${e.site}`;
    } else {
      const t = await api('PUT', `/api/trackers/${enc(e.host)}`, { action: act[0] });
      said = describe(t);
      note.textContent = act[2];
    }
    row.dataset.text += ` ${note.textContent.toLowerCase()}`;
    say(said);
  } catch (err) {
    say(`Could not change ${act[0] === 'off' ? e.site : e.host}: ${err.message}`);
  }
}

// A third party's row's buttons: allow or block the host everywhere, or turn brock off on
// the row's site; and the note that says what holds after one. Each button's name says the
// host (or site) it acts on, hidden from sight where the row already shows it.
function logButtons(row, e) {
  const note = h('span', { class: 'now', role: 'note' });
  const button = (act, label, aside) => h('button', {
    type: 'button', class: 'link', 'data-act': act[0], onclick: () => logAct(row, note, e, act),
  }, label, h('span', { class: 'aside' }, aside));
  const acts = LOG_ACTIONS.map((a) => button(a, a[1], ` ${e.host}`));
  if (e.site && e.decision !== 'disabled')
    acts.push(button(['off'], 'Disable on this site', ` (${e.site})`));
  return [h('span', { class: 'acts', role: 'group', 'aria-label': `Choices for ${e.host}` },
            acts), note];
}

// What brock took out of the request's URL (ClearURLs' rules), or "" when nothing.
function logCleaned(e) {
  if (e.cleaned === 'redirect') return ' · a link wrapper opened: sent straight to the address inside';
  if (e.cleaned === 'stripped')
    return ` · took ${e.removed || 'tracking parameters'} out of its address` +
      (e.status === 302 && e.answered_by === 'brock' ? ', and sent the page to the clean one' : '');
  return '';
}

// The name brock decided on when the host is an alias of it (a CNAME), or "".
function logVia(e) {
  if (!e.via_cname) return '';
  return ` · via CNAME ${e.via_cname}${e.via_dns ? '' : ' (Privacy Badger\'s list)'}`;
}

function logRow(e) {
  const third = logThirdParty(e);
  const self = e.decision === 'first_party' && e.page === 'self';
  const host = third ? h('a', { href: `#/tracker/${enc(e.host)}`, class: 'host' }, domain(e.host))
                     : domain(e.host);
  const site = e.site && !self ? [' on ', h('a', { href: `#/site/${enc(e.site)}` },
                                              domain(e.site))] : '';
  const page = third && LOG_PAGES[e.page] ? `; ${LOG_PAGES[e.page]}` : '';
  const row = h('li', { class: `logrow ${logClass(e.decision)}`, 'data-id': e.id,
                        'data-decision': e.decision, 'data-host': e.host },
    h('time', { datetime: new Date(e.time).toISOString() }, logTime(e.time)),
    h('span', { class: 'what' }, logWhat(e)),
    h('span', { class: 'who' }, h('span', { class: 'method' }, e.method), ' ', host, site,
      e.page === 'none' ? ' (no page)' : '', WAY_NOTE[e.way] || ''),
    h('span', { class: 'why' },
      `${logWhy(e)}${logVia(e)}${page} · ${logStatus(e)}${logCleaned(e)}`));
  if (e.cleaned) row.dataset.cleaned = e.cleaned;
  if (third) row.append(...logButtons(row, e));
  // The filter reads what the row says, and the stream's own words.
  row.dataset.text = [...row.querySelectorAll('.what, .who, .why')].map((el) => el.textContent)
    .concat(e.host, e.site, e.decision, e.reason, e.action).join(' ').toLowerCase();
  row.hidden = !logMatches(row);
  return row;
}

function logShow(e) {
  const list = document.getElementById('log-rows');
  if (!list) return;
  list.prepend(e.skipped !== undefined
    ? h('li', { class: 'logrow skipped' },
        `${count(e.skipped, 'request')} not shown: the page fell behind`)
    : logRow(e));
  while (list.children.length > LOG_ROWS) list.lastElementChild.remove();
  const empty = document.getElementById('log-empty');
  if (empty) empty.hidden = true;
}

function logHeld() {
  const held = document.getElementById('log-held');
  if (held) held.textContent = logState.paused
    ? `Paused: ${count(logState.held.length, 'request')} held back.` : '';
}

function logTake(e) {
  if (logState.paused) {
    logState.held.push(e);
    if (logState.held.length > LOG_ROWS) logState.held.shift();
    logHeld();
  } else {
    logShow(e);
  }
}

function logConnect() {
  const src = new EventSource('/api/log');
  const live = document.getElementById('log-live');
  logState.source = src;
  src.onopen = () => { if (live) live.textContent = 'Live.'; };
  src.onmessage = (m) => logTake(JSON.parse(m.data));
  src.addEventListener('skipped', (m) => logTake(JSON.parse(m.data)));
  src.onerror = () => {
    if (live) live.textContent = 'Reconnecting…';
    // Refused (an HTTP error), the browser gives up: ask again in a while.
    if (src.readyState === EventSource.CLOSED && logState.source === src) {
      logState.source = null;
      logState.retry = setTimeout(logConnect, 5000);
    }
  };
}

// Leaving the page ends its stream.
function logStop() {
  if (logState.source) logState.source.close();
  clearTimeout(logState.retry);
  logState.source = null;
  logState.retry = null;
  logState.paused = false;
  logState.held = [];
}

function viewLog() {
  logStop();
  const pause = h('button', { type: 'button', id: 'log-pause', 'aria-pressed': 'false',
                              onclick: () => {
    logState.paused = !logState.paused;
    pause.setAttribute('aria-pressed', String(logState.paused));
    pause.textContent = logState.paused ? 'Resume' : 'Pause';
    if (!logState.paused) {
      for (const e of logState.held) logShow(e);
      logState.held = [];
    }
    logHeld();
  } }, 'Pause');
  const filter = h('input', { type: 'search', id: 'log-filter', placeholder: 'host, site, words',
                              oninput: () => {
    logState.filter = filter.value.trim().toLowerCase();
    for (const row of document.querySelectorAll('#log-rows > li.logrow[data-id]'))
      row.hidden = !logMatches(row);
  } });
  filter.value = logState.filter;
  main.replaceChildren(
    h('h1', {}, 'Live log'),
    h('p', { class: 'note' }, 'The requests brock decides, as they happen, newest first. ' +
      'Kept in memory only: brock writes none of it to disk.'),
    h('div', { class: 'filters' },
      h('label', { for: 'log-filter' }, 'Filter', filter), pause,
      h('button', { type: 'button', id: 'log-clear', onclick: () => {
        document.getElementById('log-rows').replaceChildren();
        logState.held = [];
        logHeld();
      } }, 'Clear'),
      h('span', { class: 'note', id: 'log-live', role: 'status' }, 'Connecting…'),
      h('span', { class: 'note', id: 'log-held' })),
    h('ul', { class: 'legend' },
      [['block', 'Blocked'], ['cookieblock', 'Cookies blocked'], ['allow', 'Allowed']]
        .map(([k, w]) => h('li', {}, h('span', { class: `swatch swatch-${k}` }), w))),
    h('p', { class: 'muted', id: 'log-empty' }, 'No requests yet.'),
    h('ul', { class: 'rows log', id: 'log-rows', 'aria-label': 'Requests' }));
  logConnect();
}
