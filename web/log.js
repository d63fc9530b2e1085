// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's live log (#/log): each request brock decided as it happens, streamed from
// GET /api/log (Server-Sent Events), newest first, coloured as the rest of the dashboard.
// Pause holds new requests back until Resume; the filter shows the rows whose host, site,
// decision or reason contain its text; Clear empties the list. The browser's EventSource
// reconnects by itself, asking for what it missed (Last-Event-ID); when the stream is
// refused outright, the page asks again after a few seconds. Uses app.js's helpers (h,
// domain, count).
'use strict';

// Rows kept on the page; older ones go.
const LOG_ROWS = 1000;

// What each decision and reason of the stream means, in the page's words.
const LOG_DECISIONS = {
  block: 'Blocked', cookieblock: 'Cookies blocked', allow: 'Allowed',
  first_party: 'First party', disabled: 'brock off here',
};
const LOG_REASONS = {
  first_party: 'the page\'s own site', private: 'a local address',
  disabled: 'brock is disabled on the site', site_fix: 'a site fix leaves it alone',
  fingerprinting: 'a fingerprinting script', widget: 'a widget you allowed',
  user_site: 'your choice on this site', yellowlist: 'Privacy Badger\'s yellowlist',
  user: 'your choice', dnt_policy: 'it posts the DNT policy',
  not_tracking: 'not seen tracking', learned: 'seen tracking (learned or pre-trained)',
  invalid: 'not a valid host name',
};

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

function logMatches(row) {
  return !logState.filter || row.dataset.text.includes(logState.filter);
}

function logRow(e) {
  const row = h('li', { class: `logrow ${logClass(e.decision)}`, 'data-id': e.id,
                        'data-decision': e.decision, 'data-host': e.host },
    h('time', { datetime: new Date(e.time).toISOString() }, logTime(e.time)),
    h('span', { class: 'what' }, LOG_DECISIONS[e.decision] || e.decision),
    h('span', { class: 'who' }, h('span', { class: 'method' }, e.method), ' ', domain(e.host),
      e.site ? [' on ', domain(e.site)] : ''),
    h('span', { class: 'why' }, LOG_REASONS[e.reason] || e.reason,
      e.status ? ` · ${e.status}` : ''));
  row.dataset.text = [e.host, e.site, e.decision, LOG_DECISIONS[e.decision], e.reason,
                      LOG_REASONS[e.reason], e.action, e.method].join(' ').toLowerCase();
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
  const filter = h('input', { type: 'search', id: 'log-filter', placeholder: 'host, site, decision',
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
