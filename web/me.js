// SPDX-License-Identifier: GPL-3.0-or-later
// A client's own page: who it is, and its own requests from brock's live log as they come.
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
