// SPDX-License-Identifier: GPL-3.0-or-later
// The sign-in page: says whether a password is set, sends the one typed, and goes to the
// dashboard once brock answers with a session.
'use strict';

const said = document.getElementById('said');
const form = document.getElementById('signin');

function say(text) {
  said.textContent = text;
}

async function session() {
  try {
    const r = await fetch('/api/session', { cache: 'no-store' });
    const s = await r.json();
    if (s.owner) {
      location.replace('/');
      return;
    }
    if (!s.password) {
      say('No password is set yet: on the machine brock runs on, run brock passwd.');
    } else if (s.https && !s.tls && !s.local) {
      // The password never crosses the network in the clear: the same page over HTTPS.
      said.textContent = 'Sign in over HTTPS, so that the password is not sent in the clear: ';
      const a = document.createElement('a');
      a.href = s.https;
      a.textContent = s.https;
      said.append(a);
      form.remove();
    }
  } catch (e) {
    say('brock does not answer.');
  }
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const password = document.getElementById('password').value;
  say('Checking…');
  try {
    const r = await fetch('/api/signin', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ password }),
    });
    if (r.ok) {
      location.replace('/');
      return;
    }
    const j = await r.json().catch(() => ({}));
    say(j.error ? `Not signed in: ${j.error}.` : `Not signed in (${r.status}).`);
  } catch (e) {
    say('brock does not answer.');
  }
});

session();
