// The dashboard's home page (what changed) and the run pages' views of stored results (ranks, diff,
// audit reports). Loaded before app.js, whose helpers (h, api, table, chart, clear, fail, fmtNum)
// these functions call when a route runs. Text reaches the page through textContent only; a stored
// report.html is shown in a sandboxed frame, served with a CSP sandbox header (docs/dashboard.md).
'use strict';

const RED = '#cf222e', GREEN = '#1a7f37', BLUE = '#0969da', AMBER = '#bf8700';
const day = s => (s || '').slice(0, 16).replace('T', ' ');
const lowerIsBetter = m => !['tokens_per_sec', 'mfu_pct', 'gpu_util_pct', 'speedup'].includes(m);
const HOME_METRICS = ['step_time_s', 'tokens_per_sec', 'gpu_util_pct', 'speedup'];

// ---- Home: per workload the newest run against its baseline, a sparkline, the change points ----
async function pageHome() {
  clear('What changed');
  try {
    const runs = await api('/api/runs?limit=1000');
    if (!runs.runs.length) {
      main.append(h('div', { class: 'empty', id: 'home-empty' }, h('p', {}, 'No runs recorded yet. Record one with'),
        h('pre', {}, 'goblin metrics trace.json.gz --store URL --workload NAME\ngoblin triage trace.json.gz -o out --store URL'),
        h('p', {}, 'then reload this page.')));
      return;
    }
    const byWorkload = new Map();
    for (const r of runs.runs) {
      if (!byWorkload.has(r.workload)) byWorkload.set(r.workload, []);
      byWorkload.get(r.workload).push(r);
    }
    main.append(h('p', { class: 'muted' }, `${byWorkload.size} workload(s), ${runs.total} run(s). Each card: the newest run against its baseline (goblin gate's t-test), and every change point of the series (E-divisive split, t-test p < 0.001).`));
    const grid = h('div', { class: 'cards', id: 'home-cards' });
    main.append(grid);
    let i = 0;
    for (const [w, rs] of byWorkload) {
      const metric = HOME_METRICS.find(m => rs.some(r => r.metrics[m] !== undefined));
      if (!metric) continue;
      const t = await api(`/api/trend?workload=${encodeURIComponent(w)}&metric=${metric}`);
      grid.append(workloadCard(w, metric, t, i++));
    }
    if (!grid.children.length) grid.append(h('p', { class: 'muted' }, 'No workload records a step time, tokens/s, GPU busy % or speedup yet: the runs list has them all.'));
  } catch (e) { fail(e); }
}

function verdictBadge(g) {
  if (!g) return h('span', { class: 'badge muted' }, 'no verdict');
  const cls = g.verdict === 'regression' ? 'badge bad' : g.verdict === 'pass' ? 'badge good' : 'badge warn';
  const text = g.verdict === 'insufficient_data' ? 'not enough data' : g.verdict;
  return h('span', { class: cls, title: g.reason }, text);
}

function workloadCard(w, metric, t, i) {
  const g = t.gate;
  const card = h('div', { class: 'card', 'data-workload': w });
  card.append(h('h2', {}, h('a', { href: '#/trend?workload=' + encodeURIComponent(w), class: 'workload-link' }, w), ' ', verdictBadge(g)));
  if (g && g.newest_run) {
    card.append(h('p', {}, `${metric}: run `, h('a', { href: '#/run/' + g.newest_run }, '#' + g.newest_run), ` ${fmtNum(g.newest)}`,
      g.baseline_runs.length ? ` vs baseline median ${fmtNum(g.baseline_median)} over ${g.baseline_runs.length} run(s): ${g.change_pct >= 0 ? '+' : ''}${fmtNum(g.change_pct)} %` : ''));
    if (g.verdict === 'insufficient_data') card.append(h('p', { class: 'muted' }, g.reason.replace(/^run \d+: /, '')));
    for (const wn of g.warnings || []) card.append(h('p', { class: 'warn-text' }, 'warning: ' + wn));
  }
  card.append(sparkline('spark-' + i, t.points, t.changes || []));
  const alerts = t.changes || [];
  if (!alerts.length) card.append(h('p', { class: 'muted' }, 'No change point in this series.'));
  for (const a of alerts) card.append(alertRow(a, metric));
  return card;
}

function sparkline(id, points, changes) {
  const after = new Set(changes.map(c => c.after_run));
  return chart(id, { type: 'line', data: { labels: points.map(p => day(p.created)), datasets: [{ data: points.map(p => p.value),
    borderColor: BLUE, borderWidth: 1.5, pointRadius: points.map(p => (after.has(p.run_id) ? 5 : 1.5)),
    pointBackgroundColor: points.map(p => (after.has(p.run_id) ? RED : BLUE)) }] },
    options: { plugins: { legend: { display: false } }, scales: { x: { ticks: { maxTicksLimit: 4 } } } } }, 'spark-box');
}

function alertRow(a, metric) {
  const cls = a.direction === 'regression' ? 'alert bad' : 'alert good';
  const kind = a.classification === 'not checked' ? `not checked (unknown: ${a.unknown_fields.join(', ')})`
    : a.changed_fields.length ? `${a.classification}: ${a.changed_fields.join(', ')}` : a.classification;
  return h('div', { class: cls, 'data-before': a.before_run, 'data-after': a.after_run },
    h('strong', {}, `${a.direction} ${a.change_pct >= 0 ? '+' : ''}${fmtNum(a.change_pct)} %`),
    ` ${metric} ${fmtNum(a.before_mean)} → ${fmtNum(a.after_mean)}, confidence ${fmtNum(100 * a.confidence, 4)} % — ${kind}. Runs `,
    h('a', { href: '#/run/' + a.before_run }, '#' + a.before_run), ' → ', h('a', { href: '#/run/' + a.after_run, class: 'alert-run' }, '#' + a.after_run),
    ` (${day(a.after_created)}) · `, h('a', { href: `#/compare/${a.before_run}/${a.after_run}`, class: 'alert-compare' }, 'compare'),
    h('pre', { class: 'cmd' }, [a.compare, a.reproduce_before, a.reproduce_after].filter(Boolean).join('\n')));
}

// ---- A run's stored results, read back from its artifacts ----
async function artifactJson(r, pred) {
  for (const a of r.artifacts.filter(x => x.name.endsWith('.json')).slice(0, 6)) {
    let j;
    try { j = await api(`/api/artifacts/${a.sha256}?name=${encodeURIComponent(a.name)}`); } catch (e) { if (e instanceof Stale) throw e; continue; }
    if (j && j.result && typeof j.result === 'object') j = j.result;  // a --json envelope
    if (j && pred(j)) return j;
  }
  return null;
}

function barChart(id, labels, datasets, horizontal = true) {
  return chart(id, { type: 'bar', data: { labels, datasets }, options: { indexAxis: horizontal ? 'y' : 'x' } });
}

async function ranksView(r) {
  const j = await artifactJson(r, x => Array.isArray(x.ranks) && x.world_size !== undefined);
  if (!j) return;
  const s = j.straggler || {};
  main.append(h('h2', {}, 'Straggler'), h('p', { id: 'straggler-sentence', class: s.named ? 'regression' : null },
    s.reason === undefined ? 'No straggler verdict in the stored result.'
      : s.named ? `Straggler: rank ${s.rank}${s.cause ? ' (' + s.cause.replace(/_/g, ' ') + ')' : ''} — ${s.reason}.` : `No straggler named — ${s.reason}.`));
  const sk = (j.skew || {}).step_time;
  if (sk) main.append(h('p', { id: 'skew' }, `Step-time skew ${fmtNum(sk.imbalance_pct)} % (slowest rank ${sk.slowest_rank}: ${fmtNum(sk.max_s)} s, fastest ${fmtNum(sk.min_s)} s).`));
  // Each rank's step time: the skew section's (every version of the result has it), else the rank's own.
  const ranks = (sk && sk.per_rank) || j.ranks.filter(k => k.step_time_s !== undefined && k.step_time_s !== null);
  main.append(barChart('ranks-chart', ranks.map(k => 'rank ' + k.rank), [{ label: 'step time (s)', data: ranks.map(k => k.step_time_s),
    backgroundColor: ranks.map(k => (s.named && k.rank === s.rank ? RED : BLUE)) }], false));
  // The skew heatmaps are `goblin ranks --html`'s page, which the store renders from the result when
  // it records the run (one renderer): shown sandboxed, like an audit's report.html.
  const page = r.artifacts.find(a => a.name === 'ranks_heatmaps.html');
  main.append(h('h2', {}, 'Skew heatmaps (goblin ranks --html)'), page
    ? h('iframe', { id: 'ranks-heatmaps', sandbox: '', class: 'report-frame', src: `/api/artifacts/${page.sha256}?name=ranks_heatmaps.html`, title: 'ranks heatmaps' })
    : h('p', { class: 'muted', id: 'ranks-heatmaps-note' }, 'This run was recorded without the heatmap page: record its result again with goblin store add.'));
  const cats = (j.skew || {}).categories_per_step || [];
  if (cats.length) {
    // GPU time per category and rank (not in the --html page): each cell shaded by its share of the row's largest.
    const rankIds = [...new Set(cats.flatMap(c => c.per_rank.map(p => p.rank)))];
    const val = (c, rk) => { const p = c.per_rank.find(x => x.rank === rk); return p ? p.time_s : null; };
    const t = table([{ label: 'category', get: c => c.category }, ...rankIds.map(rk => ({ label: 'rank ' + rk + ' (s/step)', get: c => val(c, rk), num: true }))], cats, { id: 'ranks-categories' });
    t.querySelectorAll('tbody tr').forEach((tr, i) => {
      const vs = rankIds.map(rk => val(cats[i], rk) || 0), mx = Math.max(...vs) || 1;
      [...tr.children].slice(1).forEach((td, k) => { td.style.background = `rgba(207,34,46,${(0.6 * vs[k]) / mx})`; });
    });
    main.append(h('h2', {}, 'GPU time per category and rank'), t);
  }
  const comm = ((j.topology || {}).comm_matrix || []);
  if (comm.length) main.append(h('h2', {}, 'Collectives by process group'), table([{ label: 'group', get: c => c.group }, { label: 'ranks', get: c => (c.ranks || []).join(', ') },
    { label: 'collectives', get: c => c.collectives, num: true }, { label: 'transfer (s)', get: c => c.transfer_s, num: true },
    { label: 'bus bandwidth (GB/s)', get: c => c.busbw_gbps, num: true }], comm, { id: 'ranks-comm' }));
}

async function diffView(r) {
  const j = await artifactJson(r, x => x.before && x.after && x.speedup !== undefined);
  if (!j) return;
  main.append(h('h2', {}, 'Before → after'), h('p', { id: 'diff-sentence' }, `Step time ${fmtNum(j.before.step_time_s)} s → ${fmtNum(j.after.step_time_s)} s: speedup ${fmtNum(j.speedup)}×.`));
  const cats = (j.categories || []).filter(c => c.change_s !== undefined);
  if (cats.length) main.append(barChart('diff-chart', cats.map(c => c.category), [
    { label: 'before (s/step)', data: cats.map(c => c.before_s), backgroundColor: '#8c959f' },
    { label: 'after (s/step)', data: cats.map(c => c.after_s), backgroundColor: BLUE }]),
    table([{ label: 'category', get: c => c.category }, { label: 'before (s/step)', get: c => c.before_s, num: true },
      { label: 'after (s/step)', get: c => c.after_s, num: true }, { label: 'change (s/step)', get: c => c.change_s, num: true },
      { label: 'share of the change %', get: c => c.share_of_change_pct, num: true }], cats, { id: 'diff-categories' }));
}

async function reportView(r) {
  const html = r.artifacts.find(a => a.name.endsWith('report.html'));
  const md = r.artifacts.find(a => a.name.endsWith('report.md'));
  if (md) {
    const resp = await fetch(`/api/artifacts/${md.sha256}?name=report.md`);
    if (resp.ok) main.append(h('h2', {}, 'Report (report.md)'), h('div', { class: 'markdown', id: 'report-md' }, markdown(await resp.text())));
  }
  if (html) {
    // sandbox="" : no script, an opaque origin; the server's CSP sandbox header says the same.
    main.append(h('h2', {}, 'Report (report.html)'), h('iframe', { id: 'report-html', sandbox: '', class: 'report-frame',
      src: `/api/artifacts/${html.sha256}?name=report.html`, title: 'report.html' }));
  }
}

// A small Markdown reader for goblin's own reports: headings, tables, lists, code blocks,
// paragraphs; inline `code` and **bold**. Everything is text nodes.
function inline(text) {
  const out = [];
  for (const part of text.split(/(`[^`]+`|\*\*[^*]+\*\*)/)) {
    if (!part) continue;
    if (part.startsWith('`') && part.endsWith('`')) out.push(h('code', {}, part.slice(1, -1)));
    else if (part.startsWith('**') && part.endsWith('**')) out.push(h('strong', {}, part.slice(2, -2)));
    else out.push(part);
  }
  return out;
}
function markdown(src) {
  const root = h('div'), lines = src.split('\n');
  for (let i = 0; i < lines.length;) {
    const l = lines[i];
    if (l.startsWith('```')) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      root.append(h('pre', {}, code.join('\n'))); i++;
    } else if (/^#{1,6} /.test(l)) {
      const n = l.match(/^#+/)[0].length;
      root.append(h('h' + Math.min(6, n + 2), {}, inline(l.slice(n + 1)))); i++;
    } else if (l.startsWith('|')) {
      const rows = [];
      for (; i < lines.length && lines[i].startsWith('|'); i++) rows.push(lines[i].split('|').slice(1, -1).map(c => c.trim()));
      const body = rows.filter((r, k) => k !== 1 || !r.every(c => /^:?-+:?$/.test(c)));
      root.append(h('div', { class: 'scroll' }, h('table', {}, h('thead', {}, h('tr', {}, body[0].map(c => h('th', {}, inline(c))))),
        h('tbody', {}, body.slice(1).map(r => h('tr', {}, r.map(c => h('td', {}, inline(c)))))))));
    } else if (/^\s*[-*] /.test(l)) {
      const ul = h('ul');
      for (; i < lines.length && /^\s*[-*] /.test(lines[i]); i++) ul.append(h('li', {}, inline(lines[i].replace(/^\s*[-*] /, ''))));
      root.append(ul);
    } else if (!l.trim()) { i++; } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() && !/^(#|\||```|\s*[-*] )/.test(lines[i]); i++) para.push(lines[i]);
      root.append(h('p', {}, inline(para.join(' '))));
    }
  }
  return root;
}
