// The ACP SDK's client (@agentclientprotocol/sdk) driving the real
// `tandem acp` over its stdio (acp.sh starts the mock and sets the
// environment).  Prints TAP lines without a plan; acp.sh counts them.
// Argument: phase (session | load SESSION_ID | mcp | never | web | plan | sub | subload SESSION_ID).
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { readFileSync, existsSync } from 'node:fs';

const acp = await import(pathToFileURL(process.env.ACP_PATH).href);
const tandem = process.env.TANDEM;
const ws = process.env.WS;
const [phase, loadId] = process.argv.slice(2);
let n = 0, failed = 0;
const ok = (c, d) => { n++; if (!c) failed++; console.log(`${c ? 'ok' : 'not ok'} ${n} - ${d}`); };

const child = spawn(tandem, ['acp'], { cwd: ws, stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => { stderr += d; });
// The raw lines, in the order tandem wrote them.
let raw = '';
child.stdout.on('data', (d) => { raw += d; });
const exited = new Promise((r) => child.on('exit', (code, sig) => r({ code, sig, at: Date.now() })));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

// Permission requests: answered by the policy of the moment.
const asked = [];
let policy = 'allow_once';
let cancelledAnswered = null;
let releaseCancelled = null;
const app = acp.client({ name: 'tandem-test' })
	.onRequest('session/request_permission', async ({ params }) => {
		asked.push(params);
		if (policy === 'hold') {
			// The client holds its answer until the prompt is cancelled, then says cancelled.
			await new Promise((r) => { releaseCancelled = r; });
			cancelledAnswered = true;
			return { outcome: { outcome: 'cancelled' } };
		}
		return { outcome: { outcome: 'selected', optionId: typeof policy === 'function' ? policy(params) : policy } };
	})
	.onRequest('fs/read_text_file', async () => ({ content: '' }))
	.onRequest('fs/write_text_file', async () => ({}));

async function collect(session, content) {
	const done = session.prompt(content);
	const updates = [];
	for (;;) {
		const m = await session.nextUpdate();
		if (m.kind === 'stop')
			return { updates, stop: m.stopReason, done };
		updates.push(m.update);
	}
}

async function sessionPhase(ctx) {
	const init = await ctx.request('initialize', {
		protocolVersion: 1,
		clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
	});
	ok(init.protocolVersion === 1 && init.agentCapabilities && init.agentCapabilities.loadSession === true,
	    'initialize: protocol 1, loadSession');
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [] }).start();
	ok(typeof session.sessionId === 'string' && session.sessionId.length > 0, 'session/new gives a session id');
	const modes = session.modes;
	ok(modes && modes.currentModeId === 'ask' && modes.availableModes.some((m) => m.id === 'accept-edits'),
	    'session/new lists the modes');
	console.log(`# SESSION ${session.sessionId}`);

	// 1. A streamed answer, with a thought.
	let r = await collect(session, 'say hello');
	const text = r.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => u.content.text).join('');
	ok(text === 'Hello from tandem over ACP.', `the answer streams as agent_message_chunk (${JSON.stringify(text)})`);
	ok(r.updates.filter((u) => u.sessionUpdate === 'agent_message_chunk').length > 1, 'in more than one chunk');
	ok(r.updates.filter((u) => u.sessionUpdate === 'agent_thought_chunk').map((u) => u.content.text).join('') === 'Thinking it over.',
	    'the thinking comes as agent_thought_chunk');
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);

	// 2. An edit: its diff, a permission request allowed once.
	r = await collect(session, 'edit the notes');
	const call = r.updates.find((u) => u.sessionUpdate === 'tool_call');
	ok(call && call.kind === 'edit' && call.title === 'Edit notes.txt', `tool_call: kind edit, a title (${call && call.title})`);
	const diff = call && call.content && call.content[0];
	ok(diff && diff.type === 'diff' && diff.path === `${ws}/notes.txt` && diff.oldText === 'hello' &&
	    diff.newText === 'bye', 'its content is the diff, with an absolute path');
	ok(asked.length === 1 && asked[0].toolCall.toolCallId === call.toolCallId &&
	    asked[0].options.map((o) => o.kind).join(',') === 'allow_once,allow_always,reject_once,reject_always',
	    'session/request_permission with the four options');
	const upd = r.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === call.toolCallId);
	ok(upd.some((u) => u.status === 'completed'), 'tool_call_update: completed');
	ok(readFileSync(`${ws}/notes.txt`, 'utf8') === 'bye\n', 'the edit was made');
	ok(r.stop === 'end_turn', 'stopReason end_turn');

	// 3. A command; the client holds the permission request; cancel.
	policy = 'hold';
	const before = asked.length;
	const p3 = collect(session, 'run the cleanup');
	while (asked.length === before)
		await new Promise((res) => setTimeout(res, 20));
	const exec = asked[asked.length - 1];
	ok(exec.toolCall.kind === 'execute' && exec.toolCall.rawInput.command === 'touch cleaned',
	    'a command asks with kind execute');
	await ctx.notify('session/cancel', { sessionId: session.sessionId });
	releaseCancelled();
	r = await p3;
	ok(r.stop === 'cancelled', `after session/cancel the prompt returns cancelled (${r.stop})`);
	ok(cancelledAnswered === true, 'the pending permission request was answered cancelled');
	ok(!existsSync(`${ws}/cleaned`), 'the command did not run');
	const failedCall = r.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
	ok(failedCall, 'the cancelled tool call is failed');

	// 4. set_mode accept-edits: an edit goes without asking.
	policy = 'reject_once';
	await ctx.request('session/set_mode', { sessionId: session.sessionId, modeId: 'accept-edits' });
	const asked4 = asked.length;
	r = await collect(session, [
		{ type: 'text', text: 'write the plan' },
		{ type: 'resource', resource: { uri: `file://${ws}/spec.md`, text: 'SPEC: be brief', mimeType: 'text/markdown' } },
		{ type: 'resource_link', uri: `file://${ws}/notes.txt`, name: 'notes.txt' },
	]);
	ok(r.updates.concat(updatesSeen.map((x) => x.update)).some((u) => u.sessionUpdate === 'current_mode_update' &&
	    u.currentModeId === 'accept-edits'), 'set_mode is told as current_mode_update');
	ok(asked.length === asked4, 'in accept-edits no permission is asked for an edit');
	ok(readFileSync(`${ws}/plan.md`, 'utf8') === 'the plan\n', 'the write was made');
	const w = r.updates.find((u) => u.sessionUpdate === 'tool_call');
	ok(w && w.content[0].type === 'diff' && w.content[0].path === `${ws}/plan.md` && w.content[0].oldText === null &&
	    w.content[0].newText === 'the plan\n', 'a new file\'s diff has oldText null');
	ok(r.stop === 'end_turn', 'stopReason end_turn');

	// 5. yolo: a command runs at once, its live output in tool_call_update.
	await ctx.request('session/set_mode', { sessionId: session.sessionId, modeId: 'yolo' });
	const asked5 = asked.length;
	r = await collect(session, 'run the echo');
	const run = r.updates.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
	ok(run && run.title === 'Run `echo live output`', `a command's tool_call (${run && run.title})`);
	ok(asked.length === asked5, 'in yolo nothing is asked');
	ok(r.updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress' &&
	    u.content && /live output/.test(u.content[0].content.text)), 'its live output: in_progress with the text');
	ok(r.updates.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed' &&
	    /live output/.test(u.content[0].content.text)), 'then completed with the output');

	// 6. Errors.
	let err = null;
	try { await ctx.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'x' }] }); } catch (e) { err = e; }
	ok(err && err.code === -32002, `a prompt for an unknown session is an error (${err && err.code})`);
	err = null;
	try { await ctx.request('no/such_method', {}); } catch (e) { err = e; }
	ok(err && err.code === -32601, `an unknown method: method not found (${err && err.code})`);
}

async function loadPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	// Updates before the response: collected by a raw notification handler set up front.
	const res = await ctx.request('session/load', { sessionId: loadId, cwd: ws, mcpServers: [] });
	const after = updatesSeen.length;
	ok(res && res.modes && res.modes.currentModeId, 'session/load answers with the modes');
	const texts = updatesSeen.map((u) => u.update.sessionUpdate + ':' + (u.update.content && u.update.content.text || ''));
	ok(texts.includes('user_message_chunk:say hello'), 'the history was replayed: the first prompt');
	ok(texts.some((t) => t.startsWith('agent_message_chunk:Hello from tandem')), 'and its answer');
	ok(updatesSeen.some((u) => u.update.sessionUpdate === 'tool_call' && u.update.kind === 'edit'), 'and the edit');
	const lines = raw.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
	const reply = lines.findIndex((m) => m.result && m.result.modes);
	const lastUpdate = lines.map((m) => m.method).lastIndexOf('session/update');
	ok(after > 0 && reply > 0 && lastUpdate >= 0 && lastUpdate < reply,
	    `all before session/load replied (the last update at line ${lastUpdate}, the reply at ${reply})`);
}

async function mcpPhase(ctx) {
	const init = await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	ok(init.agentCapabilities.mcpCapabilities && init.agentCapabilities.mcpCapabilities.http === true,
	    'initialize: MCP over http is offered');
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [
		{ name: 'every', command: 'node', args: [process.env.EVERY, 'stdio'], env: [{ name: 'ACP_TEST', value: '1' }] },
	] }).start();
	ok(typeof session.sessionId === 'string' && session.sessionId.length > 0, 'session/new with an MCP server');
	const r = await collect(session, 'echo through mcp');
	const call = r.updates.find((u) => u.sessionUpdate === 'tool_call' && /echo/.test(JSON.stringify(u)));
	ok(call, 'the MCP echo shows as a tool call');
	ok(asked.length === 1, `the MCP call asked for permission (${asked.length})`);
	const done = r.updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
	ok(done && /acp says hi/.test(JSON.stringify(done)), 'the echo completed with its result');
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);
	ok(!/were not started/.test(stderr), 'no sentence about servers not started');
}

// reject_always: the call is denied, and the same call again is denied without asking.
async function neverPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [] }).start();
	policy = 'reject_always';
	const r = await collect(session, 'touch it twice');
	ok(asked.length === 1 && asked[0].toolCall.rawInput.command === 'touch nope',
	    `reject_always: one permission request for the two same calls (${asked.length})`);
	const failedCalls = r.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
	ok(failedCalls.length === 2, `reject_always: both calls failed (${failedCalls.length})`);
	ok(!existsSync(`${ws}/nope`), 'reject_always: the command never ran');
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);
}

// The web tools: kind fetch, a title with the URL or the query, asked and completed.
async function webPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [] }).start();
	policy = 'allow_once';
	const r = await collect(session, 'read the web');
	const calls = r.updates.filter((u) => u.sessionUpdate === 'tool_call');
	const f = calls.find((u) => u.title === `Fetch ${process.env.WEB_URL}`);
	ok(f && f.kind === 'fetch', `web_fetch: a tool_call of kind fetch titled with its URL (${f && f.title})`);
	const s = calls.find((u) => u.title === 'Search the web: tandem news');
	ok(s && s.kind === 'fetch', `web_search: kind fetch, titled with its query (${s && s.title})`);
	ok(asked.length === 2 && asked.every((a) => a.toolCall.kind === 'fetch'), `both asked for permission (${asked.length})`);
	const done = r.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
	ok(done.some((u) => /Plain markdown/.test(JSON.stringify(u))), 'the fetch completed with the page');
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);
}

// Plan mode: the todo list as plan updates, two questions and a plan through request_permission.
async function planPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [] }).start();
	await ctx.request('session/set_mode', { sessionId: session.sessionId, modeId: 'plan' });
	policy = (params) => /^\[Color\]/.test(params.toolCall.title) ? 'answer_1' :
	    /^\[Toppings\]/.test(params.toolCall.title) ? 'answer_2' : 'plan_accept_edits';
	const r = await collect(session, 'plan with todos');
	const plans = r.updates.filter((u) => u.sessionUpdate === 'plan');
	const st = plans.map((u) => u.entries.map((e) => e.status).join(','));
	ok(plans.length === 3 && st[0] === 'in_progress,pending' && st[1] === 'completed,in_progress' &&
	    st[2] === 'completed,completed', `plan updates follow the entries' status (${st.join(' | ')})`);
	ok(plans.every((u) => u.entries.every((e) => e.content && e.priority === 'medium')),
	    'each entry has content and priority');
	const qs = asked.filter((a) => /^\[/.test(a.toolCall.title));
	ok(qs.length === 2 && qs[0].toolCall.title === '[Color] Which color?' &&
	    qs[0].options.map((o) => o.optionId).join(',') === 'answer_0,answer_1,answer_2,decline',
	    'a question asks with an option each and decline');
	ok(qs[1] && /\(pick one\)$/.test(qs[1].toolCall.title) && qs[0].options[1].name === 'Green: calm',
	    'a multi-select says only one can be picked; options show label and description');
	const pl = asked.find((a) => a.toolCall.title === 'Approve the plan');
	ok(pl && pl.toolCall.kind === 'switch_mode' && /Paint it green/.test(pl.toolCall.content[0].content.text) &&
	    pl.options.map((o) => o.optionId).join(',') === 'plan_accept_edits,plan_ask,plan_keep',
	    'the plan asks for approval with the plan shown and three choices');
	ok(r.updates.some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'accept-edits'),
	    'approving into accept-edits is told as current_mode_update');
	ok(asked.length === 3, `the edit after the plan asked nothing (${asked.length} requests)`);
	ok(readFileSync(`${ws}/notes.txt`, 'utf8') === 'green\n', 'the edit was made');
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);
}

// Subagents: each agent call is a tool call whose progress is its subagent's calls.
async function subPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	const session = await ctx.buildSession({ cwd: ws, mcpServers: [] }).start();
	console.log(`# SESSION ${session.sessionId}`);
	const r = await collect(session, 'find both marks');
	for (const id of ['toolu_A', 'toolu_B']) {
		const call = r.updates.find((u) => u.sessionUpdate === 'tool_call' && u.toolCallId === id);
		ok(call && call.kind === 'think', `the agent call ${id} is a tool call of kind think (${call && call.kind})`);
		const upd = r.updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === id);
		ok(upd.some((u) => /Explore · Grep/.test(JSON.stringify(u))), `${id}'s progress shows its subagent's Grep`);
		ok(upd.some((u) => u.status === 'completed' && /is in (alpha|beta)\.c/.test(JSON.stringify(u))),
		    `${id} completes with its subagent's answer`);
	}
	ok(r.stop === 'end_turn', `stopReason end_turn (${r.stop})`);
}

// A loaded session's agent calls: their subagents' calls come as progress before the result, as live.
async function subloadPhase(ctx) {
	await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
	await ctx.request('session/load', { sessionId: loadId, cwd: ws, mcpServers: [] });
	for (const id of ['toolu_A', 'toolu_B']) {
		const upd = updatesSeen.map((u) => u.update).filter((u) => u.toolCallId === id);
		const grep = upd.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress' &&
		    /Explore · Grep/.test(JSON.stringify(u)));
		const done = upd.findIndex((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed' &&
		    /is in (alpha|beta)\.c/.test(JSON.stringify(u)));
		ok(upd.length > 0 && upd[0].sessionUpdate === 'tool_call', `load: ${id} is replayed as a tool call`);
		ok(grep > 0 && done > grep, `load: ${id}'s subagent's Grep is its progress, then its answer (${grep}, ${done})`);
	}
}

const updatesSeen = [];
app.onNotification('session/update', ({ params }) => { updatesSeen.push({ update: params.update, at: Date.now() }); });

try {
	await app.connectWith(stream, async (ctx) => {
		if (phase === 'load') {
			await loadPhase(ctx);
		} else if (phase === 'mcp') {
			await mcpPhase(ctx);
		} else if (phase === 'plan') {
			await planPhase(ctx);
		} else if (phase === 'never') {
			await neverPhase(ctx);
		} else if (phase === 'web') {
			await webPhase(ctx);
		} else if (phase === 'sub') {
			await subPhase(ctx);
		} else if (phase === 'subload') {
			await subloadPhase(ctx);
		} else {
			await sessionPhase(ctx);
		}
	});
} catch (e) {
	ok(false, `the ACP run threw: ${e && e.stack ? e.stack : e}`);
}
child.stdin.end();
const ex = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 5000))]);
ok(ex && ex.code === 0, `tandem acp exits 0 when its stdin ends (${ex && ex.code})`);
if (failed)
	console.log(`# stderr: ${stderr.slice(0, 3000).replace(/\n/g, '\n# ')}`);
if (!ex)
	child.kill('SIGKILL');
process.exit(failed ? 1 : 0);
