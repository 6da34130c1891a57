// The goblin dashboard (docs/dashboard.md): one page, routes in the URL fragment, every number from
// goblin serve's JSON API. Text reaches the page only through textContent (h() below), never as
// HTML, so a workload or tag name cannot inject markup. Charts: chart.js, served by goblin itself.
'use strict';

const main = document.getElementById('main');
const charts = [];

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}
const range = (lo, hi) => (lo === null && hi === null ? '—' : `${fmtNum(lo)} – ${fmtNum(hi)}`);
const fmtNum = (v, d = 3) => (v === null || v === undefined ? '—' : typeof v === 'number' ? Number(v.toPrecision(d + 1)).toString() : String(v));
// Each route's render is one generation (clear() starts the next). An answer that arrives after the
// user (or a test) moved to another route is dropped: without this a slow answer of the previous
// route would append its tables to the new page.
let generation = 0;
class Stale extends Error {}
async function api(path) {
  const g = generation;
  const r = await fetch(path);
  const j = await r.json();
  if (g !== generation) throw new Stale('superseded');
  if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
  return j;
}
// A table inside a horizontally scrolling box. Columns empty in every row are left out (named
// below the table); a click on a header sorts by that column (again: the other way).
const isEmpty = v => v === null || v === undefined || v === '' || (typeof v === 'number' && Number.isNaN(v));
function table(cols, rows, opts = {}) {
  const empty = cols.filter(c => c.label && rows.length && rows.every(r => isEmpty(c.get(r))));
  cols = cols.filter(c => !empty.includes(c));
  const t = h('table', { id: opts.id, 'data-rows': rows.length, class: 'sortable' });
  const body = h('tbody');
  const fill = rs => {
    body.replaceChildren();
    for (const r of rs) {
      const tr = h('tr', { class: opts.rowClass ? opts.rowClass(r) : null });
      for (const c of cols) {
        const v = c.get(r);
        tr.append(h('td', { class: c.num ? 'num' : null }, v instanceof Node ? v : c.num ? fmtNum(v) : v));
      }
      body.append(tr);
    }
  };
  let sorted = { col: null, dir: 1 };
  const key = v => (v instanceof Node ? v.textContent : v);
  t.append(h('thead', {}, h('tr', {}, cols.map(c => h('th', { title: 'sort', onclick: () => {
    sorted = { col: c, dir: sorted.col === c ? -sorted.dir : 1 };
    fill([...rows].sort((a, b) => {
      const x = key(c.get(a)), y = key(c.get(b));
      if (isEmpty(x)) return 1;
      if (isEmpty(y)) return -1;
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true })) * sorted.dir;
    }));
  } }, c.label)))));
  fill(rows);
  t.append(body);
  return h('div', { class: 'scroll' }, t, empty.length ? h('p', { class: 'muted small' }, 'Empty in every row: ' + empty.map(c => c.label).join(', ')) : null);
}
function chart(id, config, cls = 'chart-box') {
  const canvas = h('canvas', { id });
  const box = h('div', { class: cls }, canvas);
  config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, config.options || {});
  queueMicrotask(() => charts.push(new Chart(canvas, config)));
  return box;
}
function clear(title) {
  generation++;
  while (charts.length) charts.pop().destroy();
  main.replaceChildren(h('h1', {}, title));
}
function fail(e) { if (!(e instanceof Stale)) main.append(h('p', { class: 'error' }, 'Error: ' + e.message)); }

// ---- Experiments and runs (filters: workload, GPU, date, tag; compare two runs) ----
async function pageRuns(q) {
  clear('Experiments and runs');
  const fields = [['experiment', 'experiment'], ['trial', 'trial'], ['workload', 'workload'], ['gpu', 'GPU'],
                  ['tag', 'tag'], ['since', 'since (date)'], ['until', 'until (date)']];
  const form = h('form', { class: 'filters', id: 'filters', onsubmit: ev => {
    ev.preventDefault();
    const p = new URLSearchParams();
    for (const [k] of fields) { const v = form.elements[k].value.trim(); if (v) p.set(k, v); }
    location.hash = '#/runs?' + p.toString();
  } }, fields.map(([k, label]) => h('label', {}, label, h('input', { name: k, value: q.get(k) || '' }))),
     h('button', { type: 'submit' }, 'Filter'));
  main.append(form);
  try {
    const ex = await api('/api/experiments');
    main.append(h('h2', {}, 'Experiments'), table([
      { label: 'experiment', get: e => h('a', { href: '#/runs?experiment=' + encodeURIComponent(e.experiment_id), class: 'exp-link' }, e.experiment_id) },
      { label: 'trials', get: e => e.trials, num: true }, { label: 'runs', get: e => e.runs, num: true },
      { label: 'created', get: e => e.created }], ex.experiments, { id: 'experiments' }));
    const p = new URLSearchParams(q);
    p.set('limit', '200');
    const runs = await api('/api/runs?' + p.toString());
    const picked = new Set();
    const cmp = h('button', { id: 'compare-btn', disabled: true, onclick: () => {
      const [a, b] = [...picked];
      location.hash = `#/compare/${a}/${b}`;
    } }, 'Compare the two selected runs');
    main.append(h('h2', {}, `Runs (${runs.total})`), cmp, table([
      { label: '', get: r => h('input', { type: 'checkbox', class: 'pick', 'data-run': r.id, onchange: ev => {
        ev.target.checked ? picked.add(r.id) : picked.delete(r.id);
        cmp.disabled = picked.size !== 2;
      } }) },
      { label: 'run', get: r => h('a', { href: '#/run/' + r.id, class: 'run-link' }, '#' + r.id) },
      { label: 'created', get: r => r.created }, { label: 'verb', get: r => r.verb },
      { label: 'workload', get: r => h('a', { href: '#/trend?workload=' + encodeURIComponent(r.workload) }, r.workload) },
      { label: 'experiment', get: r => r.experiment_id }, { label: 'trial', get: r => r.trial_id },
      { label: 'GPU', get: r => r.environment.gpu }, { label: 'arch_match', get: r => r.linkage.arch_match },
      { label: 'base_image', get: r => r.linkage.base_image },
      { label: 'step time (s)', get: r => r.metrics.step_time_s, num: true },
      { label: 'tokens/s', get: r => r.metrics.tokens_per_sec, num: true },
      { label: 'tags', get: r => r.tags.join(', ') }], runs.runs, { id: 'runs' }));
  } catch (e) { fail(e); }
}

// ---- One run's profiling section ----
async function pageRun(id) {
  clear('Run #' + id);
  try {
    const r = await api('/api/runs/' + encodeURIComponent(id));
    const L = r.linkage;
    const match = String(L.arch_match);
    main.append(table([{ label: 'field', get: x => x[0] }, { label: 'value', get: x => x[1] }], [
      ['verb', r.verb], ['workload', r.workload], ['created', r.created], ['source', r.source],
      ['experiment / trial', `${r.experiment_id} / ${r.trial_id}`], ['goblin', `${r.goblin.version} (${r.goblin.commit})`],
      ['GPU', r.environment.gpu], ['driver / CUDA / ROCm / PyTorch',
        `${r.environment.driver} / ${r.environment.cuda} / ${r.environment.rocm} / ${r.environment.pytorch}`],
      ['arch_match', h('span', { class: match === 'true' ? 'match-yes' : match === 'false' ? 'match-no' : null, id: 'arch-match' }, match)],
      ['hardware relevance', L.hardware_relevance_reason], ['observed_arch', L.observed_arch],
      ['base_image', L.base_image], ['resource_class', L.resource_class], ['gpu_device_ids', L.gpu_device_ids],
      ['server_flags', L.server_flags], ['benchmark_config_hash', L.benchmark_config_hash],
      ['tags', r.tags.join(', ')]], { id: 'summary' }));
    const m = Object.entries(r.metrics);
    if (m.length) main.append(h('h2', {}, 'Metrics'), table([{ label: 'metric', get: x => x[0] }, { label: 'value', get: x => x[1], num: true }], m, { id: 'metrics' }));
    if (r.verb === 'ranks') await ranksView(r);
    if (r.verb === 'diff') await diffView(r);
    if (r.steps.length) main.append(h('h2', {}, 'Step breakdown'), barChart('steps-chart', r.steps.map(s => s.name), [
      { label: 'GPU busy (s)', data: r.steps.map(s => s.busy_s), backgroundColor: '#0969da' },
      { label: 'not busy (s)', data: r.steps.map(s => (s.busy_s === null ? null : s.wall_s - s.busy_s)), backgroundColor: '#d0d7de' }], false));
    if (r.categories.length) main.append(h('h2', {}, 'GPU time by category'), barChart('categories-chart', r.categories.map(c => c.category),
      [{ label: 'time (s)', data: r.categories.map(c => c.time_s), backgroundColor: '#0969da' }]), table([
      { label: 'category', get: c => c.category }, { label: 'time (s)', get: c => c.time_s, num: true },
      { label: '%', get: c => c.pct, num: true }], r.categories, { id: 'categories' }));
    const topK = r.top_kernels.slice(0, 15);
    if (r.top_kernels.length) main.append(h('h2', {}, 'Top kernels'), barChart('kernels-chart', topK.map(k => k.name.length > 60 ? k.name.slice(0, 57) + '…' : k.name),
      [{ label: 'time (s)', data: topK.map(k => k.time_s), backgroundColor: '#bf8700' }]), table([
      { label: 'kernel', get: k => k.name }, { label: 'category', get: k => k.category },
      { label: 'time (s)', get: k => k.time_s, num: true }, { label: '%', get: k => k.pct, num: true },
      { label: 'launches', get: k => k.launches, num: true }], r.top_kernels, { id: 'kernels' }));
    await triageTables(r);
    if (r.steps.length) main.append(h('h2', {}, 'Steps'), table([
      { label: 'step', get: s => s.name }, { label: 'wall (s)', get: s => s.wall_s, num: true },
      { label: 'GPU busy (s)', get: s => s.busy_s, num: true }], r.steps, { id: 'steps' }));
    const allWaste = Object.entries(r.waste_budget).map(([bucket, seconds]) => ({ bucket, seconds }));
    const waste = allWaste.filter(w => w.seconds !== null);
    if (allWaste.length) {
      main.append(h('h2', {}, 'Waste budget (seconds per step)'));
      main.append(chart('waste-chart', { type: 'bar', data: { labels: waste.map(w => w.bucket),
        datasets: [{ label: 's / step', data: waste.map(w => w.seconds), backgroundColor: '#bf8700' }] },
        options: { indexAxis: 'y' } }));
      const unobserved = allWaste.filter(w => w.seconds === null).map(w => w.bucket);
      if (unobserved.length) main.append(h('p', { class: 'muted' }, 'Not observed: ' + unobserved.join(', ')));
    }
    if (r.audit_rounds.length) main.append(h('h2', {}, 'Audit rounds'), auditTable(r.audit_rounds.map(a => ({ round: a.round, rules: a.rules, gpu: a.gpu,
      predicted_low: a.predicted.low, predicted_high: a.predicted.high, measured: a.measured.speedup, ci_low: a.measured.ci_low,
      ci_high: a.measured.ci_high, held: a.prediction_held })), 'rounds'));
    if (r.kernel_iterations.length) main.append(h('h2', {}, 'Kernel iterations'), kernelProgress(r.kernel_iterations));
    if (r.verb === 'audit') await reportView(r);
    if (r.ranks.length) main.append(h('h2', {}, 'Ranks'), table([
      { label: 'rank', get: x => x.rank, num: true }, { label: 'GPU', get: x => x.gpu },
      { label: 'step time (s)', get: x => x.step_time_s, num: true }, { label: 'steps', get: x => x.steps, num: true }], r.ranks, { id: 'ranks' }));
    main.append(h('h2', {}, 'Artifacts'), table([
      { label: 'name', get: a => a.name }, { label: 'bytes', get: a => a.bytes, num: true },
      { label: 'download', get: a => h('a', { href: '/api/artifacts/' + a.sha256 + '?download=1&name=' + encodeURIComponent(a.name), download: a.name.replace(/[\/\\]/g, '_'), class: 'artifact-link' }, a.sha256.slice(0, 12)) }],
      r.artifacts, { id: 'artifacts' }));
    // Perfetto UI opens a trace two ways (docs/dashboard.md § Perfetto UI): the link's ?url= (Perfetto
    // UI fetches the artifact from this server, allowed by the artifact route's CORS header), and on
    // click the postMessage flow, which also works where ?url= cannot (a dashboard on plain http
    // other than localhost): this page fetches the trace itself and hands it over.
    const trace = r.trace
      ? h('a', { id: 'perfetto-link', target: '_blank', rel: 'noopener', href: 'https://ui.perfetto.dev/#!/?url=' + encodeURIComponent(location.origin + '/api/artifacts/' + r.trace.sha256),
          onclick: ev => { if (openInPerfetto('/api/artifacts/' + r.trace.sha256, r.trace.artifact)) ev.preventDefault(); } }, 'Open ' + r.trace.artifact + ' in Perfetto UI')
      : h('span', {}, h('a', { id: 'perfetto-link', target: '_blank', rel: 'noopener', href: 'https://ui.perfetto.dev/' }, 'Open Perfetto UI'),
          ` and load the trace ${L.source_trace_path} (it is not stored as text in the run store)`);
    main.append(h('h2', {}, 'Trace'), h('p', {}, trace));
  } catch (e) { fail(e); }
}

// goblin triage's overlap / fuse / module / stage tables: stored as artifacts of the run (the store
// keeps their text by content hash), read back and shown as tables, at most 25 rows each.
const TRIAGE_TABLES = [
  ['overlap_opportunities.json', 'Overlap opportunities', 'overlap-table', ['priority', 'verdict', 'kernel', 'category', 'excl_pct', 'hid_pct', 'time_share_pct', 'next_step']],
  ['fuse_opportunities.json', 'Fusion opportunities', 'fuse-table', ['pattern', 'title', 'confidence', 'time_share_pct', 'occurrences', 'candidate_fused_path', 'citation']],
  ['module_table.json', 'nn.Module time', 'module-table', null],
  ['stage_table.json', 'Stages', 'stage-table', null]];
async function triageTables(r) {
  for (const [name, title, id, keys] of TRIAGE_TABLES) {
    const art = r.artifacts.find(a => a.name === name);
    if (!art) continue;
    let rows;
    try { rows = await api('/api/artifacts/' + art.sha256 + '?name=' + encodeURIComponent(name)); } catch (e) { if (e instanceof Stale) throw e; continue; }
    if (rows && !Array.isArray(rows)) rows = Object.values(rows).find(Array.isArray) || [];
    if (!Array.isArray(rows) || !rows.length || typeof rows[0] !== 'object') continue;
    const cols = (keys || Object.keys(rows[0]).filter(k => typeof rows[0][k] !== 'object').slice(0, 8))
      .map(k => ({ label: k, get: x => (x[k] === undefined ? null : typeof x[k] === 'object' && x[k] !== null ? JSON.stringify(x[k]) : x[k]), num: typeof rows[0][k] === 'number' }));
    main.append(h('h2', {}, `${title} (${name}${rows.length > 25 ? ', first 25 of ' + rows.length : ''})`), table(cols, rows.slice(0, 25), { id }));
  }
}

// Perfetto UI's postMessage protocol (https://perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
// open the UI, PING until it answers PONG, then post {perfetto: {buffer, title, fileName}}. Returns
// false when no window could be opened (the link's ?url= then applies).
function openInPerfetto(path, name) {
  const ORIGIN = 'https://ui.perfetto.dev';
  const win = window.open(ORIGIN + '/#!/');
  if (!win) return false;
  const body = fetch(path).then(r => { if (!r.ok) throw new Error('HTTP ' + r.status); return r.arrayBuffer(); });
  let tries = 0;
  const ping = setInterval(() => { if (++tries > 100) return stop(); win.postMessage('PING', ORIGIN); }, 100);
  const onMessage = ev => {
    if (ev.source !== win || ev.origin !== ORIGIN || ev.data !== 'PONG') return;
    stop();
    body.then(buffer => win.postMessage({ perfetto: { buffer, title: name, fileName: name } }, ORIGIN))
      .catch(e => main.append(h('p', { class: 'error' }, 'Perfetto UI: ' + e.message)));
  };
  function stop() { clearInterval(ping); window.removeEventListener('message', onMessage); }
  window.addEventListener('message', onMessage);
  return true;
}

function auditTable(rows, id) {
  return table([{ label: 'round', get: a => a.round, num: true }, { label: 'rules', get: a => a.rules.join(', ') },
    { label: 'GPU', get: a => a.gpu }, { label: 'predicted', get: a => range(a.predicted_low, a.predicted_high) },
    { label: 'measured', get: a => a.measured, num: true }, { label: '95% CI', get: a => range(a.ci_low, a.ci_high) },
    { label: 'held', get: a => a.held }], rows, { id });
}

function kernelProgress(iters) {
  const shown = iters.filter(i => !i.masked);
  return h('div', {}, chart('kernel-chart', { type: 'line', data: { labels: shown.map(i => 'v' + i.version),
    datasets: [{ label: '% of Stop Condition target', data: shown.map(i => i.pct_of_stop_condition), borderColor: '#0969da',
      pointBackgroundColor: shown.map(i => (i.correct ? '#0969da' : '#cf222e')) }] } }),
    table([{ label: 'version', get: i => i.version, num: true }, { label: 'change', get: i => i.change },
      { label: 'value', get: i => i.value, num: true }, { label: 'metric', get: i => i.metric },
      { label: '% of Stop Condition', get: i => i.pct_of_stop_condition, num: true }, { label: 'correct', get: i => String(i.correct) }],
      shown, { id: 'iterations' }), h('p', { class: 'muted' }, `${iters.length - shown.length} masked iteration(s) hidden`));
}

// ---- Comparison: the trust check first, then the diff verb's result ----
async function pageCompare(a, b) {
  clear(`Run #${a} against run #${b}`);
  try {
    const c = await api(`/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
    if (!c.trusted) {
      main.append(h('div', { class: 'banner-untrusted', id: 'untrusted-banner' },
        'Untrusted comparison: these runs differ in ' + c.differences.map(d => d.field).join(', ') +
        ': profiles are comparable only when these match.'));
      main.append(table([{ label: 'field', get: d => d.field }, { label: '#' + a, get: d => d.a }, { label: '#' + b, get: d => d.b }],
        c.differences, { id: 'differences', rowClass: () => 'diff-row' }));
    }
    // A field unknown on either side was not checked: never reported as the same.
    const unchecked = c.not_checked || [];
    if (unchecked.length) {
      main.append(h('div', { class: 'banner-unchecked', id: 'unchecked-banner' },
        'Not checked (unknown on one side or both): ' + unchecked.map(d => d.field).join(', ') + '.'));
      main.append(table([{ label: 'field', get: d => d.field }, { label: '#' + a, get: d => d.a }, { label: '#' + b, get: d => d.b }],
        unchecked, { id: 'not-checked', rowClass: () => 'unchecked-row' }));
    }
    const same = ['base_image', 'resource_class', 'gpu_device_ids', 'server_flags', 'benchmark_config_hash', 'gpu', 'driver', 'cuda', 'rocm', 'pytorch']
      .filter(f => !c.differences.some(d => d.field === f) && !unchecked.some(d => d.field === f));
    if (c.trusted) main.append(h('div', { class: 'banner-trusted', id: 'trusted-banner' }, same.length
      ? 'Same on both runs: ' + same.join(', ') + '.' : 'No trust field is known on both runs: nothing is confirmed the same.'));
    const keys = [...new Set([...Object.keys(c.a.metrics), ...Object.keys(c.b.metrics)])];
    const pct = (x, y) => (x && y !== undefined && y !== null ? (100 * (y - x)) / x : null);
    // The diff verb measured both traces the same way (complete steps only): step time, GPU busy,
    // idle and overlap per step, and GPU time per category, on both traces in one pass.
    if (c.diff) {
      const A = c.diff.before, B = c.diff.after;
      const busyPct = s => (s.step_time_s > 0 ? (100 * s.busy_s) / s.step_time_s : null);
      const rowsD = [
        { what: 'step time (s)', a: A.step_time_s, b: B.step_time_s },
        { what: 'GPU busy (s/step)', a: A.busy_s, b: B.busy_s },
        { what: 'GPU busy (%)', a: busyPct(A), b: busyPct(B) },
        { what: 'GPU idle (s/step)', a: A.idle_s, b: B.idle_s },
        { what: 'GPU op time (s/step)', a: A.gpu_op_time_s, b: B.gpu_op_time_s },
        { what: 'overlap (s/step)', a: A.overlap_s, b: B.overlap_s },
        { what: 'complete steps', a: A.steps, b: B.steps }];
      main.append(h('h2', {}, 'Step time, busy and categories (goblin diff)'), table([{ label: 'measure', get: r => r.what },
        { label: '#' + a, get: r => r.a, num: true }, { label: '#' + b, get: r => r.b, num: true },
        { label: 'change %', get: r => pct(r.a, r.b), num: true }], rowsD, { id: 'compare-diff-summary' }));
      main.append(table([{ label: 'category', get: x => x.category },
        { label: '#' + a + ' (s/step)', get: x => x.before_s, num: true }, { label: '#' + b + ' (s/step)', get: x => x.after_s, num: true },
        { label: 'change (s/step)', get: x => x.change_s, num: true }, { label: 'share of the step-time change %', get: x => x.share_of_change_pct, num: true }],
        c.diff.categories, { id: 'compare-diff-categories' }));
    }
    if (keys.length) main.append(h('h2', {}, 'Metrics side by side'), table([{ label: 'metric', get: k => k },
      { label: '#' + a, get: k => c.a.metrics[k], num: true }, { label: '#' + b, get: k => c.b.metrics[k], num: true },
      { label: 'change %', get: k => pct(c.a.metrics[k], c.b.metrics[k]), num: true }],
      keys, { id: 'compare-metrics' }));
    const cats = [...new Set([...c.a.categories.map(x => x.category), ...c.b.categories.map(x => x.category)])];
    const catOf = (r, k) => (r.categories.find(x => x.category === k) || {}).time_s;
    if (cats.length) main.append(h('h2', {}, 'GPU time by category (stored)'), table([{ label: 'category', get: k => k },
      { label: '#' + a + ' (s)', get: k => catOf(c.a, k), num: true }, { label: '#' + b + ' (s)', get: k => catOf(c.b, k), num: true }], cats, { id: 'compare-categories' }));
    main.append(h('h2', {}, 'goblin diff (result)'));
    if (c.diff) main.append(h('pre', { id: 'diff-result' }, JSON.stringify(c.diff, null, 1).slice(0, 20000)));
    else main.append(h('p', { class: 'muted', id: 'diff-note' }, c.diff_note));
  } catch (e) { fail(e); }
}

// ---- A workload's trend: dates on the axis, the baseline and its threshold, change points ----
async function pageTrend(q) {
  clear('Trend');
  const w = q.get('workload');
  const runs = await api('/api/runs?limit=1000').catch(e => { fail(e); return null; });
  if (!runs) return;
  const names = [...new Set(runs.runs.map(r => r.workload))].sort();
  const pick = h('select', { id: 'workload-picker', onchange: ev => { location.hash = '#/trend?workload=' + encodeURIComponent(ev.target.value); } },
    h('option', { value: '' }, '— workload —'), names.map(n => h('option', { value: n, selected: n === w }, n)));
  main.append(h('form', { class: 'filters' }, h('label', {}, 'workload', pick)));
  if (!w) {
    main.append(h('p', { class: 'muted', id: 'trend-empty' }, names.length ? 'Pick a workload above.'
      : 'No runs yet: record one with goblin metrics trace.json.gz --store URL --workload NAME.'));
    return;
  }
  const metrics = [['step_time_s', 'step time (s)'], ['tokens_per_sec', 'tokens/s'], ['mfu_pct', 'MFU %'], ['gpu_util_pct', 'GPU busy %'],
    ['max_rank_step_time_s', 'slowest rank step (s)'], ['rank_skew_pct', 'rank skew %']];
  const box = h('div', { class: 'charts' });
  main.append(box);
  try {
    for (const [m, label] of metrics) {
      const t = await api(`/api/trend?workload=${encodeURIComponent(w)}&metric=${m}`);
      if (!t.points.length) continue;
      const g = t.gate;
      const reg = g && g.verdict === 'regression';
      const after = new Set((t.changes || []).map(c => c.after_run));
      const colors = t.points.map((p, i) => ((reg && i === t.points.length - 1) || after.has(p.run_id) ? '#cf222e' : '#0969da'));
      // Step times and tokens/s come from two clocks (the workload's timer, a trace's steps): when a
      // series mixes them, each point says which, and the gate's note says what it compared.
      const mixed = new Set(t.points.map(p => p.source)).size > 1;
      const pointLabel = p => p.created.slice(0, 16).replace('T', ' ') + ' #' + p.run_id + (mixed ? (p.source === 'workload_timer' ? ' (timer)' : ' (trace)') : '');
      const datasets = [{ label, data: t.points.map(p => p.value), borderColor: '#0969da', pointBackgroundColor: colors, pointRadius: colors.map(c => (c === '#cf222e' ? 7 : 3)) }];
      if (g && g.verdict !== 'invalid' && g.baseline_runs.length) {
        datasets.push({ label: 'baseline median', data: t.points.map(() => g.baseline_median), borderColor: '#8c959f', borderDash: [4, 4], pointRadius: 0 });
        if (g.threshold) datasets.push({ label: 'regression threshold (t-test)', data: t.points.map(() => g.threshold), borderColor: '#bf8700', borderDash: [2, 3], pointRadius: 0 });
      }
      box.append(h('div', {}, h('h2', {}, label, ' ', verdictBadge(g)),
        g ? h('p', { class: 'muted verdict', id: 'verdict-' + m }, g.reason) : '',
        chart('trend-' + m, { type: 'line', data: { labels: t.points.map(pointLabel), datasets } }),
        (t.changes || []).map(a => alertRow(a, m))));
    }
    if (!box.children.length) box.append(h('p', { class: 'muted' }, 'No run of this workload records these metrics: metrics, triage, ranks, bench and audit runs do.'));
  } catch (e) { fail(e); }
}

// ---- Audit history: predicted range against measured speedup ----
async function pageAudits() {
  clear('Audit history and calibration');
  try {
    const c = await api('/api/calibration');
    const rs = c.rounds.filter(r => r.predicted_low !== null || r.measured !== null);
    main.append(h('h2', {}, 'Predicted range against measured speedup'), chart('calibration-chart', {
      data: { labels: rs.map((r, i) => `${r.workload} r${r.round}`), datasets: [
        { type: 'bar', label: 'predicted range', data: rs.map(r => [r.predicted_low, r.predicted_high]), backgroundColor: 'rgba(9,105,218,0.35)' },
        { type: 'scatter', label: 'measured', data: rs.map((r, i) => ({ x: i, y: r.measured })), backgroundColor: '#cf222e', pointRadius: 5 }] } }));
    // A citation is shown as a link only when it is an http(s) URL; anything else stays text.
    const cite = c => (c && /^https?:\/\//.test(c) ? h('a', { href: c, rel: 'noopener noreferrer', target: '_blank', class: 'citation' }, c) : c);
    main.append(h('h2', {}, 'Calibration per rule and GPU'), table([{ label: 'rule', get: r => r.rule_id }, { label: 'citation', get: r => cite(r.citation) }, { label: 'GPU', get: r => r.gpu },
      { label: 'audits', get: r => r.audits, num: true }, { label: 'held', get: r => r.held, num: true },
      { label: 'exceeded', get: r => r.exceeded, num: true }, { label: 'missed', get: r => r.missed, num: true },
      { label: 'measured / predicted mid', get: r => r.median_measured_over_predicted_mid, num: true }], c.rules, { id: 'calibration' }));
    main.append(h('h2', {}, 'Rounds'), auditTable(c.rounds, 'audit-rounds'));
  } catch (e) { fail(e); }
}

// ---- Kernel workspaces ----
async function pageKernels() {
  clear('Kernel workspaces');
  try {
    const runs = await api('/api/runs?verb=kernel&limit=200');
    if (!runs.runs.length) {
      main.append(h('p', { class: 'muted', id: 'kernels-empty' }, 'No kernel workspace recorded yet. Start one with'),
        h('pre', {}, 'goblin kernel init NAME\ngoblin kernel bench NAME --store URL'), h('p', { class: 'muted' }, 'or import one: goblin store add WORKSPACE_DIR --store URL'));
      return;
    }
    main.append(table([{ label: 'run', get: r => h('a', { href: '#/run/' + r.id, class: 'run-link' }, '#' + r.id) },
      { label: 'workload', get: r => r.workload }, { label: 'created', get: r => r.created },
      { label: 'speedup', get: r => r.metrics.speedup, num: true }], runs.runs, { id: 'kernel-runs' }));
    if (runs.runs.length) {
      const r = await api('/api/runs/' + runs.runs[0].id);
      main.append(h('h2', {}, `Progress of run #${r.id} (${r.workload})`), kernelProgress(r.kernel_iterations));
    }
  } catch (e) { fail(e); }
}

function route() {
  const hash = location.hash.slice(1) || '/';
  const [path, query] = hash.split('?');
  const q = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'run' && parts[1]) return pageRun(parts[1]);
  if (parts[0] === 'compare' && parts[2]) return pageCompare(parts[1], parts[2]);
  if (parts[0] === 'trend') return pageTrend(q);
  if (parts[0] === 'audits') return pageAudits();
  if (parts[0] === 'kernels') return pageKernels();
  if (parts[0] === 'runs') return pageRuns(q);
  return pageHome();
}
window.addEventListener('hashchange', route);
route();
