// The dashboard in a real browser (issue 27): playwright-core drives Debian's chromium headless
// against `goblin serve` on a store seeded from the real fixtures (two H100 llama traces triaged
// and measured, a third triage with another base image, four example audits, two kernel
// workspaces, a ranks result). Every page loads with no console error, tables hold the expected
// rows, charts render, experiment → trial → compare works by clicking, and two runs with
// different base images get the red untrusted banner. Screenshots go to $SHOTS when set.
// With ENGINE `postgresql` the same suite runs against a store on a PostgreSQL server the test
// starts itself (as src/store/pg_test_server.h does: initdb into the temporary directory, a Unix
// socket there only, no TCP; as root the server runs as Debian's postgres user), stopped at exit.
// Usage: node dashboard.mjs GOBLIN_BIN SOURCE_DIR [sqlite|postgresql]
//        (exit 77: chromium, playwright-core or, for postgresql, the server binaries absent)
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [GOBLIN, SRC, ENGINE = 'sqlite'] = process.argv.slice(2);
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) { console.log('SKIP: /usr/bin/chromium absent (scripts/bootstrap installs chromium)'); process.exit(77); }
let chromium;
try { ({ chromium } = await import('playwright-core')); } catch {
  console.log('SKIP: playwright-core absent (scripts/bootstrap runs npm ci in web/)'); process.exit(77);
}

// The PostgreSQL server's bin directory (Debian: /usr/lib/postgresql/<major>/bin), or null.
function pgBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  for (const v of readdirSync(root).sort().reverse()) {
    const d = join(root, v, 'bin');
    if (existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'))) return d;
  }
  return null;
}
const PG = ENGINE === 'postgresql' ? pgBin() : null;
if (ENGINE === 'postgresql' && !PG) { console.log('SKIP: PostgreSQL server binaries absent (scripts/bootstrap installs postgresql)'); process.exit(77); }

const tmp = mkdtempSync(join(tmpdir(), 'goblin-dash-'));
let stopPostgres = () => {};
// Runs a server program (as user postgres when root: initdb refuses root).
function pgRun(cmd, ...args) {
  const asRoot = process.getuid && process.getuid() === 0;
  const argv = asRoot ? ['runuser', ['-u', 'postgres', '--', join(PG, cmd), ...args]] : [join(PG, cmd), args];
  const r = spawnSync(argv[0], argv[1], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.stderr}`);
}
function startPostgres() {
  const dir = join(tmp, 'pg'), sock = join(dir, 'sock');
  mkdirSync(sock, { recursive: true });
  if (process.getuid && process.getuid() === 0) {
    chmodSync(tmp, 0o755);
    assert.equal(spawnSync('chown', ['-R', 'postgres', dir]).status, 0, 'chown postgres');
  }
  pgRun('initdb', '-D', join(dir, 'data'), '-U', 'goblin', '-A', 'trust', '--no-sync');
  appendFileSync(join(dir, 'data/postgresql.conf'), `listen_addresses = ''\nunix_socket_directories = '${sock}'\nfsync = off\n`);
  pgRun('pg_ctl', '-D', join(dir, 'data'), '-w', '-l', join(dir, 'server.log'), 'start');
  stopPostgres = () => spawnSync(...(process.getuid && process.getuid() === 0
    ? ['runuser', ['-u', 'postgres', '--', join(PG, 'pg_ctl'), '-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']]
    : [join(PG, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']]));
  pgRun('createdb', '-h', sock, '-U', 'goblin', 'goblin_dash');
  return `postgresql:///goblin_dash?host=${sock}&user=goblin`;
}
process.on('exit', () => stopPostgres());  // also when a step throws before the end
const STORE = ENGINE === 'postgresql' ? startPostgres() : `sqlite://${tmp}/runs.db`;
if (ENGINE === 'postgresql') goblin('store', 'init', '--store', STORE);
console.log(`engine: ${ENGINE}`);
function goblin(...args) {
  const r = spawnSync(GOBLIN, args, { cwd: tmp, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `goblin ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const ex = join(SRC, 'examples/h100_llama'), res = join(SRC, 'tests/fixtures');
for (const w of ['fp32_eager_w0', 'bf16_sdpa_w4']) {
  const trace = join(ex, `h100_llama_${w}.json.gz`);
  goblin('triage', trace, '-o', join(tmp, 'tri_' + w), '--store', STORE, '--experiment', 'exp-llama', '--trial', w, '--workload', 'llama-8b');
  goblin('metrics', trace, '--store', STORE, '--experiment', 'exp-llama', '--trial', w, '--workload', 'llama-8b');
}
// The same eager triage as if profiled in another container image: seed 002's trust check must flag it.
cpSync(join(tmp, 'tri_fp32_eager_w0'), join(tmp, 'tri_other_image'), { recursive: true });
const meta = join(tmp, 'tri_other_image/profile_metadata.json');
const m = JSON.parse(readFileSync(meta, 'utf8'));
m.base_image = 'nvcr.io/nvidia/pytorch:24.05-py3';
writeFileSync(meta, JSON.stringify(m));
goblin('store', 'add', join(tmp, 'tri_other_image'), '--store', STORE, '--experiment', 'exp-llama', '--trial', 'other-image', '--workload', 'llama-8b');
goblin('store', 'add', ...['base', 'base_workers', 'tuned_compile_current'].map(d => join(res, 'h100_audit_rounds', d)),
  join(res, 'h100_live/audit_base'), join(res, 'kernel_opt/softmax'), join(res, 'kernel_opt/matmul'),
  join(res, 'ranks/balanced.json'), '--store', STORE, '--experiment', 'exp-audit');
// A nightly series with a known step: five runs near 1.00 s, then three near 1.10 s (+10 %), as
// bare results (the store reads step_time_s from any result), so the home page has a change to show.
const nightly = [1.000, 1.004, 0.997, 1.002, 0.999, 1.101, 1.098, 1.103].map((v, i) => {
  const f = join(tmp, `nightly${i}.json`);
  writeFileSync(f, JSON.stringify({ step_time_s: v }));
  return f;
});
for (const f of nightly) goblin('store', 'add', f, '--store', STORE, '--experiment', 'exp-nightly', '--workload', 'nightly-llama');
// goblin diff of the eager and the SDPA trace, recorded (run 21): its run page's per-category bars
// are checked against the result the CLI printed.
const diffResult = JSON.parse(goblin('diff', join(ex, 'h100_llama_fp32_eager_w0.json.gz'), join(ex, 'h100_llama_bf16_sdpa_w4.json.gz'),
  '--store', STORE, '--experiment', 'exp-nightly', '--workload', 'llama-8b-diff', '--json')).result;
// goblin ranks --html, recorded (run 22): its run page frames the very page the CLI wrote.
const ddp = join(SRC, 'examples/ddp_h200/balanced');
goblin('ranks', join(ddp, 'rank0.pt.trace.json.gz'), join(ddp, 'rank1.pt.trace.json.gz'), '--html', join(tmp, 'ranks.html'),
  '--store', STORE, '--experiment', 'exp-nightly', '--workload', 'ddp-balanced');

const server = spawn(GOBLIN, ['serve', '--store', STORE, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
const base = await new Promise((resolve, reject) => {
  let err = '';
  server.stderr.on('data', d => { err += d; const m = err.match(/listening on (http:\/\/[^/]+\/)/); if (m) resolve(m[1]); });
  server.on('exit', c => reject(new Error('goblin serve exited ' + c + ': ' + err)));
  setTimeout(() => reject(new Error('goblin serve did not listen: ' + err)), 20000);
});

// A fresh --user-data-dir: playwright takes it as launchPersistentContext's first argument.
const browser = await chromium.launchPersistentContext(join(tmp, 'chromium-profile'), { executablePath: CHROMIUM,
  headless: true, viewport: { width: 1400, height: 1000 }, args: ['--headless', '--no-sandbox', '--disable-gpu',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage();
const problems = [];
page.on('console', msg => { if (msg.type() === 'error') problems.push('console: ' + msg.text()); });
page.on('pageerror', e => problems.push('page error: ' + e.message));
const SHOTS = process.env.SHOTS;
const shot = async name => { if (SHOTS) await page.screenshot({ path: join(SHOTS, name + '.png'), fullPage: true }); };
const rows = sel => page.locator(`${sel} tbody tr`).count();
const chartDrawn = async id => page.evaluate(i => { const c = document.getElementById(i); return !!c && !!Chart.getChart(c) && c.width > 0; }, id);
let failed = 0;
async function check(name, fn) {
  try { await fn(); console.log('ok   ' + name); } catch (e) { failed++; console.log('FAIL ' + name + ': ' + e.message); }
}

try {
  await check('runs page: experiments and every run listed', async () => {
    await page.goto(base + '#/runs');
    await page.waitForSelector('#runs');
    assert.equal(await rows('#experiments'), 3);
    assert.equal(await rows('#runs'), 22);
    await shot('runs');
  });
  await check('filters: workload narrows the runs, an injection string finds nothing and breaks nothing', async () => {
    await page.fill('input[name=workload]', 'llama-8b');
    await page.click('#filters button');
    await page.waitForFunction(() => document.querySelector('#runs')?.dataset.rows === '5');
    await page.goto(base + "#/runs?workload=x'%3B%20DROP%20TABLE%20runs%3B%20--");
    await page.waitForFunction(() => document.querySelector('#runs')?.dataset.rows === '0');
  });
  await check('experiment → trial run → compare by clicking, untrusted banner for another base image', async () => {
    await page.goto(base + '#/runs');
    await page.waitForSelector('#experiments');
    await page.click('#experiments a.exp-link >> text=exp-llama');
    await page.waitForFunction(() => document.querySelector('#runs')?.dataset.rows === '5');
    // The eager triage (run 1) and its other-image copy (run 5).
    await page.check('input.pick[data-run="1"]');
    await page.check('input.pick[data-run="5"]');
    await page.click('#compare-btn');
    await page.waitForSelector('#untrusted-banner');
    const text = await page.textContent('#untrusted-banner');
    assert.match(text, /base_image/);
    assert.equal(await rows('#differences'), 1);
    await shot('compare_untrusted');
  });
  await check('compare of two runs of one image: trusted, with the diff verb\'s result', async () => {
    await page.goto(base + '#/compare/1/3');  // the eager and the SDPA triage
    await page.waitForSelector('#trusted-banner');
    await page.waitForSelector('#diff-result');
    // The diff verb's measures of both traces, side by side.
    assert.equal(await rows('#compare-diff-summary'), 7);
    assert.ok(await rows('#compare-diff-categories') > 0);
    const step = await page.locator('#compare-diff-summary tbody tr >> nth=0').textContent();
    assert.match(step, /step time/);
    await shot('compare_triage');
  });
  await check('a trial\'s profiling section: summary, kernel and category tables, artifacts, Perfetto link', async () => {
    await page.goto(base + '#/runs');
    await page.waitForSelector('#runs');
    await page.click('a.run-link >> text="#1"');
    await page.waitForSelector('#artifacts');
    assert.ok(await rows('#kernels') > 0);
    // triage's overlap and fusion tables, read back from the run's stored artifacts
    assert.ok(await rows('#overlap-table') > 0);
    assert.ok(await rows('#fuse-table') > 0);
    assert.ok(await rows('#artifacts') >= 5);
    assert.ok(await page.isVisible('#perfetto-link'));
    const href = await page.getAttribute('a.artifact-link >> nth=0', 'href');
    const r = await page.request.get(base + href.slice(1), { headers: { Origin: 'https://ui.perfetto.dev' } });
    assert.equal(r.status(), 200);
    // Perfetto UI's ?url= flow fetches the artifact across sites: the download route allows its origin.
    assert.equal(r.headers()['access-control-allow-origin'], 'https://ui.perfetto.dev');
    await shot('run_triage');
  });
  await check('an audit run: waste budget chart and rounds', async () => {
    await page.goto(base + '#/run/6');  // the first audit folder
    await page.waitForSelector('#rounds');
    if (await page.$('#waste-chart')) assert.ok(await chartDrawn('waste-chart'));
    await shot('run_audit');
  });
  await check('trend page: the charts of llama-8b', async () => {
    await page.goto(base + '#/trend?workload=llama-8b');
    await page.waitForSelector('#trend-step_time_s');
    await page.waitForFunction(() => Chart.getChart(document.getElementById('trend-step_time_s')));
    await shot('trend');
  });
  await check('audit history: calibration plot and table', async () => {
    await page.goto(base + '#/audits');
    await page.waitForSelector('#calibration');
    assert.ok(await rows('#calibration') > 0);
    assert.ok(await page.locator('#calibration a.citation').count() > 0);  // the rules' citations
    assert.ok(await rows('#audit-rounds') > 0);
    await page.waitForFunction(() => Chart.getChart(document.getElementById('calibration-chart')));
    await shot('audits');
  });
  await check('kernel workspaces: both listed, progress chart drawn', async () => {
    await page.goto(base + '#/kernels');
    await page.waitForSelector('#iterations');
    assert.equal(await rows('#kernel-runs'), 2);
    await page.waitForFunction(() => Chart.getChart(document.getElementById('kernel-chart')));
    await shot('kernels');
  });
  await check('home → workload → alert → run page: the nightly +10 % step found with its runs', async () => {
    await page.goto(base + '#/');
    await page.waitForSelector('#home-cards .card[data-workload="nightly-llama"]');
    const card = page.locator('.card[data-workload="nightly-llama"]');
    await page.waitForFunction(() => [...document.querySelectorAll('.spark-box canvas')].some(c => Chart.getChart(c)));
    const alert = card.locator('.alert.bad');
    assert.equal(await alert.count(), 1);
    const text = await alert.textContent();
    assert.match(text, /regression \+10\.\d* %/);        // the shift as stored: 1.0004 → 1.1007
    assert.match(text, /not checked/);                   // bare results record no trust fields
    assert.match(text, /goblin store compare 17 18/);    // the last run before and the first after
    // The sparkline holds the stored values.
    const data = await page.evaluate(() => Chart.getChart(document.querySelector('.card[data-workload="nightly-llama"] canvas')).data.datasets[0].data);
    assert.deepEqual(data, [1.000, 1.004, 0.997, 1.002, 0.999, 1.101, 1.098, 1.103]);
    await shot('home');
    await card.locator('a.workload-link').click();
    await page.waitForSelector('#trend-step_time_s');
    await page.waitForFunction(() => Chart.getChart(document.getElementById('trend-step_time_s')));
    assert.equal(await page.inputValue('#workload-picker'), 'nightly-llama');
    assert.ok(await page.locator('.alert.bad').count() >= 1);
    await shot('trend_alert');
    await page.click('.alert.bad a.alert-run');
    await page.waitForSelector('#summary');
    assert.match(await page.textContent('h1'), /Run #18/);
  });
  await check('an audit run shows its report.md rendered and report.html sandboxed', async () => {
    await page.goto(base + '#/run/9');  // tests/fixtures/h100_live/audit_base
    await page.waitForSelector('#report-md p');
    const frame = page.locator('#report-html');
    assert.equal(await frame.getAttribute('sandbox'), '');
    const src = await frame.getAttribute('src');
    const r = await page.request.get(base + src.slice(1));
    assert.equal(r.status(), 200);
    assert.match(r.headers()['content-type'], /^text\/html/);
    assert.match(r.headers()['content-security-policy'], /^sandbox/);
    assert.match(await r.text(), /<svg|<table/);
    await shot('run_audit_report');
  });
  await check('a ranks run: straggler sentence, per-rank chart with the stored step times', async () => {
    await page.goto(base + '#/run/12');
    await page.waitForSelector('#straggler-sentence');
    assert.ok((await page.textContent('#straggler-sentence')).length > 10);
    await page.waitForFunction(() => Chart.getChart(document.getElementById('ranks-chart')));
    const fixture = JSON.parse(readFileSync(join(res, 'ranks/balanced.json'), 'utf8'));  // a --json envelope
    const stored = (fixture.result || fixture).skew.step_time.per_rank.map(k => k.step_time_s);
    // The store's rank rows carry the same numbers.
    assert.deepEqual(await page.evaluate(async () => (await (await fetch('/api/runs/12')).json()).ranks.map(k => k.step_time_s)), stored);
    const drawn = await page.evaluate(() => Chart.getChart(document.getElementById('ranks-chart')).data.datasets[0].data);
    assert.deepEqual(drawn, stored);
    await shot('run_ranks');
  });
  await check('a diff run: per-category bars drawn with the numbers goblin diff printed', async () => {
    await page.goto(base + '#/run/21');
    await page.waitForSelector('#diff-sentence');
    await page.waitForFunction(() => Chart.getChart(document.getElementById('diff-chart')));
    assert.ok(await chartDrawn('diff-chart'));
    const cats = diffResult.categories.filter(c => c.change_s !== undefined);
    assert.ok(cats.length >= 3, 'categories in the diff result');
    const drawn = await page.evaluate(() => {
      const c = Chart.getChart(document.getElementById('diff-chart'));
      return { labels: c.data.labels, before: c.data.datasets[0].data, after: c.data.datasets[1].data };
    });
    assert.deepEqual(drawn.labels, cats.map(c => c.category));
    assert.deepEqual(drawn.before, cats.map(c => c.before_s));
    assert.deepEqual(drawn.after, cats.map(c => c.after_s));
    assert.equal(await rows('#diff-categories'), cats.length);
    assert.ok((await page.textContent('#diff-sentence')).includes(`speedup ${Number(diffResult.speedup.toPrecision(4))}×`));
    await shot('run_diff');
  });
  await check('a ranks run recorded with --html: the run page frames the page goblin ranks wrote', async () => {
    await page.goto(base + '#/run/22');
    await page.waitForSelector('#ranks-heatmaps');
    const frame = page.locator('#ranks-heatmaps');
    assert.equal(await frame.getAttribute('sandbox'), '');
    const r = await page.request.get(base + (await frame.getAttribute('src')).slice(1));
    assert.equal(r.status(), 200);
    assert.match(r.headers()['content-type'], /^text\/html/);
    assert.match(r.headers()['content-security-policy'], /^sandbox/);
    assert.equal(await r.text(), readFileSync(join(tmp, 'ranks.html'), 'utf8'));  // one renderer
    await shot('run_ranks_heatmaps');
  });
  await check('compare says not checked for fields unknown on either side', async () => {
    await page.goto(base + '#/compare/1/3');
    await page.waitForSelector('#unchecked-banner');
    assert.match(await page.textContent('#unchecked-banner'), /Not checked.*base_image/);
    assert.doesNotMatch(await page.textContent('#trusted-banner'), /base_image/);  // unknown: never "same"
    assert.ok(await rows('#not-checked') > 0);
    await shot('compare_not_checked');
  });
  await check('an unknown run id answers 404 without the store\'s location', async () => {
    const r = await page.request.get(base + 'api/runs/999999');
    assert.equal(r.status(), 404);
    assert.ok(!(await r.text()).includes(tmp), 'the temporary store folder is named');
  });
  await check('no console errors on any page', async () => { assert.deepEqual(problems, []); });
} finally {
  await browser.close();
  server.kill('SIGTERM');
  await new Promise(r => (server.exitCode !== null ? r() : server.on('exit', r)));
  stopPostgres();
  stopPostgres = () => {};
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
