// The official Agent SDK's query() driving the real tandem through two
// subagents (subagents.sh starts the mock): the subagents' messages carry
// parent_tool_use_id, the agent call is Claude Code's Agent, the answer
// is the parent's.  Prints TAP lines without a plan.
import { pathToFileURL } from 'node:url';

const { query } = await import(pathToFileURL(process.env.SDK_PATH).href);
let n = 0;
const ok = (c, d) => { n++; console.log(`${c ? 'ok' : 'not ok'} ${n} - ${d}`); };

const msgs = [];
const q = query({
	prompt: 'find both marks',
	options: { pathToClaudeCodeExecutable: process.env.TANDEM, cwd: process.env.WS },
});
for await (const m of q)
	msgs.push(m);
const top = msgs.filter((m) => m.type === 'assistant' && m.parent_tool_use_id === null);
const calls = top.flatMap((m) => m.message.content.filter((b) => b.type === 'tool_use'));
ok(calls.length === 2 && calls.every((b) => b.name === 'Agent' && b.input.subagent_type === 'Explore'),
    `the parent's calls are Agent calls (${calls.map((b) => b.name).join(',')})`);
for (const id of ['toolu_A', 'toolu_B']) {
	const mine = msgs.filter((m) => m.parent_tool_use_id === id);
	const uses = mine.filter((m) => m.type === 'assistant').flatMap((m) => m.message.content)
	    .filter((b) => b.type === 'tool_use');
	const results = mine.filter((m) => m.type === 'user').flatMap((m) => m.message.content)
	    .filter((b) => b.type === 'tool_result');
	ok(uses.length === 1 && uses[0].name === 'Grep', `${id}'s subagent called Grep (${JSON.stringify(uses)})`);
	ok(results.length === 1 && results[0].tool_use_id === uses[0]?.id,
	    `${id}'s subagent's result is its call's, under ${id}`);
	ok(mine.some((m) => m.type === 'assistant' && m.message.content.some((b) => b.type === 'text')),
	    `${id}'s subagent's answer is a message under ${id}`);
}
const topResults = msgs.filter((m) => m.type === 'user' && m.parent_tool_use_id === null)
    .flatMap((m) => m.message.content).filter((b) => b.type === 'tool_result');
ok(topResults.some((b) => b.tool_use_id === 'toolu_A' && /ALPHA is in alpha\.c/.test(b.content)),
    'the Agent call toolu_A got its subagent\'s answer, at the top level');
const result = msgs.find((m) => m.type === 'result');
ok(result && result.result === 'Both found.' && result.subtype === 'success', 'the parent\'s answer is the result');
