// brock's script, which brock puts first in the head of every HTML document it passes (see
// docs/design.md): what Privacy Badger does inside pages. It runs before the page's own scripts
// and leaves no name behind. Being inline in XHTML documents too, it has no less-than sign and
// no ampersand.
//
// Its element's data-brock attribute says, for this document: the token brock gave it, which
// binds what it tells brock to this document (its host, its top-level page, what kind of
// document it is, when it was given), the path brock takes reports on ("-" for both where
// brock gave no token: over plain HTTP, in a frame whose page it cannot tell),
// and its jobs ("s": say the signals brock's requests carry; "r": watch and report; "w":
// replace social widgets blocked on the top-level page with placeholders; "a": give the
// placeholders their buttons; "g", "f": unwrap the links of Google's and Facebook's pages). The
// text stays the same in every document, so that one hash lets it run under any
// Content-Security-Policy; the attribute is taken out before any script of the page runs.
(function () {
  'use strict';
  const me = document.currentScript;
  const conf = String((me ? me.getAttribute('data-brock') : '') || '').split(' ');
  if (me) me.removeAttribute('data-brock');
  const token = conf[0] !== '-' ? conf[0] : '';
  const endpoint = conf[1] !== '-' ? conf[1] : '';
  const jobs = conf[2] || '';

  // The signals: navigator.doNotTrack and navigator.globalPrivacyControl say what brock's
  // requests say in their headers (DNT: 1 and Sec-GPC: 1).
  const say = (name, value) => {
    try {
      Object.defineProperty(Navigator.prototype, name, {
        configurable: true,
        enumerable: true,
        get: function () { return value; },
      });
    } catch (e) {
      // A page cannot have frozen Navigator before this runs; another script of the browser's
      // may have, and then the page keeps what it has.
    }
  };
  if (jobs.indexOf('s') !== -1) {
    say('globalPrivacyControl', true);
    say('doNotTrack', '1');
  }
  // Social widget placeholders (Privacy Badger's socialwidgets.js), in a page or a frame
  // ("w"): brock says which widgets it blocks on the top-level page (the list comes from the
  // document's own origin, on the path beside the reports'; the token says which page), and
  // each one found in the document gives way to a placeholder naming it, with two buttons
  // ("a": in the page and its own site's frames, not in another site's). "Allow once" lets
  // the widget load on that page, "Always allow on this site" on every visit; either puts the
  // widget back at once, without a reload. Only a click of the user's (a trusted event)
  // counts. A widget that the user's own choice blocks gets no buttons: only the user undoes
  // that choice, where it was made.
  if (jobs.indexOf('w') !== -1 ? (token ? endpoint : '') : '') {
    const call = Reflect.apply;
    const post = window.fetch;
    const toJson = JSON.stringify;
    const Observer = window.MutationObserver;
    const wait = window.setTimeout;
    const attach = Element.prototype.attachShadow;
    const swap = Element.prototype.replaceWith;
    const findAll = Document.prototype.querySelectorAll;
    const byTag = Document.prototype.getElementsByTagName;
    const folder = location.protocol + '//' + location.host +
      endpoint.slice(0, endpoint.lastIndexOf('/') + 1);
    const buttons = jobs.indexOf('a') !== -1;
    const ask = (what, body) => {
      body.token = token;
      return call(post, window, [folder + what, {
        method: 'POST', body: toJson(body), credentials: 'omit', cache: 'no-store',
      }]);
    };
    const done = new WeakSet();
    const holders = [];
    const allowed = {};
    let widgets = [];

    const css = (el, props) => {
      for (const k of Object.keys(props)) el.style.setProperty(k, props[k], 'important');
    };
    const matches = (el, urls) => {
      const src = String(el.getAttribute('src') || el.getAttribute('data-src') || '');
      const bare = src.replace(/^https?:/i, '');
      for (const u of urls) {
        if (src.startsWith(u) ? true : (u.startsWith('//') ? bare.startsWith(u) : false)) {
          return true;
        }
      }
      return false;
    };
    const found = (w) => {
      const out = [];
      for (const sel of w.selectors || []) {
        try {
          for (const el of call(findAll, document, [sel])) out.push(el);
        } catch (e) {
          // A selector this browser does not read finds nothing.
        }
      }
      for (const e of w.elements || []) {
        for (const el of call(byTag, document, [String(e.elm)])) {
          if (matches(el, e.urls || [])) out.push(el);
        }
      }
      return out;
    };

    const allow = (w, always) => {
      ask('allow', { widget: w.name, always: always }).then((r) => {
        if (!r.ok) return;
        allowed[w.name] = true;
        for (const one of holders) {
          // Back in the document, a frame loads its address now.
          if (one.name === w.name) call(swap, one.holder, [one.el]);
        }
      }).catch(() => {});
    };
    const button = (label, w, always) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      css(b, { margin: '0.3em', padding: '0.4em 0.9em', font: '14px sans-serif',
               color: '#fff', background: '#2c5d8a', border: '0', 'border-radius': '4px',
               cursor: 'pointer', display: 'inline-block', visibility: 'visible' });
      b.addEventListener('click', (ev) => {
        if (ev.isTrusted) allow(w, always);
      });
      return b;
    };
    // The placeholder: an element of its own whose shadow root (open, so that it can be
    // looked into) holds the text and buttons, styled here, out of the page's style sheets.
    const replace = (w, el) => {
      const holder = document.createElement('div');
      holder.setAttribute('data-brock-widget', w.name);
      const box = el.getBoundingClientRect();
      const width = box.width || Number(el.getAttribute('width')) || 0;
      const height = box.height || Number(el.getAttribute('height')) || 0;
      css(holder, { display: 'block', visibility: 'visible', opacity: '1',
                    width: width > 0 ? width + 'px' : 'auto',
                    'min-height': height > 0 ? height + 'px' : '6em' });
      const root = call(attach, holder, [{ mode: 'open' }]);
      const inner = document.createElement('div');
      css(inner, { display: 'block', 'box-sizing': 'border-box', height: '100%',
                   'min-height': 'inherit', padding: '1em', border: '1px solid #999',
                   background: '#f4f4f4', color: '#222', font: '15px sans-serif',
                   'text-align': 'center', visibility: 'visible' });
      const p = document.createElement('p');
      const chosen = typeof w.chosen === 'string' ? w.chosen !== '' : false;
      p.textContent = 'brock has blocked ' + w.name + ' on this page' +
        (chosen ? ', as you chose' : '');
      css(p, { margin: '0 0 0.6em', color: '#222', display: 'block' });
      inner.append(p);
      if (buttons ? !chosen : false) {
        inner.append(button('Allow once', w, false),
                     button('Always allow on this site', w, true));
      }
      root.append(inner);
      done.add(el);
      holders.push({ name: w.name, holder: holder, el: el });
      call(swap, el, [holder]);
    };
    const scan = () => {
      for (const w of widgets) {
        if (allowed[w.name] === true) continue;
        for (const el of found(w)) {
          if (!done.has(el)) replace(w, el);
        }
      }
    };
    let queued = false;
    const later = () => {
      if (queued) return;
      queued = true;
      call(wait, window, [() => { queued = false; scan(); }, 50]);
    };
    const start = (list) => {
      if (!Array.isArray(list) || !list.length) return;
      widgets = list;
      scan();
      // Widgets that scripts add later are replaced too.
      new Observer(later).observe(document.documentElement, { childList: true, subtree: true });
    };
    ask('widgets', {}).then((r) => (r.ok ? r.json() : [])).then((list) => {
      if (document.readyState !== 'loading') start(list);
      else document.addEventListener('DOMContentLoaded', () => start(list));
    }).catch(() => {});
  }

  // Links on Google's and Facebook's own pages (Privacy Badger's first-party protections):
  // brock chose the job by the document's host ("g": Google's, "f": Facebook's). A link that
  // goes through the site's redirector to record the click leads where it says instead, with
  // no Referer; links the page adds later are handled as they come (a mutation observer).
  const unwrap = jobs.indexOf('g') !== -1 ? 'g' : (jobs.indexOf('f') !== -1 ? 'f' : '');
  if (unwrap !== '') {
    const call = Reflect.apply;
    const URLOf = URL;
    const Anchor = HTMLAnchorElement;
    const Observer = window.MutationObserver;
    const findIn = Element.prototype.querySelectorAll;
    const findAll = Document.prototype.querySelectorAll;
    const listen = EventTarget.prototype.addEventListener;
    const isWeb = (s) => /^https?:\/\//i.test(s);
    const parse = (s) => {
      try {
        return new URLOf(s, location.href);
      } catch (e) {
        return null;
      }
    };
    const seen = new WeakSet();
    const mine = new WeakMap(); // a link's href as brock last set it

    // Google: https://www.google.com/url?... or this origin's /url?..., whose url (else q)
    // parameter names the address, when it is a web one. A target wrapped twice is unwrapped
    // once more.
    const googleTarget = (href) => {
      const u = parse(href);
      if (!u || u.pathname !== '/url') return '';
      if (u.origin !== 'https://www.google.com' ? u.origin !== location.origin : false) return '';
      const to = u.searchParams.get('url') || u.searchParams.get('q') || '';
      return isWeb(to) ? to : '';
    };
    const google = (a) => {
      const to = googleTarget(a.href);
      if (to === '') return;
      a.href = googleTarget(to) || to;
      a.rel = 'noreferrer noopener';
    };

    // Facebook: l.php?u=ADDRESS on the site's own names leads to ADDRESS (a web one), without
    // its fbclid; the link keeps only its href, class and aria-* attributes, opens a new tab,
    // and the page's click and mouse handlers never hear of it. Any other link to a web
    // address just loses its fbclid. A javascript: link is left as it is.
    const site = location.hostname.split('.').slice(-2).join('.');
    const stop = (ev) => {
      ev.stopImmediatePropagation();
      ev.stopPropagation();
    };
    const facebook = (a) => {
      const u = parse(a.href);
      if (!u || !isWeb(u.href)) return;
      const own = u.hostname === site || u.hostname.endsWith('.' + site);
      if (!(own ? u.pathname === '/l.php' : false)) {
        if (!u.searchParams.has('fbclid')) return;
        u.searchParams.delete('fbclid');
        a.href = u.href;
        return;
      }
      const to = parse(u.searchParams.get('u') || '');
      if (!to || !isWeb(to.href)) return;
      to.searchParams.delete('fbclid');
      for (const attr of Array.from(a.attributes)) {
        const name = attr.name;
        if (name !== 'href' ? (name !== 'class' ? !name.startsWith('aria-') : false) : false) {
          a.removeAttribute(name);
        }
      }
      a.href = to.href;
      a.rel = 'noreferrer noopener';
      a.target = '_blank';
      if (seen.has(a)) return;
      seen.add(a);
      for (const type of ['click', 'mousedown', 'mouseup', 'mouseover']) {
        call(listen, a, [type, stop, true]);
      }
    };

    const clean = unwrap === 'g' ? google : facebook;
    const one = (a) => {
      try {
        if (!(a instanceof Anchor) || mine.get(a) === a.getAttribute('href')) return;
        clean(a);
        mine.set(a, a.getAttribute('href'));
      } catch (e) {
        // A link brock cannot read stays as it is.
      }
    };
    const under = (node) => {
      if (!(node instanceof Element)) return;
      one(node);
      for (const a of call(findIn, node, ['a[href]'])) one(a);
    };
    // From the first element on, as the parser adds them; an href changed later is read again.
    new Observer((records) => {
      for (const r of records) {
        if (r.type === 'attributes') one(r.target);
        else for (const node of r.addedNodes) under(node);
      }
    }).observe(document, { childList: true, subtree: true, attributes: true,
                           attributeFilter: ['href'] });
    for (const a of call(findAll, document, ['a[href]'])) one(a);
  }

  if (jobs.indexOf('r') === -1 || !token || !endpoint) return;

  // What the page may replace later is taken now.
  const apply = Reflect.apply;
  const WeakMapOf = WeakMap;
  const originalOf = WeakMap.prototype.get;
  const WeakSetOf = WeakSet;
  const ErrorOf = Error;
  const stringify = JSON.stringify;
  const beacon = Navigator.prototype.sendBeacon;
  const listen = EventTarget.prototype.addEventListener;
  const idle = window.requestIdleCallback;
  const later = window.setTimeout;
  const canvasOf = Object.getOwnPropertyDescriptor(CanvasRenderingContext2D.prototype,
                                                   'canvas').get;
  const widthOf = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'width').get;
  const heightOf = Object.getOwnPropertyDescriptor(HTMLCanvasElement.prototype, 'height').get;
  // The report goes to this document's own origin (no mixed content; connect-src 'self'
  // allows it), by an absolute address so that a base element cannot send it elsewhere.
  const target = location.protocol + '//' + location.host + endpoint;
  // Where the document sits is the token's to tell brock; here it only says whether to look
  // at localStorage, which is a frame's business.
  const isTop = window === window.top;

  const send = (report) => {
    try {
      report.token = token;
      apply(beacon, navigator, [target, stringify(report)]);
    } catch (e) {
      // Reporting is best effort: the page must never notice it.
    }
  };

  // The wrappers look like the functions they wrap: toString() tells the original's source.
  const originals = new WeakMapOf();
  const wrap = (proto, name, after) => {
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (!d || typeof d.value !== 'function') return;
    const f = d.value;
    const w = new Proxy(f, {
      apply: function brockCanvasCall(fn, self, args) {
        // The call itself first, untouched: what it returns or throws is the page's.
        const out = apply(fn, self, args);
        try {
          after(self, args);
        } catch (e) {
          // Watching never breaks the page.
        }
        return out;
      },
    });
    originals.set(w, f);
    d.value = w;
    Object.defineProperty(proto, name, d);
  };
  const fnToString = Function.prototype.toString;
  const masked = new Proxy(fnToString, {
    apply: function (fn, self, args) {
      return apply(fn, apply(originalOf, originals, [self]) || self, args);
    },
  });
  originals.set(masked, fnToString);
  try {
    Object.defineProperty(Function.prototype, 'toString', {
      value: masked, writable: true, configurable: true, enumerable: false,
    });
  } catch (e) {
    // Frozen: the wrappers' toString shows a proxy, nothing worse.
  }

  // The URL of the script that made the call: in a stack trace, the first frame after
  // brock's own (the trap above) that names a script.
  const caller = () => {
    let stack = '';
    let limit;
    try {
      limit = ErrorOf.stackTraceLimit;
      ErrorOf.stackTraceLimit = 50;
    } catch (e) {
      // Not V8, or locked: take the stack as it comes.
    }
    try {
      throw new ErrorOf();
    } catch (e) {
      stack = String(e.stack || '');
    }
    try {
      ErrorOf.stackTraceLimit = limit;
    } catch (e) {
      // As above.
    }
    const lines = stack.split('\n');
    let after = -1;
    for (let i = 0; lines.length > i; i++) {
      if (lines[i].indexOf('brockCanvasCall') !== -1) after = i;
    }
    for (let i = after + 1; after !== -1 ? lines.length > i : false; i++) {
      // "    at f (https://x/a.js:1:2)", "    at https://x/a.js:1:2", "f@https://x/a.js:1:2"
      let s = lines[i].trim();
      if (s.endsWith(')')) s = s.slice(s.lastIndexOf('(') + 1, -1);
      else if (s.indexOf('@') !== -1) s = s.slice(s.lastIndexOf('@') + 1);
      else if (s.startsWith('at ')) s = s.slice(3);
      s = s.replace(/(:\d+){1,2}$/, '');
      if (/^(https?|data|blob|file):/.test(s)) return s;
    }
    return '';
  };
  const hostOf = (url) => {
    const m = /^[a-z]+:\/\/([^/?#]*)/i.exec(url);
    return m ? m[1].toLowerCase() : '';
  };

  // Canvas fingerprinting (Privacy Badger's fingerprinting.js): a script writes text of 5
  // characters or more to a context (only a context's first such write counts), then reads
  // back an area wider and taller than 16 pixels. Privacy Badger matches the writer and the
  // reader by their script's base domain, which brock computes: each reader is reported once
  // with the writers so far.
  const written = new WeakSetOf();
  const writers = [];
  const reported = {};
  const onWrite = (ctx, args) => {
    if (written.has(ctx) || !args.length || 5 > String(args[0]).length) return;
    written.add(ctx);
    const url = caller();
    if (url === '' || url.startsWith('data:') || writers.indexOf(url) !== -1) return;
    if (writers.length !== 16) writers.push(url);
  };
  const onRead = (w, h) => {
    if (!(w > 16) || !(h > 16) || !writers.length) return;
    const url = caller();
    if (url === '' || url.startsWith('data:')) return;
    const host = hostOf(url);
    if (reported[host] === true) return;
    reported[host] = true;
    send({ kind: 'canvas', script: url, writers: writers.slice() });
  };
  const ctx2d = CanvasRenderingContext2D.prototype;
  wrap(ctx2d, 'fillText', (self, args) => onWrite(self, args));
  wrap(ctx2d, 'strokeText', (self, args) => onWrite(self, args));
  wrap(ctx2d, 'getImageData', (self, args) => {
    const c = apply(canvasOf, self, []);
    onRead(args.length > 2 ? Number(args[2]) : apply(widthOf, c, []),
           args.length > 3 ? Number(args[3]) : apply(heightOf, c, []));
  });
  wrap(HTMLCanvasElement.prototype, 'toDataURL',
       (self) => onRead(apply(widthOf, self, []), apply(heightOf, self, [])));

  // localStorage "supercookies" (Privacy Badger's supercookie.js): in a frame, once the page
  // is idle, its localStorage goes to brock, which weighs it. Bounded: the first 64 items,
  // values cut at 1 KiB (past 256 characters one is a supercookie by its length alone), 12 KiB
  // in all.
  if (isTop) return;
  const look = () => {
    try {
      const ls = window.localStorage;
      const items = {};
      let n = 0;
      let size = 0;
      for (let i = 0; ls.length > i; i++) {
        const key = ls.key(i);
        const k = String(key).slice(0, 256);
        const v = String(ls.getItem(key)).slice(0, 1024);
        size += k.length + v.length;
        if (n === 64 || size > 12288) break;
        items[k] = v;
        n++;
      }
      if (n) send({ kind: 'supercookie', items: items });
    } catch (e) {
      // Storage refused to this frame (third-party storage blocked): nothing to see.
    }
  };
  apply(listen, window, ['load', () => {
    if (typeof idle === 'function') apply(idle, window, [look, { timeout: 5000 }]);
    else apply(later, window, [look, 1000]);
  }]);
}());
