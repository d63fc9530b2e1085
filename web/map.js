// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's map (#/): the sites visited and the third parties their pages requested, as
// a graph drawn in SVG from GET /api/map. Sites sit on a ring; a third party sits inside it,
// at the mean of its sites' places, so that one seen everywhere drifts to the middle and one
// seen on a single site stays beside it; a fixed number of passes then pushes overlapping
// circles apart. The layout is computed once, before drawing, and the same data always gives
// the same picture. Uses the helpers of app.js (h, svg, api, words, position, count, enc,
// pauseBox).
'use strict';

// What the map shows of the time kept: the API's days, '' for everything kept.
const MAP_TIMES = [['1', 'The last day'], ['7', 'The last week'], ['', 'Everything kept']];
const MAP_KINDS = [['block', 'Blocked'], ['cookieblock', 'Cookies blocked'],
                   ['allow', 'Allowed']];
const mapShown = { days: '', block: true, cookieblock: true, allow: true };

// A third party's circle grows with the sites it reaches.
function mapRadius(sites) {
  return Math.min(18, 4 + 2.5 * Math.sqrt(sites));
}

// Long names are cut on the map (the label and the table say them whole).
function mapShort(name) {
  return name.length > 24 ? `${name.slice(0, 23)}…` : name;
}

// A fixed number of passes that push overlapping circles apart and keep them inside the ring.
// Each pass only compares circles in neighbouring cells of a grid as wide as the largest
// circle, which keeps a few hundred of them quick.
function relax(trackers, ring) {
  const n = trackers.length;
  const x = Float64Array.from(trackers, (t) => t.x), y = Float64Array.from(trackers, (t) => t.y);
  const r = Float64Array.from(trackers, (t) => t.r);
  const cell = 2 * mapRadius(Infinity) + 3;
  for (let pass = 0; pass < 60; pass++) {
    const grid = new Map();
    for (let i = 0; i < n; i++) {
      const key = Math.floor(x[i] / cell) * 4096 + Math.floor(y[i] / cell);
      if (grid.has(key)) grid.get(key).push(i);
      else grid.set(key, [i]);
    }
    let moved = false;
    for (let i = 0; i < n; i++) {
      const cx = Math.floor(x[i] / cell), cy = Math.floor(y[i] / cell);
      for (let gx = cx - 1; gx <= cx + 1; gx++) {
        for (let gy = cy - 1; gy <= cy + 1; gy++) {
          for (const j of grid.get(gx * 4096 + gy) || []) {
            if (j <= i) continue;
            const dx = x[j] - x[i], dy = y[j] - y[i], need = r[i] + r[j] + 3;
            const d2 = dx * dx + dy * dy;
            if (d2 >= need * need) continue;
            const d = Math.sqrt(d2) || 0.01, push = (need - d) / 2;
            x[i] -= dx / d * push; y[i] -= dy / d * push;
            x[j] += dx / d * push; y[j] += dy / d * push;
            moved = true;
          }
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const d = Math.sqrt(x[i] * x[i] + y[i] * y[i]), most = ring - 14 - r[i];
      if (d > most) { x[i] *= most / d; y[i] *= most / d; }
    }
    if (!moved) break;
  }
  trackers.forEach((t, i) => { t.x = x[i]; t.y = y[i]; });
}

// Places sites and trackers: { ring, size, sites: [{...site, x, y, angle}], trackers: [...,
// x, y, r] }, in the order the keyboard walks them (sites round the ring, then trackers by
// angle from the top).
function mapLayout(data) {
  const sites = [...data.sites].sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
  const ring = Math.max(120, sites.length * 22 / (2 * Math.PI));
  const at = new Map();
  sites.forEach((s, i) => {
    s.angle = 2 * Math.PI * i / Math.max(1, sites.length) - Math.PI / 2;
    s.x = ring * Math.cos(s.angle);
    s.y = ring * Math.sin(s.angle);
    at.set(s.site, s);
  });
  const of = new Map(data.trackers.map((t) => [t.domain, []]));
  for (const l of data.links) {
    if (at.has(l.site) && of.has(l.tracker)) of.get(l.tracker).push(at.get(l.site));
  }
  const trackers = data.trackers.map((t, i) => {
    const on = of.get(t.domain);
    let mx = 0, my = 0;
    for (const s of on) { mx += Math.cos(s.angle); my += Math.sin(s.angle); }
    mx /= Math.max(1, on.length);
    my /= Math.max(1, on.length);
    // One site: a little inside it; several: their centroid, pulled in from the ring.
    const pull = on.length === 1 ? ring - 34 : ring - 60;
    const spread = i * 2.399963; // the golden angle: a deterministic nudge for equal places
    return { ...t, r: mapRadius(on.length), x: mx * pull + Math.cos(spread) * 0.5,
             y: my * pull + Math.sin(spread) * 0.5 };
  });
  relax(trackers, ring);
  // Hundredths are plenty, and keep the SVG short.
  const round = (n) => Math.round(n * 100) / 100;
  for (const p of [...sites, ...trackers]) { p.x = round(p.x); p.y = round(p.y); }
  const angle = (t) => (Math.atan2(t.y, t.x) + 2.5 * Math.PI) % (2 * Math.PI);
  trackers.sort((a, b) => angle(a) - angle(b) || (a.domain < b.domain ? -1 : 1));
  const label = Math.min(24, Math.max(0, ...sites.map((s) => s.site.length))) * 6.2 + 16;
  return { ring, size: ring + label, sites, trackers };
}

function mapSiteWords(s) {
  return `${s.site}, a site: ${count(s.trackers, 'third party', 'third parties')}, ` +
    `${s.blocked} blocked, ${s.cookieblocked} with cookies blocked` +
    (s.disabled ? ' (brock is off here)' : '');
}

function mapTrackerWords(t) {
  return `${t.domain}, a third party: ${words(t.action)}, seen on ${count(t.sites, 'site')}`;
}

// The graph as SVG, with its keyboard: one node in the tab order, arrows move, Enter opens.
function mapGraph(data, info) {
  const lay = mapLayout(data);
  const place = new Map();
  for (const s of lay.sites) place.set(`s:${s.site}`, s);
  for (const t of lay.trackers) place.set(`t:${t.domain}`, t);
  const action = new Map(lay.trackers.map((t) => [t.domain, position(t.action)]));
  const edges = data.links.filter((l) => place.has(`t:${l.tracker}`)).map((l) => {
    const s = place.get(`s:${l.site}`), t = place.get(`t:${l.tracker}`);
    return svg('line', { class: `edge state-${action.get(l.tracker)}`, x1: s.x, y1: s.y,
                         x2: t.x, y2: t.y, 'data-site': l.site, 'data-tracker': l.tracker });
  });
  const siteNodes = lay.sites.map((s) => {
    const right = Math.cos(s.angle) >= -1e-9;
    const deg = s.angle * 180 / Math.PI + (right ? 0 : 180);
    return svg('g', { class: `node site${s.disabled ? ' disabled' : ''}`, 'data-name': s.site,
                      'data-kind': 'site', role: 'link', 'aria-label': mapSiteWords(s) },
      svg('title', {}, mapSiteWords(s)),
      svg('rect', { x: s.x - 6, y: s.y - 6, width: 12, height: 12, rx: 2 }),
      svg('text', { class: 'label', 'text-anchor': right ? 'start' : 'end',
                    transform: `translate(${s.x} ${s.y}) rotate(${deg}) ` +
                               `translate(${right ? 12 : -12} 4)` }, mapShort(s.site)));
  });
  const trackerNodes = lay.trackers.map((t) => svg('g', {
    class: `node tracker state-${position(t.action)}${t.user ? ' user' : ''}`,
    'data-name': t.domain, 'data-kind': 'tracker', 'data-action': t.action,
    'data-sites': t.sites, role: 'link', 'aria-label': mapTrackerWords(t),
  }, svg('title', {}, mapTrackerWords(t)), svg('circle', { cx: t.x, cy: t.y, r: t.r })));
  const nodes = [...siteNodes, ...trackerNodes];
  const graph = svg('svg', { class: 'map', viewBox: `${-lay.size} ${-lay.size} ` +
                                                    `${2 * lay.size} ${2 * lay.size}`,
                             role: 'group', 'aria-label': 'Map of sites and third parties',
                             'aria-describedby': 'map-help' },
    svg('g', { class: 'edges' }, edges), svg('g', { class: 'nodes' }, nodes));
  const light = (node) => {
    const name = node.dataset.name, key = node.dataset.kind === 'site' ? 'site' : 'tracker';
    const other = key === 'site' ? 'tracker' : 'site', near = new Set();
    graph.classList.add('lit');
    for (const e of edges) {
      const on = e.dataset[key] === name;
      e.classList.toggle('on', on);
      if (on) near.add(e.dataset[other]);
    }
    // The node, and the nodes it is linked to, stand out; the rest fade.
    for (const n of nodes) {
      n.classList.toggle('on', n === node);
      n.classList.toggle('near', n.dataset.kind !== node.dataset.kind && near.has(n.dataset.name));
    }
    info.textContent = node.getAttribute('aria-label');
  };
  const dark = () => {
    graph.classList.remove('lit');
    info.textContent = '';
  };
  const open = (node) => {
    location.hash = `#/${node.dataset.kind}/${enc(node.dataset.name)}`;
  };
  nodes.forEach((n, i) => {
    n.setAttribute('tabindex', i === 0 ? '0' : '-1');
    n.addEventListener('focus', () => {
      for (const m of nodes) m.setAttribute('tabindex', m === n ? '0' : '-1');
      light(n);
    });
    n.addEventListener('blur', dark);
    n.addEventListener('mouseenter', () => light(n));
    n.addEventListener('mouseleave', () => { if (document.activeElement !== n) dark(); });
    n.addEventListener('click', () => open(n));
    n.addEventListener('keydown', (ev) => {
      const to = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1,
                   Home: 0, End: nodes.length - 1 }[ev.key];
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        open(n);
      } else if (to !== undefined) {
        ev.preventDefault();
        nodes[(to + nodes.length) % nodes.length].focus();
      }
    });
  });
  return graph;
}

// The same data as a table: a row per site and third party seen on it.
function mapTable(data) {
  const kind = new Map(data.trackers.map((t) => [t.domain, t.action]));
  const rows = data.links.filter((l) => kind.has(l.tracker))
    .sort((a, b) => (a.site === b.site ? (a.tracker < b.tracker ? -1 : 1)
                                       : (a.site < b.site ? -1 : 1)));
  return h('table', { id: 'map-table' },
    h('caption', {}, 'Third parties seen on each site'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Site'),
                     h('th', { scope: 'col' }, 'Third party'),
                     h('th', { scope: 'col' }, 'Now'))),
    h('tbody', {}, rows.map((l) => h('tr', { 'data-site': l.site, 'data-tracker': l.tracker },
      h('td', {}, h('a', { href: `#/site/${enc(l.site)}` }, domain(l.site))),
      h('td', {}, h('a', { href: `#/tracker/${enc(l.tracker)}` }, domain(l.tracker))),
      h('td', {}, words(kind.get(l.tracker)))))));
}

// The data with only the trackers of the actions shown, and their links.
function mapFilter(data) {
  const trackers = data.trackers.filter((t) => mapShown[position(t.action)]);
  const kept = new Set(trackers.map((t) => t.domain));
  return { sites: data.sites, trackers, links: data.links.filter((l) => kept.has(l.tracker)) };
}

async function viewMap() {
  const data = await api('GET', `/api/map${mapShown.days ? `?days=${mapShown.days}` : ''}`);
  const info = h('p', { id: 'map-info', class: 'map-info' });
  const box = h('div', { class: 'map-box' });
  const table = h('div', { class: 'table-wrap' });
  const tally = h('p', { class: 'muted', id: 'map-count', 'aria-live': 'polite' });
  const draw = () => {
    const shown = mapFilter(data);
    tally.textContent = `${count(shown.sites.length, 'site')}, ` +
      `${count(shown.trackers.length, 'third party', 'third parties')}.`;
    box.replaceChildren(shown.sites.length ? mapGraph(shown, info) : h('p', { class: 'muted' },
      'No site has been visited through brock in this time. Point a browser at brock ' +
      `(${location.host}) as its proxy and browse.`));
    table.replaceChildren(mapTable(shown));
  };
  const time = h('select', { id: 'map-days', onchange: async () => {
    mapShown.days = time.value;
    await route();
    document.getElementById('map-days')?.focus();
  } }, MAP_TIMES.map(([v, label]) => h('option', { value: v, selected: v === mapShown.days },
                                       label)));
  const kinds = MAP_KINDS.map(([k, label]) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', id: `map-show-${k}`, checked: mapShown[k], onchange: (ev) => {
      mapShown[k] = ev.target.checked;
      draw();
    } }), h('span', { class: `swatch swatch-${k}`, 'aria-hidden': 'true' }), label));
  const status = await api('GET', '/api/status');
  const notice = await httpsNotice(status);
  main.replaceChildren(
    h('h1', {}, 'Who follows you'),
    pauseBox(status),
    ...(notice ? [notice] : []),
    h('p', { class: 'muted', id: 'map-help' },
      'The sites you visited (squares, on the ring) and the third parties their pages ' +
      'loaded (circles, larger for more sites), linked where one was seen on the other. ' +
      'Point at one, or move with the arrow keys, for its name; click or press Enter to ' +
      'open its page. A ring around a circle marks your own choice.'),
    h('div', { class: 'filters', role: 'group', 'aria-label': 'What the map shows' },
      h('label', {}, 'Seen in', time), h('fieldset', { class: 'kinds' },
        h('legend', {}, 'Third parties'), kinds)),
    tally, info, box,
    h('h2', {}, 'The map as a table'), table);
  draw();
}
