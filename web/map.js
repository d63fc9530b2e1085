// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's map (#/): the sites visited and the third parties their pages requested, as
// a graph drawn in SVG from GET /api/map. Sites sit on a ring, their names read level beside
// them; a third party sits on an inner ring by the number of its sites (more sites, nearer the
// middle), at the free spot nearest the mean of its sites' places. Every node is placed with
// its label's box, checked against everything placed before it, so that nothing overlaps by
// construction. The layout is computed once, before drawing, and the same data always gives
// the same picture. Uses the helpers of app.js (h, svg, api, words, position, count, enc,
// pauseBox).
'use strict';

// What the map shows of the time kept: the API's days, '' for everything kept.
const MAP_TIMES = [['1', 'The last day'], ['7', 'The last week'], ['', 'Everything kept']];
const MAP_KINDS = [['block', 'Blocked'], ['cookieblock', 'Cookies blocked'],
                   ['allow', 'Allowed']];
const mapShown = { days: '', block: true, cookieblock: true, allow: true };

// What the map draws at most: the most recent sites (the API is asked for these alone) and,
// of their third parties, the most important; the table and the Sites and All trackers pages
// list the rest. More would be unreadable, and slow to lay out.
const MAP_SITES = 40;
const MAP_TRACKERS = 120;
// The labels' size in px (app.css says the same); the drawing is never scaled down, so that
// this is their size on the screen too.
const MAP_FONT = 12;
const MAP_GAP = 3; // the least room between two nodes' boxes

// A third party's circle grows with the sites it reaches.
function mapRadius(sites) {
  return Math.min(18, 4 + 2.5 * Math.sqrt(sites));
}

// Long names are cut on the map (the label and the table say them whole).
function mapShort(name) {
  return name.length > 24 ? `${name.slice(0, 23)}…` : name;
}

// Which third parties matter most: blocked, then cookies blocked, then allowed; then those on
// more sites; then by name. The map places and draws them in this order.
const MAP_RANK = { block: 0, cookieblock: 1, allow: 2 };
function mapOrder(a, b) {
  return MAP_RANK[position(a.action)] - MAP_RANK[position(b.action)] || b.sites - a.sites ||
    (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0);
}

// A label's width in px, measured in the page's font (an estimate where a canvas is missing).
let mapCanvas = null;
function mapTextWidth(text) {
  if (mapCanvas === null) {
    mapCanvas = document.createElement('canvas').getContext('2d') || false;
    if (mapCanvas) {
      const family = getComputedStyle(document.documentElement).fontFamily;
      mapCanvas.font = `${MAP_FONT}px ${family}`;
    }
  }
  // A little over the measure: the test of overlap reads what the browser drew.
  return mapCanvas ? mapCanvas.measureText(text).width * 1.06 + 2 : text.length * MAP_FONT * 0.65;
}

// The boxes placed so far, in a grid of cells, so that a new box is compared with its
// neighbours only. Plain loops, no closures: a layout asks thousands of times.
class MapBoxes {
  constructor() { this.cells = new Map(); this.size = 48; }
  // The box placed that comes within MAP_GAP of x0..x1 × y0..y1; null when none does.
  hit(x0, y0, x1, y1) {
    const s = this.size;
    for (let gx = Math.floor(x0 / s); gx <= Math.floor(x1 / s); gx++) {
      for (let gy = Math.floor(y0 / s); gy <= Math.floor(y1 / s); gy++) {
        const cell = this.cells.get(gx * 65536 + gy);
        if (!cell) continue;
        for (const o of cell) if (mapMeet(o, x0, y0, x1, y1)) return o;
      }
    }
    return null;
  }
  add(b) {
    const s = this.size;
    for (let gx = Math.floor(b.x0 / s); gx <= Math.floor(b.x1 / s); gx++) {
      for (let gy = Math.floor(b.y0 / s); gy <= Math.floor(b.y1 / s); gy++) {
        const k = gx * 65536 + gy;
        if (this.cells.has(k)) this.cells.get(k).push(b);
        else this.cells.set(k, [b]);
      }
    }
  }
}

// Whether box o comes within MAP_GAP of x0..x1 × y0..y1.
function mapMeet(o, x0, y0, x1, y1) {
  return x0 < o.x1 + MAP_GAP && o.x0 < x1 + MAP_GAP && y0 < o.y1 + MAP_GAP &&
    o.y0 < y1 + MAP_GAP;
}

// A site's box: its square and its label, which reads away from the ring's middle (right of
// the square on the right half, left of it on the left half).
function mapSiteBox(s) {
  const w = s.w, right = s.side > 0;
  return { x0: right ? s.x - 6 : s.x - 10 - w, x1: right ? s.x + 10 + w : s.x + 6,
           y0: s.y - MAP_FONT * 0.75, y1: s.y + MAP_FONT * 0.75 };
}

// A third party's box: its circle and its label, to the circle's right.
function mapTrackerBox(t) {
  const half = Math.max(t.r, MAP_FONT * 0.75);
  return { x0: t.x - t.r, x1: t.x + t.r + 4 + t.w, y0: t.y - half, y1: t.y + half };
}

// The sites, sorted by name, down the ring's right half and up its left, spaced evenly in
// height (not in angle) so that labels side by side never meet: the ring is as large as its
// rows need, and least, times grow.
function mapPlaceSites(sites, least, grow) {
  const right = Math.ceil(sites.length / 2), left = sites.length - right;
  const row = MAP_FONT * 1.5 + MAP_GAP;
  const ring = Math.max(100, row * right / 2 + 20, least) * grow;
  const boxes = new MapBoxes();
  sites.forEach((s, i) => {
    const onRight = i < right, n = onRight ? right : left, k = onRight ? i : i - right;
    const y = (onRight ? -1 : 1) * ring * (1 - (2 * k + 1) / n);
    s.side = onRight ? 1 : -1;
    s.x = s.side * Math.sqrt(Math.max(0, ring * ring - y * y));
    s.y = y;
    s.box = mapSiteBox(s);
    boxes.add(s.box);
  });
  return { ring, boxes };
}

// Places one third party at the free spot nearest its sites' mean angle on its own ring (r0),
// trying the rings beside it next, a spot every 8 px. The box last in the way is tried first
// at the next spot, as it is most often still there. Returns false when no spot inside the
// ring is free.
function mapPlaceTracker(t, r0, most, boxes) {
  const step = MAP_FONT * 1.5;
  const b = mapTrackerBox({ ...t, x: 0, y: 0 }); // the box about the circle's centre
  let last = null;
  for (let i = 0; i < 2 * most / step + 2; i++) {
    const rr = r0 + (i % 2 ? 1 : -1) * Math.ceil(i / 2) * step;
    if (rr < 0 || rr > most) continue;
    const tries = rr < 1 ? 1 : Math.ceil(Math.PI * rr / 8);
    for (let j = 0; j < 2 * tries; j++) {
      const a = t.angle + (j % 2 ? 1 : -1) * Math.ceil(j / 2) * (Math.PI / tries);
      const x = rr * Math.cos(a), y = rr * Math.sin(a);
      const x0 = x + b.x0, y0 = y + b.y0, x1 = x + b.x1, y1 = y + b.y1;
      if (!(last && mapMeet(last, x0, y0, x1, y1)) && !(last = boxes.hit(x0, y0, x1, y1))) {
        t.x = x;
        t.y = y;
        t.box = { x0, y0, x1, y1 };
        boxes.add(t.box);
        return true;
      }
      if (rr < 1) break;
    }
  }
  return false;
}

// Places sites and trackers: { ring, box, sites: [{...site, x, y, w, box}], trackers: [...,
// x, y, r, w, box] }, in the order the keyboard walks them (sites round the ring, then the
// trackers most important first). Third parties seen on more sites sit on rings nearer the
// middle, each at the free spot nearest the mean angle of its sites, placed most important
// first; every box (a node with its label) is checked against those placed before it, so
// nothing overlaps by construction. When a third party finds no room the ring grows and
// everything is placed again. Nothing is random: the same data gives the same picture.
function mapLayout(data) {
  const sites = [...data.sites].sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
  for (const s of sites) s.w = mapTextWidth(mapShort(s.site));
  const on = new Map(data.trackers.map((t) => [t.domain, []]));
  const byName = new Map(sites.map((s) => [s.site, s]));
  for (const l of data.links) {
    if (byName.has(l.site) && on.has(l.tracker)) on.get(l.tracker).push(byName.get(l.site));
  }
  const trackers = [...data.trackers].sort(mapOrder).map((t) => ({
    ...t, r: mapRadius(on.get(t.domain).length), w: mapTextWidth(mapShort(t.domain)),
  }));
  // A ring per number of sites, the most sites innermost, spread evenly from the middle out;
  // but never nearer the middle than the share of the sites it was seen on says (one seen on
  // 2 sites of 40 stays near the ring even when no third party was seen on more).
  const counts = [...new Set(trackers.map((t) => on.get(t.domain).length))].sort((a, b) => b - a);
  // A ring whose disc is half as large again as the third parties' boxes together seldom
  // needs to grow (each growth places everything again).
  let area = 0;
  for (const t of trackers) {
    area += (2 * t.r + 4 + t.w + MAP_GAP) * (Math.max(2 * t.r, MAP_FONT * 1.5) + MAP_GAP);
  }
  const least = Math.sqrt(1.5 * area / Math.PI) + 24;
  let lay = null;
  for (let grow = 1; !lay; grow *= 1.15) {
    const { ring, boxes } = mapPlaceSites(sites, least, grow);
    const most = ring - 24;
    for (const t of trackers) t.box = null;
    const fits = trackers.every((t) => {
      let mx = 0, my = 0;
      for (const s of on.get(t.domain)) { mx += s.x; my += s.y; }
      t.angle = Math.atan2(my, mx);
      const k = on.get(t.domain).length, rank = counts.indexOf(k);
      const r0 = most * Math.max(counts.length === 1 ? 1 : rank / (counts.length - 1),
                                 1 - k / Math.max(1, sites.length));
      return mapPlaceTracker(t, Math.round(r0), most, boxes);
    });
    // Past any size a screen could show, what found no room is left out rather than looped on.
    if (fits || grow > 50) lay = { ring, sites, trackers: trackers.filter((t) => t.box) };
  }
  // Hundredths are plenty, and keep the SVG short.
  const round = (n) => Math.round(n * 100) / 100;
  for (const p of [...sites, ...lay.trackers]) { p.x = round(p.x); p.y = round(p.y); }
  const all = [...sites, ...lay.trackers].map((p) => p.box);
  const edge = (k, pick, pad) => pick(...all.map((b) => b[k])) + pad;
  lay.box = { x0: edge('x0', Math.min, -8), y0: edge('y0', Math.min, -8),
              x1: edge('x1', Math.max, 8), y1: edge('y1', Math.max, 8) };
  return lay;
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
  const siteNodes = lay.sites.map((s) => svg('g', {
    class: `node site${s.disabled ? ' disabled' : ''}`, 'data-name': s.site, 'data-kind': 'site',
    role: 'link', 'aria-label': mapSiteWords(s),
  }, svg('title', {}, mapSiteWords(s)),
  svg('rect', { x: s.x - 6, y: s.y - 6, width: 12, height: 12, rx: 2 }),
  svg('text', { class: 'label', x: s.side > 0 ? s.x + 10 : s.x - 10, y: s.y + 4,
                'text-anchor': s.side > 0 ? 'start' : 'end' }, mapShort(s.site))));
  const trackerNodes = lay.trackers.map((t) => svg('g', {
    class: `node tracker state-${position(t.action)}${t.user ? ' user' : ''}`,
    'data-name': t.domain, 'data-kind': 'tracker', 'data-action': t.action,
    'data-sites': t.sites, role: 'link', 'aria-label': mapTrackerWords(t),
  }, svg('title', {}, mapTrackerWords(t)), svg('circle', { cx: t.x, cy: t.y, r: t.r }),
  svg('text', { class: 'label', x: t.x + t.r + 4, y: t.y + 4 }, mapShort(t.domain))));
  const nodes = [...siteNodes, ...trackerNodes];
  // Drawn at 1:1, never smaller, so that a label is as large on a phone as on a desktop:
  // where the screen is narrower than the drawing, its box scrolls.
  const b = lay.box, width = Math.ceil(b.x1 - b.x0), height = Math.ceil(b.y1 - b.y0);
  const graph = svg('svg', { class: 'map', viewBox: `${Math.floor(b.x0)} ${Math.floor(b.y0)} ` +
                                                    `${width} ${height}`,
                             width, height,
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

// What the map draws of it: the most important third parties, at most MAP_TRACKERS.
function mapCap(shown) {
  if (shown.trackers.length <= MAP_TRACKERS) return shown;
  const trackers = [...shown.trackers].sort(mapOrder).slice(0, MAP_TRACKERS);
  const kept = new Set(trackers.map((t) => t.domain));
  return { sites: shown.sites, trackers, links: shown.links.filter((l) => kept.has(l.tracker)) };
}

// What the map leaves out, in words, and where it is listed; nothing when it leaves out
// nothing.
function mapMore(data, shown, drawn) {
  const sites = data.more ? data.more.sites : 0;
  const trackers = shown.trackers.length - drawn.trackers.length;
  const elsewhere = data.more ? data.more.trackers : 0;
  if (!sites && !trackers && !elsewhere) return [];
  const left = [];
  if (sites) left.push(count(sites, 'older site'));
  if (trackers) {
    left.push(`${count(trackers, 'third party', 'third parties')} of the sites drawn`);
  }
  if (elsewhere) {
    left.push(`${count(elsewhere, 'third party', 'third parties')} seen only on older sites`);
  }
  return [`Left out of the map: ${left.join(', ')}. It draws the ${MAP_SITES} most recent ` +
    `sites and at most ${MAP_TRACKERS} of their third parties, the blocked first, then those ` +
    'on more sites. The table below lists every third party of the sites drawn; ',
  h('a', { href: '#/sites' }, 'Sites'), ' and ', h('a', { href: '#/trackers' }, 'All trackers'),
  ' list everything.'];
}

async function viewMap() {
  const mine = navigation;
  const days = mapShown.days ? `&days=${mapShown.days}` : '';
  // The map and brock's status are asked for together: one round trip's wait, not two.
  const [data, status] = await Promise.all([api('GET', `/api/map?sites=${MAP_SITES}${days}`),
                                            api('GET', '/api/status')]);
  if (stale(mine)) return;
  const info = h('p', { id: 'map-info', class: 'map-info' });
  const box = h('div', { class: 'map-box' });
  const table = h('div', { class: 'table-wrap' });
  const tally = h('p', { class: 'muted', id: 'map-count', 'aria-live': 'polite' });
  const more = h('p', { class: 'muted', id: 'map-more' });
  const draw = () => {
    const shown = mapFilter(data), drawn = mapCap(shown);
    tally.textContent = `${count(drawn.sites.length, 'site')}, ` +
      `${count(drawn.trackers.length, 'third party', 'third parties')}.`;
    more.replaceChildren(...mapMore(data, shown, drawn));
    more.hidden = !more.firstChild;
    box.replaceChildren(drawn.sites.length ? mapGraph(drawn, info) : h('p', { class: 'muted' },
      'No site has been visited through brock in this time. Point a browser at brock ' +
      `(${location.host}) as its proxy and browse.`));
    // A drawing wider than the screen starts with its middle in view.
    box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2;
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
  const notice = await httpsNotice(status);
  if (stale(mine)) return;
  main.replaceChildren(
    h('h1', {}, 'Who follows you'),
    pauseBox(status),
    ...(notice ? [notice] : []),
    h('p', { class: 'muted', id: 'map-help' },
      'The sites you visited (squares, on the ring) and the third parties their pages ' +
      'loaded (circles, larger for more sites, those on more sites nearer the middle), ' +
      'linked where one was seen on the other. Point at one, or move with the arrow keys, ' +
      'for what brock saw of it; click or press Enter to open its page. A ring around a ' +
      'circle marks your own choice.'),
    h('div', { class: 'filters', role: 'group', 'aria-label': 'What the map shows' },
      h('label', {}, 'Seen in', time), h('fieldset', { class: 'kinds' },
        h('legend', {}, 'Third parties'), kinds)),
    tally, more, info, box,
    h('h2', {}, 'The map as a table'), table);
  draw();
}
