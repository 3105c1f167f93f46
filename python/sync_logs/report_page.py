"""The report page's own style and script (plain CSS and JavaScript, no external resources)."""

PAGE_CSS = """
:root { --fg: #1f2933; --muted: #616e7c; --line: #d9e2ec; --bg: #f5f7fa; --good: #2e7d32;
  --bad: #c62828; --accent: #1565c0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: var(--bg); font-size: 14px; }
header { background: #102a43; color: #fff; padding: 16px 32px 0; position: sticky; top: 0;
  z-index: 10; }
header h1 { margin: 0; font-size: 22px; }
header .subtitle { margin: 4px 0 10px; color: #bcccdc; font-size: 13px; }
nav { display: flex; gap: 4px; }
nav a { color: #d9e2ec; text-decoration: none; padding: 8px 14px; border-radius: 6px 6px 0 0; }
nav a:hover { background: #243b53; color: #fff; }
main { padding: 8px 32px 48px; max-width: 1400px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 8px 24px 24px; margin: 24px 0; scroll-margin-top: 110px; }
h2 { font-size: 19px; border-bottom: 1px solid var(--line); padding-bottom: 8px; }
h3 { font-size: 15px; margin: 24px 0 8px; }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 16px; }
.kpi { border: 1px solid var(--line); border-left: 6px solid var(--accent); border-radius: 6px;
  padding: 12px 16px; }
.kpi.good { border-left-color: var(--good); }
.kpi.bad { border-left-color: var(--bad); }
.kpi-value { font-size: 28px; font-weight: 600; }
.kpi-label { color: var(--muted); text-transform: uppercase; font-size: 11px;
  letter-spacing: .05em; }
.kpi-detail { color: var(--muted); font-size: 12px; margin-top: 4px; }
.period, .note, .sampling, .empty { color: var(--muted); }
.sampling { background: #fffbea; border: 1px solid #f0d78c; padding: 8px 12px; border-radius: 6px; }
.error { color: var(--bad); font-weight: 600; }
.chart-box { margin: 16px 0; }
.chart-box figcaption { font-weight: 600; margin-bottom: 4px; }
.chart { width: 100%; min-height: 60px; }
.picker { display: inline-flex; gap: 8px; align-items: center; font-weight: 600; margin: 8px 0; }
.picker select, .picker input { font: inherit; padding: 6px 8px; border: 1px solid #9fb3c8;
  border-radius: 6px; min-width: 320px; }
.table-wrap { overflow-x: auto; max-height: 480px; overflow-y: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 8px; text-align: left;
  vertical-align: top; }
th { background: #f0f4f8; position: sticky; top: 0; }
td.pct, td.sec { text-align: right; white-space: nowrap; }
tr.failed td { background: #fdecea; }
tr.succeeded td.status { color: var(--good); }
td.payload { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
  max-width: 420px; word-break: break-all; }
.history { margin: 16px 0; }
.history h4 { margin: 8px 0; }
"""

# Draws the charts (vegaEmbed from the inline bundle), wires the pickers to the charts' signals,
# and filters the embedded record sample as the user types.
PAGE_SCRIPT = r"""
const specs = JSON.parse(document.getElementById('chart-specs').textContent);
const datasets = JSON.parse(document.getElementById('chart-data').textContent);
const views = {};
window.syncLogsReport = {views};
const drawn = Object.entries(specs).map(([id, chart]) =>
  window.vegaEmbed('#' + id, {
    ...chart.spec,
    datasets: Object.fromEntries(chart.datasets.map(name => [name, datasets[name]])),
  }, {actions: false, renderer: 'svg'})
    .then(result => { views[id] = result.view; })
    .catch(error => {
      document.getElementById(id).textContent = 'This chart could not be drawn: ' + error;
      throw error;
    }));
Promise.all(drawn).then(() => { document.body.dataset.chartsReady = 'yes'; },
                        () => { document.body.dataset.chartsReady = 'failed'; });

for (const picker of document.querySelectorAll('select[data-signal]')) {
  picker.addEventListener('change', () => {
    for (const el of document.querySelectorAll('[data-picker="' + picker.id + '"]')) {
      const view = views[el.id];
      if (view) view.signal(picker.dataset.signal, picker.value).runAsync();
    }
  });
}

const lookup = JSON.parse(document.getElementById('lookup-data').textContent);
const columns = lookup.columns || [];
const col = Object.fromEntries(columns.map((name, i) => [name, i]));
const rows = lookup.rows || [];
const ids = [...new Set(rows.map(r => String(r[col.row_id])))];
const datalist = document.getElementById('lookup-ids');
for (const id of ids.slice(0, 500)) {
  const option = document.createElement('option');
  option.value = id;
  datalist.appendChild(option);
}
const search = document.getElementById('lookup-search');
const results = document.getElementById('lookup-results');
const statusLine = document.getElementById('lookup-status');
statusLine.textContent = rows.length
  ? ids.length + ' rows in the sample. Type a row_id (or part of one).'
  : 'The sample is empty.';

function cell(tag, text, className) {
  const el = document.createElement(tag);
  el.textContent = text === null || text === undefined ? '' : String(text);
  if (className) el.className = className;
  return el;
}

function show(query) {
  results.replaceChildren();
  const q = query.trim().toLowerCase();
  if (!q) { statusLine.textContent = ids.length + ' rows in the sample.'; return; }
  const exact = rows.filter(r => String(r[col.row_id]).toLowerCase() === q);
  const matching = exact.length ? exact
    : rows.filter(r => String(r[col.row_id]).toLowerCase().includes(q));
  const groups = new Map();
  for (const r of matching) {
    const key = r[col.sync_id] + '\u0000' + r[col.row_id];
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const shown = [...groups.values()].slice(0, 20);
  statusLine.textContent = groups.size
    ? groups.size + ' matching row(s) in the sample'
      + (groups.size > 20 ? ', the first 20 shown' : '') + '.'
    : 'No row_id matching "' + query + '" in the sample.';
  for (const attempts of shown) {
    const first = attempts[0];
    const box = document.createElement('div');
    box.className = 'history';
    box.appendChild(cell('h4', 'row_id ' + first[col.row_id] + ' in sync ' + first[col.sync_id]
      + (first[col.model_name] ? ' (' + first[col.model_name] + ')' : '')
      + ': ' + attempts.length + ' attempt(s), oldest first'));
    const table = document.createElement('table');
    table.className = 'history-table';
    const head = document.createElement('tr');
    const shownColumns = ['sync_run_id', 'run_started_at', 'attempted_at', 'op_type', 'status',
                          'failed_reason', 'fields'];
    for (const name of shownColumns) head.appendChild(cell('th', name));
    const thead = document.createElement('thead');
    thead.appendChild(head);
    table.appendChild(thead);
    const tbody = document.createElement('tbody');
    for (const r of attempts) {
      const tr = document.createElement('tr');
      tr.className = String(r[col.status]);
      for (const name of shownColumns) {
        tr.appendChild(cell('td', r[col[name]], name === 'fields' ? 'payload' : name));
      }
      tbody.appendChild(tr);
    }
    table.appendChild(tbody);
    box.appendChild(table);
    results.appendChild(box);
  }
}
search.addEventListener('input', () => show(search.value));
"""
