// The official Agent SDK's query() driving the real tandem (sdk.sh starts
// the mock and sets the environment).  Prints TAP lines without a plan;
// sdk.sh counts them.  Argument: phase (conversation | rules | mcp | mcpinit).
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const sdkPath = process.env.SDK_PATH;
const tandem = process.env.TANDEM;
const ws = process.env.WS;
const phase = process.argv[2];
let n = 0, failed = 0;
const ok = (c, d) => { n++; if (!c) failed++; console.log(`${c ? 'ok' : 'not ok'} ${n} - ${d}`); };

const { query } = await import(pathToFileURL(sdkPath).href);

// A prompt stream whose next message waits until the test lets it go.
function prompts(list) {
	let release = null;
	const gate = () => new Promise((r) => { release = r; });
	let waiting = gate();
	const it = (async function* () {
		for (const text of list) {
			yield { type: 'user', session_id: '', parent_tool_use_id: null,
			    message: { role: 'user', content: [{ type: 'text', text }] } };
			await waiting;
			waiting = gate();
		}
	})();
	return { it, next: () => release && release() };
}

async function conversation() {
	const p = prompts(['say hello', 'edit the notes', 'run the cleanup', 'a slow one']);
	const asked = [];
	const stderr = [];
	const q = query({
		prompt: p.it,
		options: {
			pathToClaudeCodeExecutable: tandem,
			cwd: ws,
			model: 'claude-sonnet-4-5',
			maxTurns: 5,
			includePartialMessages: true,
			stderr: (s) => stderr.push(s),
			canUseTool: async (name, input, opts) => {
				asked.push({ name, input, id: opts.toolUseID });
				if (name === 'Edit')
					return { behavior: 'allow', updatedInput: { ...input, new_string: 'bye from the host' } };
				return { behavior: 'deny', message: 'no commands today' };
			},
		},
	});
	const results = [], msgs = [];
	let interruptedAt = 0, endedAt = 0, interruptAnswered = false;
	for await (const m of q) {
		msgs.push(m);
		if (m.type === 'result') {
			results.push(m);
			if (results.length === 4)
				endedAt = Date.now();
			p.next();
		}
		// The fourth turn: interrupt as soon as its model call is under way.
		if (results.length === 3 && m.type === 'system' && m.subtype === 'init' && !interruptedAt) {
			interruptedAt = Date.now();
			setTimeout(async () => {
				try { await q.interrupt(); interruptAnswered = true; } catch (e) { console.log(`# interrupt: ${e}`); }
			}, 300);
		}
	}
	const closedAt = Date.now();
	const inits = msgs.filter((m) => m.type === 'system' && m.subtype === 'init');
	ok(inits.length === 4, `a system/init per turn (${inits.length})`);
	ok(inits[0] && inits[0].cwd === ws && Array.isArray(inits[0].tools) && inits[0].tools.includes('Bash') &&
	    inits[0].tools.includes('Edit') && Array.isArray(inits[0].mcp_servers) && inits[0].permissionMode === 'default',
	    'init: cwd, Claude Code tool names, mcp_servers, permissionMode');
	ok(inits[0] && inits[0].model === 'claude-sonnet-4-5', 'init: the model the SDK asked for');
	ok(results.length === 4, `four results (${results.length})`);
	ok(results[0] && results[0].subtype === 'success' && results[0].result === 'Hello from tandem.' &&
	    !results[0].is_error, 'turn 1: success with the answer');
	ok(results.every((r) => typeof r.session_id === 'string' && r.session_id.length > 0 &&
	    typeof r.uuid === 'string' && 'permission_denials' in r && 'modelUsage' in r &&
	    typeof r.total_cost_usd === 'number' && typeof r.duration_ms === 'number' && r.usage),
	    'results carry session_id, uuid, usage, modelUsage, total_cost_usd, permission_denials');
	ok(msgs.every((m) => typeof m.uuid === 'string' && 'session_id' in m && 'parent_tool_use_id' in m),
	    'every message has uuid, session_id, parent_tool_use_id');
	ok(new Set(results.map((r) => r.session_id)).size === 1, 'one session across the turns');
	const edit = asked.find((a) => a.name === 'Edit');
	ok(edit && edit.input.file_path === `${ws}/notes.txt` && edit.input.old_string === 'hello',
	    'canUseTool saw Edit with an absolute file_path');
	let notes = '';
	try { notes = readFileSync(`${ws}/notes.txt`, 'utf8'); } catch (e) { notes = String(e); }
	ok(notes === 'bye from the host\n', `the edit ran with the host's updated input (${JSON.stringify(notes)})`);
	ok(results[1] && results[1].subtype === 'success' && results[1].result === 'Edited.', 'turn 2: success');
	const bash = asked.find((a) => a.name === 'Bash');
	ok(bash && bash.input.command === 'touch cleaned', 'canUseTool saw Bash with its command');
	ok(results[2] && results[2].permission_denials.length === 1 &&
	    results[2].permission_denials[0].tool_name === 'Bash' &&
	    results[2].permission_denials[0].tool_input.command === 'touch cleaned',
	    'turn 3: the denial is in permission_denials');
	const denied = msgs.find((m) => m.type === 'user' && m.message.content[0].is_error &&
	    /no commands today/.test(m.message.content[0].content));
	ok(denied, 'the model got the host\'s deny message as an error result');
	let cleaned = true;
	try { readFileSync(`${ws}/cleaned`); } catch { cleaned = false; }
	ok(!cleaned, 'the denied command did not run');
	ok(interruptAnswered, 'interrupt() was answered');
	ok(results[3] && results[3].subtype === 'error_during_execution' && results[3].is_error &&
	    Array.isArray(results[3].errors), 'turn 4: the interrupt ends it as error_during_execution');
	ok(endedAt - interruptedAt < 3000, `the interrupted turn ended at once (${endedAt - interruptedAt} ms)`);
	ok(closedAt - endedAt < 5000, `tandem exited within the SDK's grace after the input ended (${closedAt - endedAt} ms)`);
	const ev = msgs.filter((m) => m.type === 'stream_event');
	ok(ev.some((m) => m.event.type === 'content_block_delta' && m.event.delta.type === 'text_delta'),
	    'partial messages: text deltas as stream_event');
	const assistants = msgs.filter((m) => m.type === 'assistant');
	ok(assistants.some((m) => m.message.content.some((b) => b.type === 'tool_use' && b.name === 'Edit' &&
	    b.input.file_path === `${ws}/notes.txt`)), 'the assistant message names the tool Edit with file_path');
	if (failed)
		for (const r of results)
			console.log(`# result: ${JSON.stringify(r.errors)}`);
	if (failed)
		console.log(`# stderr: ${stderr.join('').slice(0, 2000).replace(/\n/g, '\n# ')}`);
}

async function rules() {
	// The host rewrites an allowed edit into one the rules deny: checked again, refused.
	const asked = [];
	const q = query({
		prompt: 'edit the notes',
		options: {
			pathToClaudeCodeExecutable: tandem,
			cwd: ws,
			disallowedTools: ['Edit(secret.txt)'],
			canUseTool: async (name, input) => {
				asked.push(name);
				return { behavior: 'allow', updatedInput: { ...input, file_path: `${ws}/secret.txt`, old_string: 'key' } };
			},
		},
	});
	const msgs = [];
	for await (const m of q)
		msgs.push(m);
	const res = msgs.find((m) => m.type === 'result');
	let secret = '';
	try { secret = readFileSync(`${ws}/secret.txt`, 'utf8'); } catch (e) { secret = String(e); }
	ok(asked.length === 1 && asked[0] === 'Edit', 'the host was asked about the edit');
	ok(secret === 'key\n', 'the rewritten input the rules deny did not run');
	const r = msgs.find((m) => m.type === 'user' && m.message.content[0].is_error);
	ok(r && /denied by rule/.test(r.message.content[0].content), 'the model was told the rule denied it');
	ok(res && res.subtype === 'success', 'the turn still ends as a success');
}

async function mcp(argv) {
	// The SDK's mcpServers option reaches tandem as --mcp-config JSON (argv), or by
	// default in the initialize request under --await-initialize.
	const options = {
		pathToClaudeCodeExecutable: tandem,
		cwd: ws,
		mcpServers: { every: { type: 'stdio', command: 'node', args: [process.env.EVERY, 'stdio'] } },
		allowedTools: ['mcp__every__echo'],
	};
	if (argv)
		options.mcpServersDelivery = 'argv';
	const q = query({ prompt: 'echo through MCP', options });
	const msgs = [];
	let status = null, later = null;
	for await (const m of q) {
		msgs.push(m);
		if (m.type === 'system' && m.subtype === 'init' && status === null) {
			try { status = await q.mcpServerStatus(); } catch (e) { status = String(e); }
		}
		if (m.type === 'user' && later === null) {
			try { later = await q.mcpServerStatus(); } catch (e) { later = String(e); }
		}
	}
	const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
	ok(init && init.mcp_servers.length === 1 && init.mcp_servers[0].name === 'every' &&
	    ['pending', 'connected'].includes(init.mcp_servers[0].status), 'init lists the server with its status');
	ok(Array.isArray(status) && status.length === 1 && status[0].name === 'every' && status[0].status,
	    `mcpServerStatus answers with the server (${JSON.stringify(status)})`);
	ok(Array.isArray(later) && later.length === 1 && later[0].status === 'connected',
	    `after the call the server is connected (${JSON.stringify(later)})`);
	const r = msgs.find((m) => m.type === 'user' && Array.isArray(m.message.content) &&
	    m.message.content[0].type === 'tool_result');
	ok(r && !r.message.content[0].is_error && /sdk says hi/.test(JSON.stringify(r.message.content[0].content)),
	    'the MCP echo ran and its result came back');
	const res = msgs.find((m) => m.type === 'result');
	ok(res && res.subtype === 'success', 'the turn ends as a success');
}

async function plan() {
	// Plan mode: the host answers AskUserQuestion (answers in updatedInput, as
	// Claude Code's SDK sends them) and approves ExitPlanMode; TodoWrite is named so.
	const asked = [];
	const q = query({
		prompt: 'plan and ask',
		options: {
			pathToClaudeCodeExecutable: tandem,
			cwd: ws,
			permissionMode: 'plan',
			canUseTool: async (name, input) => {
				asked.push({ name, input });
				if (name === 'AskUserQuestion')
					return { behavior: 'allow', updatedInput: { ...input,
					    answers: { [input.questions[0].question]: input.questions[0].options[1].label } } };
				if (name === 'ExitPlanMode' || name === 'Edit')
					return { behavior: 'allow', updatedInput: input };
				return { behavior: 'deny', message: 'not this' };
			},
		},
	});
	const msgs = [];
	for await (const m of q)
		msgs.push(m);
	const init = msgs.find((m) => m.type === 'system' && m.subtype === 'init');
	ok(init && ['TodoWrite', 'AskUserQuestion', 'ExitPlanMode'].every((t) => init.tools.includes(t)) &&
	    init.permissionMode === 'plan', 'init: TodoWrite, AskUserQuestion, ExitPlanMode, in plan mode');
	const ask = asked.find((a) => a.name === 'AskUserQuestion');
	ok(ask && ask.input.questions.length === 1 && ask.input.questions[0].header === 'Color' &&
	    ask.input.questions[0].options.length === 3 && ask.input.questions[0].multiSelect === false,
	    'canUseTool saw AskUserQuestion in its shape (header, options, multiSelect)');
	const plan = asked.find((a) => a.name === 'ExitPlanMode');
	ok(plan && /# The plan/.test(plan.input.plan), 'canUseTool saw ExitPlanMode with the plan');
	ok(!asked.some((a) => a.name === 'TodoWrite'), 'TodoWrite asks nobody');
	const results = msgs.filter((m) => m.type === 'user' && Array.isArray(m.message.content))
	    .flatMap((m) => m.message.content).filter((b) => b.type === 'tool_result');
	const text = (b) => typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
	const answer = results.find((b) => b.tool_use_id === 'toolu_q1');
	ok(answer && !answer.is_error && /"Which color\?" -> Green/.test(text(answer)),
	    `the answer went back as the tool's result (${answer && text(answer)})`);
	const approved = results.find((b) => b.tool_use_id === 'toolu_x1');
	ok(approved && !approved.is_error && /approved the plan/.test(text(approved)), 'the plan was approved');
	const edit = results.find((b) => b.tool_use_id === 'toolu_pe1');
	ok(edit && !edit.is_error, 'after the approval the edit could run (plan mode is over)');
	const assistants = msgs.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content);
	ok(assistants.some((b) => b.type === 'tool_use' && b.name === 'TodoWrite' && Array.isArray(b.input.todos)),
	    'the assistant message names the tool TodoWrite with its todos');
	const res = msgs.find((m) => m.type === 'result');
	ok(res && res.subtype === 'success' && res.result === 'PLANNED', 'the turn ends as a success');
}

try {
	if (phase === 'plan')
		await plan();
	else if (phase === 'conversation')
		await conversation();
	else if (phase === 'mcp')
		await mcp(true);
	else if (phase === 'mcpinit')
		await mcp(false);
	else
		await rules();
} catch (e) {
	ok(false, `the SDK run threw: ${e && e.stack ? e.stack : e}`);
}
process.exit(failed ? 1 : 0);
