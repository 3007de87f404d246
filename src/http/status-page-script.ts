/**
 * The page's script, run in the browser: it polls `/api/status` and draws
 * with the DOM and inline SVG (no library, nothing loaded from elsewhere).
 * Text from the tables is only ever set as textContent, never as markup.
 * Written without template literals so that it can live in one here.
 */
import { STATUS_PAGE_DRAW } from './status-page-draw.js';

const REST = String.raw`
function runs(data) {
  var now = Date.parse(data.generatedAt) / 1000;
  var shown = data.runs.filter(function (r) {
    return Date.parse(r.startedAt) / 1000 >= now - span;
  });
  var line = svg('svg', { viewBox: '0 0 1000 30', preserveAspectRatio: 'none', class: 'timeline' });
  shown.forEach(function (r) {
    var start = Date.parse(r.startedAt) / 1000;
    var end = r.finishedAt ? Date.parse(r.finishedAt) / 1000 : now;
    var x = ((start - (now - span)) / span) * 1000;
    var color =
      r.status === 'succeeded'
        ? COLORS.done
        : r.status === 'running'
          ? COLORS.running
          : r.status === 'failed'
            ? COLORS.failed
            : COLORS.reopened;
    var rect = svg('rect', {
      x: x,
      y: 4,
      width: Math.max(2, ((end - start) / span) * 1000),
      height: 22,
      fill: color,
    });
    var title = svg('title', {});
    title.textContent = r.command + ' ' + r.status + ' at ' + r.startedAt + (r.error ? ': ' + r.error : '');
    rect.appendChild(title);
    line.appendChild(rect);
  });
  var rows = shown.map(function (r) {
    var link = el('a', { href: '#run=' + encodeURIComponent(r.id) }, r.id);
    return row(
      [
        link,
        r.command,
        r.account || 'all',
        r.startedAt,
        secs(r.durationSeconds),
        r.requests,
        r.throttled,
        r.itemsWritten,
        el('span', { class: 'status ' + r.status }, r.status),
        el('span', { class: 'error' }, r.error || ''),
      ],
      { 'data-run-id': r.id, 'data-status': r.status },
    );
  });
  return [
    line,
    rows.length
      ? table(
          ['run', 'command', 'account', 'started', 'duration', 'requests', '429s', 'items written', 'outcome', 'error'],
          rows,
        )
      : el('p', { class: 'small' }, 'No run in this period.'),
  ];
}

function freshness(data) {
  var f = data.freshness;
  var tiers = f.tiers.map(function (t) {
    return row([
      t.account,
      t.resource,
      t.tier,
      t.sessions,
      secs(t.oldestCheckAgeSeconds),
      secs(t.p95CheckAgeSeconds),
    ]);
  });
  var lags = f.changeLag.map(function (l) {
    return row([l.account, l.resource, l.changes, secs(l.p50Seconds), secs(l.p95Seconds), secs(l.maxSeconds)]);
  });
  var w = f.webhooks;
  return [
    el('h3', {}, 'Non-final sessions: staleness of their last check, per tier'),
    tiers.length
      ? table(['account', 'resource', 'tier', 'sessions', 'oldest check', 'p95 check age'], tiers)
      : el('p', { class: 'small' }, 'None.'),
    el('h3', {}, 'Observed lag of changes'),
    lags.length
      ? table(['account', 'resource', 'changes', 'p50', 'p95', 'max'], lags)
      : el('p', { class: 'small' }, 'No change observed yet.'),
    el('h3', {}, 'Webhook stream'),
    el(
      'p',
      { id: 'webhooks' },
      'last delivery ' +
        (w.lastDeliveryAt || 'never') +
        '; last 24 h: ' +
        w.deliveries24h +
        ' deliveries, ' +
        w.items24h +
        ' items, ' +
        w.applied24h +
        ' applied (the rest were older than the stored rows)' +
        (w.detail ? '. ' + w.detail : ''),
    ),
  ];
}

function budget(data) {
  var b = data.budget;
  var peak = Math.max(
    1,
    b.allowedPerHour || 0,
    Math.max.apply(
      null,
      b.hours.map(function (h) {
        return h.requests;
      }),
    ),
  );
  var chart = svg('svg', { viewBox: '0 0 960 120', class: 'budget' });
  b.hours.forEach(function (h, i) {
    var height = (h.requests / peak) * 110;
    var rect = svg('rect', { x: i * 40 + 4, y: 115 - height, width: 32, height: height, fill: COLORS.running });
    var title = svg('title', {});
    title.textContent =
      h.hour + ': ' + h.requests + ' requests, ' + h.throttled + ' answered 429, retries waited ' +
      secs(h.retryWaitSeconds);
    rect.appendChild(title);
    chart.appendChild(rect);
  });
  if (b.allowedPerHour) {
    var y = 115 - (b.allowedPerHour / peak) * 110;
    chart.appendChild(
      svg('line', { x1: 0, x2: 960, y1: y, y2: y, stroke: COLORS.failed, 'stroke-dasharray': '6 4' }),
    );
  }
  var sum = function (key) {
    return b.hours.reduce(function (s, h) {
      return s + h[key];
    }, 0);
  };
  var busy = b.hours
    .filter(function (h) {
      return h.requests > 0;
    })
    .map(function (h) {
      return row([h.hour, h.requests, h.throttled, secs(h.retryWaitSeconds)]);
    });
  return [
    chart,
    el(
      'p',
      { id: 'budget-total', class: 'small' },
      sum('requests') +
        ' requests by the runs of the last 24 h, ' +
        sum('throttled') +
        ' answered 429, retries waited ' +
        secs(sum('retryWaitSeconds')) +
        (b.allowedPerHour ? '; the tokens allow ' + b.allowedPerHour + ' an hour (dashed line)' : ''),
    ),
    busy.length ? table(['hour', 'requests', '429s', 'retry waits'], busy) : el('span'),
  ];
}

function detail() {
  var m = /^#run=(.+)$/.exec(location.hash);
  var box = document.getElementById('detail');
  if (!m) {
    box.hidden = true;
    return;
  }
  var id = decodeURIComponent(m[1]);
  fetch('runs/' + encodeURIComponent(id), { headers: { Accept: 'application/json' } })
    .then(function (res) {
      return res.json();
    })
    .then(function (d) {
      var run = d.run || {};
      var nodes = [
        el('h2', {}, 'Run ' + id + ' · ' + d.state),
        el('p', { class: 'error' }, run.error || (d.live && d.live.error) || ''),
        el(
          'p',
          {},
          (run.command || (d.live && d.live.command) || '') +
            ', started ' +
            (run.started_at || '-') +
            ', finished ' +
            (run.finished_at || '-') +
            ', ' +
            (run.requests || 0) +
            ' requests, ' +
            (d.pages || 0) +
            ' pages' +
            (d.refresh ? ', refresh spent ' + d.refresh.spent + ' of ' + d.refresh.budget : ''),
        ),
      ];
      if (d.windows && d.windows.length) {
        nodes.push(
          table(
            ['account', 'resource', 'from', 'to', 'state', 'pages', 'items', 'error'],
            d.windows.map(function (w) {
              return row([
                w.account,
                w.resource,
                iso(w.start),
                iso(w.end),
                w.state,
                w.pages,
                w.items,
                w.error || '',
              ]);
            }),
          ),
        );
      }
      if (d.findings && d.findings.length) {
        nodes.push(
          table(
            ['resource', 'session', 'kind', 'column', 'stored', 'service'],
            d.findings.map(function (f) {
              return row([
                f.resource,
                f.service_id,
                f.kind,
                f.column_name || '',
                f.stored_value || '',
                f.service_value || '',
              ]);
            }),
          ),
        );
      }
      var close = el('a', { href: '#' }, 'close');
      nodes.push(close);
      box.replaceChildren.apply(box, nodes);
      box.hidden = false;
    });
}

function draw(data) {
  last = data;
  document.getElementById('generated').textContent = 'as of ' + data.generatedAt;
  fill(
    'coverage',
    data.scopes.length ? coverage(data) : [el('p', { class: 'small' }, 'No window yet: nothing was synced.')],
  );
  fill('backfills', backfills(data));
  fill('runs', runs(data));
  fill('freshness', freshness(data));
  fill('budget', budget(data));
  document.body.setAttribute('data-loaded', 'true');
}

function poll() {
  fetch('api/status', { headers: { Accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('HTTP ' + res.status);
      return res.json();
    })
    .then(
      function (data) {
        document.getElementById('problem').textContent = '';
        draw(data);
      },
      function (error) {
        document.getElementById('problem').textContent = 'Could not read the status: ' + error.message;
      },
    )
    .finally(function () {
      setTimeout(poll, 5000);
    });
}

document.querySelectorAll('[data-span]').forEach(function (button) {
  button.addEventListener('click', function () {
    span = Number(button.getAttribute('data-span'));
    document.querySelectorAll('[data-span]').forEach(function (b) {
      b.classList.toggle('on', b === button);
    });
    if (last) fill('runs', runs(last));
  });
});
window.addEventListener('hashchange', detail);
detail();
poll();
`;

/** The whole script, as the page inlines it. */
export const STATUS_PAGE_SCRIPT = STATUS_PAGE_DRAW + REST;
