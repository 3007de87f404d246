/**
 * The first half of the page's script: helpers and the drawing of the
 * coverage strips and backfill progress (status-page-script.ts has the rest).
 * Plain JavaScript for the browser, without template literals.
 */
export const STATUS_PAGE_DRAW = String.raw`
'use strict';
var COLORS = {
  done: '#2e7d32',
  sealed: '#1b5e20',
  pending: '#bdbdbd',
  running: '#1e88e5',
  failed: '#c62828',
  reopened: '#f9a825',
};
var SVG = 'http://www.w3.org/2000/svg';
var span = 24 * 3600;
var last = null;

function el(tag, attrs, text) {
  var node = document.createElement(tag);
  for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function svg(tag, attrs) {
  var node = document.createElementNS(SVG, tag);
  for (var k in attrs || {}) node.setAttribute(k, String(attrs[k]));
  return node;
}
function iso(epoch) {
  return new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
}
function secs(s) {
  if (s === null || s === undefined) return '-';
  if (s < 120) return Math.round(s) + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  if (s < 172800) return (s / 3600).toFixed(1) + ' h';
  return (s / 86400).toFixed(1) + ' d';
}
function fill(id, nodes) {
  var box = document.getElementById(id);
  box.replaceChildren.apply(box, nodes);
}
function table(head, rows) {
  var t = el('table');
  var tr = el('tr');
  head.forEach(function (h) {
    tr.appendChild(el('th', {}, h));
  });
  t.appendChild(tr);
  rows.forEach(function (r) {
    t.appendChild(r);
  });
  return t;
}
function row(cells, attrs) {
  var tr = el('tr', attrs);
  cells.forEach(function (c) {
    tr.appendChild(c instanceof Node ? wrap(c) : el('td', {}, c));
  });
  return tr;
}
function wrap(node) {
  var td = el('td');
  td.appendChild(node);
  return td;
}

function coverage(data) {
  var now = Date.parse(data.generatedAt) / 1000;
  return data.scopes.map(function (s) {
    var box = el('div', { class: 'scope', 'data-scope': s.account + '/' + s.resource + '/' + s.apiVersion });
    var counts = Object.keys(s.counts)
      .filter(function (k) {
        return s.counts[k] > 0;
      })
      .map(function (k) {
        return k + ' ' + s.counts[k];
      })
      .join(', ');
    box.appendChild(el('h3', {}, s.account + ' · ' + s.resource + ' · v' + s.apiVersion));
    box.appendChild(
      el(
        'p',
        { class: 'small' },
        s.windows.length +
          ' windows (' +
          counts +
          '), ' +
          s.items +
          ' items in the current passes; edge ' +
          (s.syncedTo === null ? 'not reached yet' : iso(s.syncedTo) + ', ' + secs(s.edgeLagSeconds) + ' behind'),
      ),
    );
    var from = s.windows.length ? s.windows[0].start : now;
    var to = Math.max(now, s.windows.length ? s.windows[s.windows.length - 1].end : now);
    var width = 1000;
    var strip = svg('svg', { viewBox: '0 0 ' + width + ' 24', preserveAspectRatio: 'none', class: 'strip' });
    s.windows.forEach(function (w) {
      var x = ((w.start - from) / (to - from || 1)) * width;
      var wd = Math.max(0.5, ((w.end - w.start) / (to - from || 1)) * width);
      var rect = svg('rect', {
        x: x,
        y: 0,
        width: wd,
        height: 24,
        fill: COLORS[w.state],
        'data-state': w.state,
        'data-start': w.start,
      });
      var title = svg('title', {});
      title.textContent =
        w.state +
        ': ' +
        iso(w.start) +
        ' to ' +
        iso(w.end) +
        ', ' +
        w.pages +
        ' pages, ' +
        w.items +
        ' items' +
        (w.attempts > 1 ? ', ' + w.attempts + ' passes' : '') +
        (w.error ? ', error: ' + w.error : '');
      rect.appendChild(title);
      strip.appendChild(rect);
    });
    box.appendChild(strip);
    box.appendChild(el('div', { class: 'axis small' }, iso(from) + ' … ' + iso(to)));
    return box;
  });
}

function backfills(data) {
  if (!data.backfills.length) return [el('p', { class: 'small' }, 'No backfill is running.')];
  return data.backfills.map(function (b) {
    var box = el('div', { class: 'backfill', 'data-run-id': b.runId });
    var pct = b.windows ? Math.round((b.finished / b.windows) * 1000) / 10 : 0;
    box.appendChild(
      el(
        'p',
        {},
        'Backfill ' +
          b.runId +
          (b.account ? ' (' + b.account + ')' : '') +
          ': ' +
          b.finished +
          ' of ' +
          b.windows +
          ' windows (' +
          pct +
          '%), ' +
          b.finishedThisRun +
          ' in ' +
          secs(b.elapsedSeconds) +
          ' of this run; ETA ' +
          (b.etaSeconds === null ? 'not known yet' : secs(b.etaSeconds)),
      ),
    );
    var bar = el('div', { class: 'bar' });
    bar.appendChild(el('div', { style: 'width:' + pct + '%' }));
    box.appendChild(bar);
    return box;
  });
}
`;
