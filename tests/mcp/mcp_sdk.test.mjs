// Acceptance (issue 11): the official MCP TypeScript SDK client drives `goblin mcp` over stdio.
// Seed 000's whole trajectory on the bundled H100 replay, the budget, the root guard, and raw
// malformed messages answered with JSON-RPC errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const GOBLIN = process.env.GOBLIN_BIN;
const SRC = process.env.GOBLIN_SOURCE_DIR;
assert.ok(GOBLIN && SRC, 'GOBLIN_BIN and GOBLIN_SOURCE_DIR must be set (tests/mcp/run_acceptance)');

// Every tool group (the trajectory below uses the kernel tools too); `tools` '' is the default set.
function serverArgs(out, tools = 'all') {
  const args = ['mcp', '--replay', join(SRC, 'examples/h100_llama'), '--root', SRC, '--out', out];
  return tools ? [...args, '--tools', tools] : args;
}

let negotiated = null;  // the protocol version the SDK settled on (it calls setProtocolVersion)

async function connect(out, tools = 'all') {
  const transport = new StdioClientTransport({ command: GOBLIN, args: serverArgs(out, tools), stderr: 'pipe' });
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: 'goblin-acceptance', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// What `goblin audit CONFIG --replay examples/h100_llama --json` reports: the reference figures.
function cliAudit(out) {
  return new Promise((resolve, reject) => {
    const p = spawn(GOBLIN, ['audit', join(SRC, 'examples/h100_llama/config_before.yaml'), '--replay',
      join(SRC, 'examples/h100_llama'), '-o', out, '--json', '-q']);
    let s = '';
    p.stdout.on('data', (d) => { s += d; });
    p.on('error', reject);
    p.on('close', () => { try { resolve(JSON.parse(s)); } catch (e) { reject(e); } });
  });
}

test('seed 000 trajectory through the official SDK client on the H100 replay', async () => {
  const out = mkdtempSync(join(tmpdir(), 'goblin-mcp-'));
  const client = await connect(out);
  try {
    assert.equal(client.getServerVersion().name, 'goblin');
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['parse_config', 'profile_run', 'query_kb', 'query_rocm_kb', 'propose_patch', 'benchmark',
      'compare_runs', 'info', 'triage', 'breakdown', 'metrics', 'specs', 'roofline', 'diagnose',
      'kernel_init', 'kernel_bench', 'kernel_profile', 'kernel_plan', 'kernel_record', 'kernel_status',
      'store_ls', 'store_show', 'gate']) {
      assert.ok(tools.includes(n), `tool ${n} listed`);
    }
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    assert.deepEqual(prompts, ['gpu_goblin_audit', 'gpu_kernel_optimize']);
    const kp = await client.getPrompt({ name: 'gpu_kernel_optimize', arguments: { platform: 'H100' } });
    assert.match(kp.messages[0].content.text, /ONE change per iteration/);
    // The kernel loop's CPU-runnable start: a workspace under --out, then its status.
    const init = await client.callTool({ name: 'kernel_init', arguments: {
      name: 'sm', kernel: 'examples/kernel/softmax/v0.py', platform: 'H100', shape: 'M=32768,N=8192' } });
    assert.equal(init.isError, false, JSON.stringify(init.structuredContent));
    const st = await client.callTool({ name: 'kernel_status',
      arguments: { workspace: init.structuredContent.result.workspace } });
    assert.equal(st.structuredContent.result.next.action, 'continue');
    const prompt = await client.getPrompt({ name: 'gpu_goblin_audit', arguments: { vendor: 'nvidia' } });
    assert.match(prompt.messages[0].content.text, /ROCPROFSYS_/);
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(resources.includes('goblin://kb/rules') && resources.includes('goblin://specs/gpus'));

    // The SDK validates each structuredContent against the tool's outputSchema.
    const call = async (name, args, extra) => {
      const r = await client.callTool({ name, arguments: args }, undefined, extra);
      assert.ok(r.structuredContent, `${name}: structuredContent`);
      assert.equal(typeof r.content[0].text, 'string');
      return r;
    };
    const ok = (r) => { assert.equal(r.structuredContent.ok, true, JSON.stringify(r.structuredContent.error)); return r.structuredContent.result; };

    const config = ok(await call('parse_config', { file_path: 'examples/h100_llama/config_before.yaml' }));
    let progress = 0;
    const metrics = ok(await call('profile_run', { config, steps: 10 }, { onprogress: () => { progress += 1; } }));
    assert.ok(progress >= 1, 'progress notifications on profile_run');
    assert.equal(metrics.goblin_run.runner, 'replay');
    const kb = ok(await call('query_kb', { symptoms: [
      'fp32 training precision used on NVIDIA H100 instead of bf16 mixed precision',
      'naive eager attention on NVIDIA H100', 'DataLoader num_workers=0 starves GPU', 'DataLoader pin_memory=False',
      'Adam/AdamW optimizer not fused', 'torch.compile disabled',
      'precision_path: fp32 SIMT GEMM kernels, tensor cores unused',
      'host_gap: GPU idle between kernel launches, launch-bound host overhead'] }));
    assert.ok(kb.rule_ids.length > 0);
    const patch = ok(await call('propose_patch', { config, rule_ids: kb.rule_ids, metrics }));
    const before = ok(await call('benchmark', { config }));
    const after = ok(await call('benchmark', { config: patch.new_config }));
    const report = ok(await call('compare_runs', { workload_name: 'llama-8l-h1024 training', before, after, patch }));

    const ref = await cliAudit(join(out, 'cli-audit'));
    assert.equal(ref.ok, true);
    assert.equal(report.speedup_actual.toFixed(2), '4.77', report.summary_line);
    assert.equal(report.speedup_actual, ref.result.speedup_actual);
    assert.equal(report.speedup_predicted_low, ref.result.speedup_predicted_low);
    assert.equal(report.speedup_predicted_high, ref.result.speedup_predicted_high);
    assert.match(report.summary_line, /4\.77x faster/);
    assert.equal(report.validity_footer.measured_by, 'replay');
    assert.match(report.validity_footer.text, /^Valid only for the observed workload/);
    assert.equal(report.validity_footer.text, ref.result.validity_footer.text);

    // The report is served as a resource.
    const md = (await client.listResources()).resources.find((r) => r.uri.endsWith('report.md'));
    assert.ok(md, 'report.md listed');
    const text = (await client.readResource({ uri: md.uri })).contents[0].text;
    assert.match(text, /4\.77/);

    // Call 8 (a path outside the root) is refused; call 9 is refused by the budget.
    const outside = await call('parse_config', { file_path: '/etc/passwd' });
    assert.equal(outside.isError, true);
    assert.equal(outside.structuredContent.ok, false);
    assert.match(outside.structuredContent.error, /outside the directories this server may read/);
    const ninth = await call('query_kb', { symptom: 'host_gap' });
    assert.equal(ninth.structuredContent.ok, false);
    assert.match(ninth.structuredContent.error, /budget/);
    assert.match(ninth.structuredContent.error, /at most 8/);
  } finally {
    await client.close();
    rmSync(out, { recursive: true, force: true });
  }
});

// Without --tools the server lists its default groups (audit, triage, store) in under 30 KB, and a
// tool of another group is refused naming its group.
test('the default tool groups fit an agent context', async () => {
  const out = mkdtempSync(join(tmpdir(), 'goblin-mcp-'));
  const client = await connect(out, '');
  try {
    const listed = (await client.listTools()).tools;
    const names = listed.map((t) => t.name).sort();
    assert.deepEqual(names, ['benchmark', 'breakdown', 'compare_runs', 'critical_path', 'diff', 'gate', 'info',
      'metrics', 'parse_config', 'profile_run', 'propose_patch', 'query', 'query_kb', 'query_rocm_kb', 'store_ls',
      'store_show', 'triage']);
    assert.ok(JSON.stringify({ tools: listed }).length < 30 * 1024, 'tools/list under 30 KB');
    await assert.rejects(client.callTool({ name: 'kernel_init', arguments: {} }), /tool group 'kernel'/);
    // A tool that is listed answers as usual, validated against its compact outputSchema.
    const info = await client.callTool({ name: 'info', arguments: { path: 'examples/h100_llama/h100_llama_bf16_sdpa_w4.json.gz' } });
    assert.equal(info.structuredContent.ok, true, JSON.stringify(info.structuredContent.error));
  } finally {
    await client.close();
    rmSync(out, { recursive: true, force: true });
  }
});

test('negotiates the SDK protocol version', async () => {
  const out = mkdtempSync(join(tmpdir(), 'goblin-mcp-'));
  const client = await connect(out);
  try {
    // The SDK sends its LATEST_PROTOCOL_VERSION (and refuses an answer it does not support): the
    // server must answer with that same version.
    assert.equal(negotiated, LATEST_PROTOCOL_VERSION);
    assert.equal(negotiated, '2025-11-25');
    await client.ping();
  } finally {
    await client.close();
    rmSync(out, { recursive: true, force: true });
  }
});

// Raw stdin writes: malformed messages get JSON-RPC errors, and EOF ends the server cleanly.
test('malformed messages answered with JSON-RPC errors', async () => {
  const out = mkdtempSync(join(tmpdir(), 'goblin-mcp-'));
  const p = spawn(GOBLIN, serverArgs(out), { stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = '';
  const lines = [];
  p.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { lines.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); }
  });
  const send = (s) => p.stdin.write(s + '\n');
  send('{this is not json');
  send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));  // before initialize
  send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }));
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'no/such/method' }));
  send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'parse_config', arguments: { file_path: 42 } } }));
  send(JSON.stringify({ id: 5, method: 'ping' }));
  send('[1, 2, 3]');
  send('x'.repeat(5 * 1024 * 1024));
  send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
  p.stdin.end();
  const code = await new Promise((resolve) => p.on('close', resolve));
  rmSync(out, { recursive: true, force: true });
  assert.equal(code, 0, 'clean exit on EOF');
  const byId = (id) => lines.find((l) => l.id === id);
  const nullIds = lines.filter((l) => l.id === null).map((l) => l.error.code);
  assert.ok(nullIds.includes(-32700), 'parse error');
  assert.equal(nullIds.filter((c) => c === -32600).length, 2, 'batch and oversized line: invalid request');
  assert.equal(byId(1).error.code, -32600, 'request before initialize');
  assert.equal(byId(2).result.protocolVersion, '2025-06-18');
  assert.equal(byId(3).error.code, -32601, 'unknown method');
  assert.equal(byId(4).error.code, -32602, 'wrong argument type');
  assert.equal(byId(5).error.code, -32600, 'missing jsonrpc');
  assert.deepEqual(byId(6).result, {});
});

// The live path without a GPU: GOBLIN_AUDIT_ALLOW_NO_GPU=1 and the CPU stand-in workload
// (src/run/testdata/standin_workload.py, train.py's contract, no torch) let goblin's own live runner
// run for real, exactly as `goblin audit` does in the run module's CLI tests. Then a hanging
// workload is cancelled through the SDK (AbortSignal -> notifications/cancelled): its process
// group must die and the server must stay responsive.
test('live path (stand-in workload) and cancellation kill the workload', async () => {
  const root = mkdtempSync(join(tmpdir(), 'goblin-mcp-live-'));
  const standin = join(SRC, 'src/run/testdata/standin_workload.py');
  writeFileSync(join(root, 'train.yaml'), 'model_name: standin\nprecision: fp32\nbatch_size: 8\nseq_len: 1024\n');
  const args = ['mcp', '--allow-live', '--root', root, '--out', join(root, 'out'), '--repeats', '1'];
  const env = { ...process.env, GOBLIN_AUDIT_ALLOW_NO_GPU: '1', GOBLIN_WORKLOAD: standin };
  const open = async (extraEnv) => {
    const transport = new StdioClientTransport({ command: GOBLIN, args, env: { ...env, ...extraEnv }, stderr: 'pipe' });
    const client = new Client({ name: 'goblin-live', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  try {
    let client = await open({});
    const cfg = (await client.callTool({ name: 'parse_config', arguments: { file_path: 'train.yaml' } })).structuredContent;
    assert.equal(cfg.ok, true, cfg.error);
    const bench = (await client.callTool({ name: 'benchmark', arguments: { config: cfg.result, steps: 3 } })).structuredContent;
    assert.equal(bench.ok, true, bench.error);
    assert.equal(bench.result.goblin_run.runner, 'live');
    assert.ok(bench.result.step_time_s > 0);
    await client.close();

    const pidfile = join(root, 'hang.pid');
    client = await open({ GOBLIN_STANDIN: 'hang', STANDIN_PIDFILE: pidfile });
    const ac = new AbortController();
    const call = client.callTool({ name: 'benchmark', arguments: { config: cfg.result, steps: 3 } }, undefined,
      { signal: ac.signal, timeout: 120000 });
    let pid = 0;
    for (let i = 0; i < 200 && !pid; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (existsSync(pidfile)) pid = Number(readFileSync(pidfile, 'utf8')) || 0;
    }
    assert.ok(pid > 0, 'the hanging workload started');
    ac.abort('test cancels the live benchmark');
    await assert.rejects(call);
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      await new Promise((r) => setTimeout(r, 100));
      try { process.kill(pid, 0); } catch { alive = false; }
    }
    assert.equal(alive, false, 'the workload\'s process group was killed on cancel');
    await client.ping();  // still serving
    await client.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
