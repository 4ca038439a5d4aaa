// The ACP SDK's client driving the real `tandem acp` for denywins.sh: one
// prompt, each permission request answered by the next option of a list
// (the last one repeats).  Prints "# ASKED <command>" per request, each
// request's and session update's JSON as "# SEEN <json>", and TAP lines
// without a plan.  Arguments: prompt, options (comma-separated),
// then tandem's own arguments after `acp`.  The session's cwd is $ACP_CWD,
// or $WS where tandem starts.
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';

const acp = await import(pathToFileURL(process.env.ACP_PATH).href);
const [prompt, optionList, ...tandemArgs] = process.argv.slice(2);
const options = optionList.split(',');
let n = 0, failed = 0;
const ok = (c, d) => { n++; if (!c) failed++; console.log(`${c ? 'ok' : 'not ok'} ${n} - ${d}`); };

const child = spawn(process.env.TANDEM, ['acp', ...tandemArgs], { cwd: process.env.WS, stdio: ['pipe', 'pipe', 'inherit'] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
let asked = 0;
const app = acp.client({ name: 'tandem-denywins' })
	.onRequest('session/request_permission', async ({ params }) => {
		const opt = options[Math.min(asked, options.length - 1)];
		asked++;
		console.log(`# SEEN ${JSON.stringify(params)}`);
		console.log(`# ASKED ${JSON.stringify(params.toolCall.rawInput.command)} -> ${opt}`);
		return { outcome: { outcome: 'selected', optionId: opt } };
	});

try {
	await app.connectWith(stream, async (ctx) => {
		await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
		const session = await ctx.buildSession({ cwd: process.env.ACP_CWD || process.env.WS, mcpServers: [] }).start();
		const done = session.prompt(prompt);
		for (;;) {
			const m = await session.nextUpdate();
			if (m.kind !== 'stop')
				console.log(`# SEEN ${JSON.stringify(m.update)}`);
			if (m.kind === 'stop') {
				ok(m.stopReason === 'end_turn', `the turn ends (${m.stopReason})`);
				break;
			}
		}
		await done;
	});
} catch (e) {
	ok(false, `the ACP run threw: ${e && e.stack ? e.stack : e}`);
}
child.stdin.end();
await new Promise((r) => { child.on('exit', r); setTimeout(r, 5000); });
process.exit(failed ? 1 : 0);
