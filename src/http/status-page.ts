import { STATUS_PAGE_SCRIPT } from './status-page-script.js';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #212121; }
h1 { font-size: 1.3rem; margin: 0 }
h2 { font-size: 1.1rem; margin-top: 1.6rem }
h3 { font-size: 0.95rem; margin: 0.8rem 0 0.2rem }
.small { color: #616161; font-size: 0.85rem; margin: 0.1rem 0 }
.strip { width: 100%; height: 24px; display: block; background: #fafafa; border: 1px solid #e0e0e0 }
.timeline { width: 100%; height: 30px; display: block; background: #fafafa; border: 1px solid #e0e0e0 }
.budget { width: 100%; max-width: 960px; height: 120px; display: block }
.axis { display: flex; justify-content: space-between }
table { border-collapse: collapse; margin: 0.4rem 0 }
td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left }
.status.failed, .error, #problem { color: #c62828 } .status.succeeded { color: #2e7d32 }
.bar { height: 10px; background: #e0e0e0; max-width: 600px } .bar div { height: 10px; background: #1e88e5 }
.legend span { display: inline-block; margin-right: 0.8rem }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px }
#detail { border: 1px solid #bdbdbd; padding: 0.5rem 1rem; background: #fcfcfc }
button.on { font-weight: bold }
`;

const LEGEND = [
  'done:#2e7d32',
  'sealed:#1b5e20',
  'pending:#bdbdbd',
  'running:#1e88e5',
  'failed:#c62828',
  'reopened:#f9a825',
]
  .map((entry) => {
    const [state, color] = entry.split(':');
    return `<span><i style="background:${color}"></i>${state}</span>`;
  })
  .join('');

/**
 * The status page: a static shell whose script reads `/api/status` (relative
 * URLs, so it works behind a reverse proxy's path prefix too). Nothing is
 * loaded from anywhere else, so it works offline.
 */
export const STATUS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ivsync status</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<h1>ivsync status <span id="generated" class="small"></span></h1>
<p id="problem"></p>
<section id="detail" hidden></section>
<h2>Coverage of the history</h2>
<p class="legend small">${LEGEND}</p>
<div id="coverage"></div>
<h2>Running backfill</h2>
<div id="backfills"></div>
<h2>Runs
<button type="button" data-span="86400" class="on">24 h</button>
<button type="button" data-span="604800">7 d</button></h2>
<div id="runs"></div>
<h2>Freshness</h2>
<div id="freshness"></div>
<h2>Budget: requests per hour</h2>
<div id="budget"></div>
<script>${STATUS_PAGE_SCRIPT}</script>
</body>
</html>
`;
