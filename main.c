/*
 * tandem: the command line (DESIGN.md §11).  It reads the settings and
 * flags, then runs the full-screen UI, or one prompt headless (-p), or a
 * subcommand (config, sessions), all on one event loop.
 */
#include "autoconf.h"

#include <getopt.h>
#include <limits.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "claude/claude.h"
#include "claude/notice.h"
#include "commands.h"
#include "config/config.h"
#include "demo.h"
#include "ev.h"
#include "event.h"
#include "wire/ccflags.h"
#include "wire/ccrun.h"
#include "wire/headless.h"
#include "wire/sjson.h"
#include "wire/acp.h"
#include "hooks.h"
#include "mcp/mcp.h"
#include "model/http.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "rules/perm.h"
#include "model/provider.h"
#include "jail/jail.h"
#include "promptcmd.h"
#include "projdefs.h"
#include "redact.h"
#include "rules/shparse.h"
#include "store/session.h"
#include "tui.h"
#include "proc.h"
#include "xalloc.h"
#include "web/web.h"

enum {
	OPT_OUTPUT_FORMAT = 256,
	OPT_PROVIDER,
	OPT_MODEL,
	OPT_BASE_URL,
	OPT_PERMISSION_MODE,
	OPT_ALLOW,
	OPT_DENY,
	OPT_MAX_TURNS,
	OPT_FORK,
	OPT_DEMO,
	OPT_THEME,
	OPT_VERSION,
	OPT_TRUST,
	OPT_SANDBOX,
	OPT_NO_MOUSE,
	OPT_PRINT,
	OPT_REWIND_TO,
	OPT_DIFF,
	OPT_FILES,
	OPT_REDO,
	OPT_DISABLE_TOOLS,
	OPT_ADD_DIR,
	OPT_EFFORT,
	OPT_MCP_CONFIG
};

static const struct option long_options[] = {
	{ "print",		optional_argument, NULL, 'p' },
	{ "output-format",	required_argument, NULL, OPT_OUTPUT_FORMAT },
	{ "provider",		required_argument, NULL, OPT_PROVIDER },
	{ "model",		required_argument, NULL, OPT_MODEL },
	{ "base-url",		required_argument, NULL, OPT_BASE_URL },
	{ "permission-mode",	required_argument, NULL, OPT_PERMISSION_MODE },
	{ "allow",		required_argument, NULL, OPT_ALLOW },
	{ "deny",		required_argument, NULL, OPT_DENY },
	{ "add-dir",		required_argument, NULL, OPT_ADD_DIR },
	{ "max-turns",		required_argument, NULL, OPT_MAX_TURNS },
	{ "continue",		no_argument,	   NULL, 'c' },
	{ "resume",		optional_argument, NULL, 'r' },
	{ "fork",		no_argument,	   NULL, OPT_FORK },
	{ "rewind-to",		required_argument, NULL, OPT_REWIND_TO },
	{ "files",		no_argument,	   NULL, OPT_FILES },
	{ "diff",		required_argument, NULL, OPT_DIFF },
	{ "redo",		no_argument,	   NULL, OPT_REDO },
	{ "disable-tools",	required_argument, NULL, OPT_DISABLE_TOOLS },
	{ "effort",		required_argument, NULL, OPT_EFFORT },
	{ "mcp-config",		required_argument, NULL, OPT_MCP_CONFIG },
	{ "demo",		no_argument,	   NULL, OPT_DEMO },
	{ "theme",		required_argument, NULL, OPT_THEME },
	{ "trust",		no_argument,	   NULL, OPT_TRUST },
	{ "sandbox",		required_argument, NULL, OPT_SANDBOX },
	{ "no-mouse",		no_argument,	   NULL, OPT_NO_MOUSE },
	{ "print-transcript",	no_argument,	   NULL, OPT_PRINT },
	{ "version",		no_argument,	   NULL, OPT_VERSION },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const char usage_text[] =
    "usage: tandem [options] [prompt]          the full-screen UI\n"
    "       tandem -p PROMPT [options]         headless: run to the end, print, exit\n"
    "       tandem config                      the effective settings and their sources\n"
    "       tandem sessions                    the saved sessions\n"
    "       tandem models                      the models the server offers\n"
    "       tandem acp                         an Agent Client Protocol agent on stdio (editors)\n"
    "       tandem mcp list|approve            the MCP servers and their tools; approve the project's\n"
    "\n"
    "  -p, --print PROMPT                 run PROMPT headless\n"
    "      --output-format text|json|events|stream-json\n"
    "      --input-format stream-json         user messages and control requests on stdin (the Agent SDKs)\n"
    "      --provider anthropic|openai\n"
    "      --model NAME\n"
    "      --effort LEVEL                 e.g. low, medium, high, max (the levels the model lists)\n"
    "      --base-url URL\n"
    "      --permission-mode ask|accept-edits|plan|yolo\n"
    "      --allow RULE, --deny RULE      e.g. 'run_bash(make test*)', 'edit_file(src/**)'\n"
    "      --add-dir DIR                  let the file tools use DIR too (repeatable)\n"
    "      --mcp-config FILE|JSON         MCP servers in Claude Code's shape (repeatable)\n"
    "      --max-turns N                  model calls per prompt\n"
    "  -c, --continue                     resume the newest session of this directory\n"
    "  -r, --resume [ID]                  resume a session (no ID: list them)\n"
    "      --fork                         with -c/-r: go on in a new session\n"
    "      --rewind-to N [--files]        with -c/-r: go back to before turn N (and its file changes)\n"
    "      --diff N                       with -c/-r: print turn N's changes as a unified diff\n"
    "      --redo                         with -c/-r: undo the last rewind\n"
    "      --disable-tools LIST           tools the model does not get, e.g. run_bash,write_file\n"
    "      --trust                        honour this project's hooks and allow rules\n"
    "      --sandbox MODE                 run commands confined: off, read-only, workspace-write\n"
    "      --demo                         offline: a scripted model on loopback\n"
    "      --theme NAME  --no-mouse  --print-transcript\n"
    "      --version  --help\n"
    "\n"
    "See tandem(1) and tandem-config(5).\n";

struct cli {
	const char	*prompt;
	bool		 headless;
	bool		 stream_json;
	bool		 cc_json;	/* --output-format stream-json: Claude Code's shapes */
	bool		 result_only;	/* --output-format json: only its result object */
	struct ccflags	 cc;
	bool		 demo;
	bool		 trust;
	bool		 no_mouse;
	bool		 print_transcript;
	const char	*subcommand;
	bool		 cont;
	bool		 resume;
	const char	*resume_id;
	bool		 fork;
	int		 rewind_to;
	int		 diff;		/* --diff N: print turn N's changes and exit */
	bool		 files;
	bool		 redo;
	const char	*mcp_what;	/* tandem mcp list|approve */
};

/* Session ids look like 20261130-014012-a1b2c3. */
static bool
looks_like_session_id(const char *s)
{
	size_t n = strlen(s), i;

	if (n != 22 || s[8] != '-' || s[15] != '-')
		return false;
	for (i = 0; i < n; i++)
		if (i != 8 && i != 15 && !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * --rewind-to or --redo without a prompt and without a terminal: a script
 * rewinding a session.  The rewind is all it asked for; the full-screen UI
 * could not start anyway.
 */
static bool
main_rewound_only(const struct cli *cli)
{
	return (cli->rewind_to > 0 || cli->redo) && cli->prompt == NULL && !cli->headless &&
	    !cli->demo && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO));
}

static int
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tandem: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nRun 'tandem --help' for the options.\n", stderr);
	return 2;
}

static int
set_flag(struct config *cfg, const char *key, const char *value)
{
	struct buf err = BUF_INIT(4096);
	int rc = config_set_flag(cfg, key, value, &err);

	if (rc == -1)
		fprintf(stderr, "tandem: --%s: %s\n", key, buf_cstr(&err));
	else if ((strcmp(key, "allow") == 0 || strcmp(key, "deny") == 0 ||
	    strcmp(key, "ask") == 0) && perm_rule_changed(value, &err))
		fprintf(stderr, "tandem: --%s: %s\n", key, buf_cstr(&err));
	buf_release(&err);
	return rc;
}

/* An allowed prefix that runs anything is said once, on stderr. */
static void
warn_runs_anything(const char *rule)
{
	struct buf why = BUF_INIT(4096);

	if (shparse_rule_runs_anything(rule, &why))
		fprintf(stderr, "tandem: --allow: %s\n", buf_cstr(&why));
	buf_release(&why);
}

static int
parse_args(int argc, char **argv, struct config *cfg, struct cli *cli)
{
	int c;

	while ((c = getopt_long(argc, argv, "p::cr::h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			cli->headless = true;
			/* Claude Code's -p is a switch: "-p --verbose" takes no flag as the prompt. */
			if (optarg == NULL && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			cli->prompt = optarg;
			break;
		case OPT_OUTPUT_FORMAT:
			if (strcmp(optarg, "events") == 0)
				cli->stream_json = true;
			else if (strcmp(optarg, "stream-json") == 0)
				cli->cc_json = true;
			else if (strcmp(optarg, "json") == 0)
				cli->cc_json = cli->result_only = true;
			else if (strcmp(optarg, "text") != 0)
				return usage_error("--output-format must be text, json, events or stream-json, not \"%s\"", optarg);
			break;
		case OPT_PROVIDER:
			if (set_flag(cfg, "provider", optarg) == -1)
				return 2;
			break;
		case OPT_MODEL:
			if (set_flag(cfg, "model", optarg) == -1)
				return 2;
			break;
		case OPT_BASE_URL:
			if (set_flag(cfg, "base_url", optarg) == -1)
				return 2;
			break;
		case OPT_PERMISSION_MODE:
			if (set_flag(cfg, "permission-mode", optarg) == -1)
				return 2;
			break;
		case OPT_ALLOW:
			if (set_flag(cfg, "allow", optarg) == -1)
				return 2;
			warn_runs_anything(optarg);
			break;
		case OPT_DENY:
			if (set_flag(cfg, "deny", optarg) == -1)
				return 2;
			break;
		case OPT_MCP_CONFIG:
			if (cfg->mcp_flags == NULL)
				cfg->mcp_flags = cJSON_CreateArray();
			cJSON_AddItemToArray(cfg->mcp_flags, cJSON_CreateString(optarg));
			break;
		case OPT_ADD_DIR:
			if (set_flag(cfg, "add-dir", optarg) == -1)
				return 2;
			break;
		case OPT_MAX_TURNS:
			if (set_flag(cfg, "max-turns", optarg) == -1)
				return 2;
			break;
		case 'c':
			cli->cont = true;
			break;
		case 'r':
			cli->resume = true;
			/* "-r ID" and "--resume ID" as well as "--resume=ID". */
			if (optarg == NULL && optind < argc && argv[optind][0] != '-' &&
			    looks_like_session_id(argv[optind]))
				optarg = argv[optind++];
			cli->resume_id = optarg;
			break;
		case OPT_FORK:
			cli->fork = true;
			break;
		case OPT_REWIND_TO: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end != '\0' || v < 1 || v > INT_MAX)
				return usage_error("--rewind-to takes a turn number, not \"%s\"", optarg);
			cli->rewind_to = (int)v;
			break;
		}
		case OPT_FILES:
			cli->files = true;
			break;
		case OPT_DIFF: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end != '\0' || v < 1 || v > INT_MAX)
				return usage_error("--diff takes a turn number, not \"%s\"", optarg);
			cli->diff = (int)v;
			break;
		}
		case OPT_REDO:
			cli->redo = true;
			break;
		case OPT_EFFORT:
			if (set_flag(cfg, "effort", optarg) == -1)
				return 2;
			break;
		case OPT_DISABLE_TOOLS:
			if (set_flag(cfg, "disabled_tools", optarg) == -1)
				return 2;
			break;
		case OPT_DEMO:
			cli->demo = true;
			break;
		case OPT_THEME:
			if (set_flag(cfg, "theme", optarg) == -1)
				return 2;
			break;
		case OPT_SANDBOX: {
			struct buf err = BUF_INIT(1024);
			int r = jail_config_flag(&cfg->sandbox, "mode", optarg, &err);

			if (r == -1)
				fprintf(stderr, "tandem: --sandbox: %s\n", buf_cstr(&err));
			buf_release(&err);
			if (r == -1)
				return 2;
			break;
		}
		case OPT_TRUST:
			cli->trust = true;
			break;
		case OPT_NO_MOUSE:
			cli->no_mouse = true;
			break;
		case OPT_PRINT:
			cli->print_transcript = true;
			break;
		case OPT_VERSION:
			printf("tandem %s\n", PACKAGE_VERSION);
			exit(0);
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			fputs("Run 'tandem --help' for the options.\n", stderr);
			return 2;
		}
	}
	if (optind < argc && cli->prompt == NULL &&
	    (strcmp(argv[optind], "config") == 0 || strcmp(argv[optind], "sessions") == 0 ||
	    strcmp(argv[optind], "models") == 0 || strcmp(argv[optind], "acp") == 0 ||
	    strcmp(argv[optind], "mcp") == 0)) {
		cli->subcommand = argv[optind];
		optind++;
		if (strcmp(cli->subcommand, "mcp") == 0)
			cli->mcp_what = optind < argc ? argv[optind++] : "list";
	}
	if (optind < argc) {
		if (cli->prompt != NULL || cli->subcommand != NULL)
			return usage_error("unexpected argument \"%s\"", argv[optind]);
		cli->prompt = argv[optind++];
	}
	if (optind < argc)
		return usage_error("unexpected argument \"%s\"", argv[optind]);
	if (cli->cc.input_stream)
		cli->headless = true;
	if (cli->cc.input_stream && !cli->cc_json)
		return usage_error("%s", "--input-format stream-json goes with --output-format stream-json");
	if (cli->cc.host_permissions && !cli->cc.input_stream)
		return usage_error("%s", "--permission-prompt-tool stdio goes with --input-format stream-json "
		    "(the host answers on stdin)");
	if (!cli->headless && (cli->cc.max_budget_usd != NULL || cli->cc.json_schema != NULL))
		return usage_error("%s", cli->cc.json_schema != NULL ? "--json-schema goes with -p" :
		    "--max-budget-usd goes with -p");
	if (cli->result_only && cli->cc.input_stream)
		return usage_error("%s", "--input-format stream-json goes with --output-format stream-json");
	if (cli->headless && !cli->cc.input_stream && (cli->prompt == NULL || cli->prompt[0] == '\0'))
		return usage_error("%s", "-p needs a prompt");
	if (cli->fork && !cli->cont && !cli->resume)
		return usage_error("%s", "--fork goes with --continue or --resume ID");
	if (cli->cont && cli->resume)
		return usage_error("%s", "use --continue or --resume, not both");
	if (cli->rewind_to > 0 && !cli->cont && !cli->resume)
		return usage_error("%s", "--rewind-to goes with --continue or --resume ID");
	if (cli->redo && !cli->cont && !cli->resume)
		return usage_error("%s", "--redo goes with --continue or --resume ID");
	if (cli->diff > 0 && !cli->cont && !cli->resume)
		return usage_error("%s", "--diff goes with --continue or --resume ID");
	if (cli->files && cli->rewind_to == 0)
		return usage_error("%s", "--files goes with --rewind-to");
	return 0;
}

/*
 * The themes: $TANDEM_THEMES, else the installed ones, else (running from
 * the build tree) the source tree's.
 */
static const char *
themes_dir(void)
{
	const char *env = getenv("TANDEM_THEMES");

	if (env != NULL && env[0] != '\0')
		return env;
	if (access(TANDEM_DATADIR "/themes", R_OK | X_OK) == 0)
		return TANDEM_DATADIR "/themes";
	return TANDEM_SRCDIR "/themes";
}

static int
run_config_command(struct config *cfg)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	claude_notices(cfg);
	config_print(cfg, &out);
	web_config_report(cfg, &out);
	fputs(buf_cstr(&out), stdout);
	buf_release(&out);
	return 0;
}

/* Anthropic with no key from anywhere: neither the environment's nor apiKeyHelper's. */
static bool
need_api_key(const struct config *cfg)
{
	return strcmp(cfg->provider, "openai") != 0 && cfg->api_key_helper == NULL &&
	    (cfg->api_key == NULL || cfg->api_key[0] == '\0');
}

struct models_cmd {
	const struct config	*cfg;
	const char		*key;
};

static struct curl_slist *
models_cmd_headers(void *arg)
{
	const struct models_cmd *m = arg;
	struct provider_request pr;

	memset(&pr, 0, sizeof pr);
	pr.proto = strcmp(m->cfg->provider, "openai") == 0 ? STREAM_OPENAI : STREAM_ANTHROPIC;
	pr.api_key = m->key;
	pr.auth_token = m->cfg->auth_token;
	pr.custom_headers = m->cfg->custom_headers;
	return provider_auth_headers(&pr);
}

/* `tandem models`: what the server offers, as a table; 1 when it does not say. */
static int
run_models_command(const struct config *cfg)
{
	struct buf err = BUF_INIT(4096), out = BUF_INIT(BUF_NOLIMIT);
	struct models_cmd mc = { cfg, cfg->api_key };
	struct modelcat_opts mo;
	struct ev_loop *loop = ev_loop_new();
	struct http *http = loop != NULL ? http_new(loop) : NULL;
	struct modelcat *cat = NULL;
	struct prices *prices = NULL;
	char *helper_key = NULL;
	cJSON *list = NULL;
	int rc = 1;

	if (http == NULL) {
		fprintf(stderr, "tandem: libcurl could not be started\n");
		goto out;
	}
	if (agent_key_helper(cfg, &helper_key, &err) == -1) {
		fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		goto out;
	}
	if (helper_key != NULL)
		mc.key = helper_key;
	prices = prices_load(NULL, cfg->prices, &err);
	if (prices == NULL) {
		fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		goto out;
	}
	memset(&mo, 0, sizeof mo);
	mo.loop = loop;
	mo.http = http;
	mo.proto = strcmp(cfg->provider, "openai") == 0 ? STREAM_OPENAI : STREAM_ANTHROPIC;
	mo.base_url = cfg->base_url != NULL ? cfg->base_url : provider_default_base(mo.proto);
	mo.home = cfg->home;
	mo.headers = models_cmd_headers;
	mo.headers_arg = &mc;
	cat = modelcat_new(&mo);
	list = modelcat_list(cat, &err);
	if (list == NULL) {
		fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		goto out;
	}
	modelcat_format(list, prices, cfg->model, &out);
	if (prices->path != NULL)
		buf_printf(&out, "Prices from %s (checked %s); \"prices\" in the settings overrides them.\n",
		    prices->path, prices->checked != NULL && prices->checked[0] != '\0' ? prices->checked : "?");
	fputs(buf_cstr(&out), stdout);
	rc = 0;
out:
	cJSON_Delete(list);
	modelcat_free(cat);
	prices_free(prices);
	http_free(http);
	if (loop != NULL)
		ev_loop_free(loop);
	free(helper_key);
	buf_release(&err);
	buf_release(&out);
	return rc;
}

/* An interrupted run (a signal, a closed terminal): where its session can be picked up. */
static void
main_resume_hint(const struct agent *agent, int rc)
{
	const char *dir = agent_session_dir(agent), *id;

	if (rc < 128 || dir == NULL || (id = strrchr(dir, '/')) == NULL)
		return;
	fprintf(stderr, "tandem: resume with: tandem --resume %s\n", id + 1);
}

/*
 * -p "/init", "/review [what]" or a custom command: its prompt, as the
 * screen expands it (built-ins first, promptcmd.h; then commands.h).
 * *prompt is left alone for any other text.  0, or -1 with the sentence on
 * stderr (/review outside a git repository).
 */
static int
main_slash_prompt(const struct config *cfg, const char **prompt, char **expanded)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(4096);
	int r;

	if (*prompt == NULL || (*prompt)[0] != '/')
		return 0;
	r = promptcmd_expand(cfg, *prompt, &out, &err);
	if (r == 1)
		r = commands_expand(cfg, *prompt, &out, &err);
	if (r == 0) {
		*expanded = buf_detach(&out, NULL);
		*prompt = *expanded;
	} else if (r == -1)
		fprintf(stderr, "tandem: %.*s: %s\n", (int)strcspn(*prompt, " \t\n"), *prompt,
		    err.len ? buf_cstr(&err) : "the command cannot be used");
	buf_release(&out);
	buf_release(&err);
	return r == -1 ? -1 : 0;
}

/* For -p: what was read and is not honoured, one line each on stderr (claude/notice.h). */
static void
main_notices(struct config *cfg)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	notice_take_new(cfg->notices, "tandem: ", &b);
	fputs(buf_cstr(&b), stderr);
	buf_release(&b);
}

int
main(int argc, char **argv)
{
	struct config cfg;
	struct cli cli;
	struct buf warnings = BUF_INIT(BUF_NOLIMIT), err = BUF_INIT(BUF_NOLIMIT);
	struct ev_loop *loop = NULL;
	struct event_bus *bus = NULL;
	struct headless *hl = NULL;
	struct sjson *sj = NULL;
	struct ccrun *run = NULL;
	struct agent *agent = NULL;
	struct demo *demo = NULL;
	char msg[1024], *newest = NULL, *slash_prompt = NULL;
	int rc;

	/* A child's keeper, once tandem's copy is dropped (proc.h): nothing else runs. */
	if (argc > 1 && strcmp(argv[1], PROC_KEEPER_ARG) == 0)
		proc_keeper_main(argc, argv);
	proc_keeper_reexec();
	setlocale(LC_ALL, "");
	memset(&cli, 0, sizeof cli);
	config_init(&cfg);
	/* Claude Code's flags first: --setting-sources decides which files are read. */
	if (ccflags_take(&argc, argv, &cli.cc, &err) == -1 ||
	    ccflags_apply(&cli.cc, &cfg, &err) == -1) {
		rc = usage_error("%s", buf_cstr(&err));
		goto out;
	}
	if (config_load(&cfg, &warnings, &err) == -1) {
		fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		rc = 2;
		goto out;
	}
	rc = parse_args(argc, argv, &cfg, &cli);
	if (rc != 0)
		goto out;
	if (cli.cc.fork)
		cli.fork = true;
	/* The settings are read: no command, hook or tool gets the keys from here on. */
	redact_add(cfg.api_key);
	redact_env_scrub();
	/* and no command, root or not, can read them out of tandem's memory */
	if (jail_drop_ptrace(&err) == -1) {
		fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		buf_reset(&err);
	}
	if (warnings.len > 0)
		fprintf(stderr, "%s", buf_cstr(&warnings));
	/* The project's agent definitions and commands whose dearer model waits for trust. */
	projdefs_hold(&cfg, getenv("HOME"));
	if (cli.subcommand != NULL && strcmp(cli.subcommand, "config") == 0) {
		rc = run_config_command(&cfg);
		goto out;
	}
	if (cli.subcommand != NULL && strcmp(cli.subcommand, "mcp") == 0) {
		struct buf mout = BUF_INIT(BUF_NOLIMIT);

		if (cli.trust && config_trust(&cfg, &err) == 0) {
			config_apply_trusted(&cfg);
			cfg.trusted = true;
		}
		buf_reset(&err);
		rc = mcp_command(&cfg, cli.mcp_what, &mout, &err) == 0 ? 0 : 2;
		fputs(buf_cstr(&mout), stdout);
		if (rc != 0)
			fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
		buf_release(&mout);
		goto out;
	}
	if (cli.subcommand != NULL && strcmp(cli.subcommand, "models") == 0) {
		rc = run_models_command(&cfg);
		goto out;
	}
	session_prune(cfg.home, cfg.retention_days);
	if ((cli.subcommand != NULL && strcmp(cli.subcommand, "acp") != 0) ||
	    (cli.resume && cli.resume_id == NULL)) {
		struct buf list = BUF_INIT(BUF_NOLIMIT);

		/* `tandem sessions`, and --resume without an id: the list to choose from. */
		session_list(cfg.home, cli.subcommand != NULL ? NULL : cfg.root, &list);
		fputs(buf_cstr(&list), stdout);
		if (cli.subcommand == NULL)
			fputs("Resume one with: tandem --resume ID\n", stdout);
		buf_release(&list);
		rc = 0;
		goto out;
	}
	if (cli.cont) {
		newest = session_newest(cfg.home, cfg.root);
		if (newest == NULL) {
			fprintf(stderr, "tandem: --continue: there is no earlier session in %s\n", cfg.root);
			rc = 2;
			goto out;
		}
		cli.resume_id = newest;
	}
	if (cli.trust && cfg.project_defines_trust_items) {
		if (config_trust(&cfg, &err) == -1) {
			fprintf(stderr, "tandem: %s\n", buf_cstr(&err));
			rc = 2;
			goto out;
		}
		config_apply_trusted(&cfg);
		cfg.trusted = true;
	} else if (cli.trust && config_trust(&cfg, &err) == 0) {
		cfg.trusted = true;	/* for the project's MCP servers (.mcp.json) */
	} else if (cfg.project_defines_trust_items && !cfg.trusted && cli.headless) {
		fprintf(stderr, "tandem: this project defines what waits for trust (hooks, allow "
		    "rules, a provider, a dearer model in its settings, agent definitions or commands; "
		    "tandem config lists them); "
		    "they are ignored (rerun with --trust to honour them)\n");
	}
	buf_reset(&warnings);
	hooks_validate(cfg.hooks, &warnings);
	if (warnings.len > 0)
		fprintf(stderr, "%s", buf_cstr(&warnings));

	loop = ev_loop_new();
	if (loop == NULL) {
		fputs("tandem: cannot create the event loop\n", stderr);
		rc = 1;
		goto out;
	}
	if (cli.demo) {
		demo = demo_start(&cfg, msg, sizeof msg);
		if (demo == NULL) {
			fprintf(stderr, "tandem: the demo could not start: %s\n", msg);
			rc = 1;
			goto out;
		}
	}
	if (need_api_key(&cfg)) {
		fputs("tandem: ANTHROPIC_API_KEY is not set: export your Anthropic API key, "
		    "or use --provider openai with a local server, or try tandem --demo\n", stderr);
		rc = 2;
		goto out;
	}
	bus = event_bus_new();
	if (cli.subcommand != NULL && strcmp(cli.subcommand, "acp") == 0) {
		rc = acp_run(loop, &cfg);
		goto out;
	}
	if (cli.headless) {
		run = ccrun_new(loop, bus, cli.cc.max_budget_usd, cli.cc.json_schema, &err);
		if (run == NULL) {
			rc = usage_error("%s", buf_cstr(&err));
			goto out;
		}
	}
	if (cli.headless && cli.cc_json) {
		struct sjson_opts so = { &cfg, cli.cc.input_stream, cli.cc.partial,
		    cli.cc.host_permissions, STDOUT_FILENO, STDIN_FILENO, cli.result_only, run };

		sj = sjson_new(loop, bus, &so);
	} else if (cli.headless) {
		hl = headless_new(loop, bus, cli.stream_json);
		headless_set_run(hl, run);
	}
	agent = agent_new(loop, bus, &cfg, cli.resume_id, cli.fork,
	    !cli.headless || cli.cc.host_permissions, msg, sizeof msg);
	if (agent == NULL) {
		fprintf(stderr, "tandem: %s\n", msg);
		rc = 1;
		goto out;
	}
	if (cli.diff > 0) {
		struct buf out = BUF_INIT(BUF_NOLIMIT), derr = BUF_INIT(4096);

		if (agent_turn_diff(agent, cli.diff, &out, &derr) == -1) {
			fprintf(stderr, "tandem: %s\n", buf_cstr(&derr));
			rc = 1;
		} else if (fwrite(out.data ? out.data : "", 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
			fprintf(stderr, "tandem: cannot write the diff: %s\n", strerror(errno));
			rc = 1;
		}
		buf_release(&out);
		buf_release(&derr);
		goto out;
	}
	if (cli.rewind_to > 0) {
		struct buf report = BUF_INIT(BUF_NOLIMIT);
		int r = agent_rewind(agent, cli.rewind_to, cli.files ? REWIND_BOTH : REWIND_CONVERSATION,
		    false, &report);

		fputs(buf_cstr(&report), stderr);
		buf_release(&report);
		if (r == -1) {
			rc = 1;
			goto out;
		}
	}
	if (cli.redo) {
		struct buf report = BUF_INIT(BUF_NOLIMIT);
		int r = agent_redo(agent, false, &report);

		fputs(buf_cstr(&report), stderr);
		buf_release(&report);
		if (r == -1) {
			rc = 1;
			goto out;
		}
	}
	if (main_rewound_only(&cli)) {
		fprintf(stderr, "tandem: %s session %s; no prompt and no terminal, so nothing more to do\n",
		    cli.redo ? "redid the rewind of" : "rewound", agent_session_id(agent));
		rc = 0;
		goto out;
	}
	if ((sj != NULL || cli.headless) && main_slash_prompt(&cfg, &cli.prompt, &slash_prompt) == -1) {
		rc = 1;
		goto out;
	}
	if (cli.headless)
		main_notices(&cfg);
	ccrun_set_agent(run, agent);
	if (cli.headless) {
		char *hp = ccflags_host_prompt(&cli.cc), *sp = ccrun_prompt(run);
		struct buf p = BUF_INIT(BUF_NOLIMIT);

		buf_printf(&p, "%s%s%s", hp != NULL ? hp : "", hp != NULL && sp != NULL ? "\n\n" : "",
		    sp != NULL ? sp : "");
		if (p.len > 0)
			agent_set_host_prompt(agent, buf_cstr(&p));
		buf_release(&p);
		free(hp);
		free(sp);
	}
	if (sj != NULL) {
		rc = sjson_run(sj, agent, cli.prompt);
		main_resume_hint(agent, rc);
	} else if (cli.headless) {
		rc = headless_run(hl, agent, cli.prompt);
		main_resume_hint(agent, rc);
	} else {
		struct tui_opts to;

		memset(&to, 0, sizeof to);
		to.theme = cfg.theme;
		to.mouse = cfg.mouse && !cli.no_mouse;
		to.print_on_exit = cli.print_transcript;
		/* The demo's workspace is gone when it ends: nothing to go on with. */
		to.no_resume_line = cli.demo;
		to.initial_prompt = cli.prompt != NULL ? cli.prompt : cli.demo ? demo_prompt() : NULL;
		to.datadir = themes_dir();
		to.cfg = &cfg;
		rc = tui_run(loop, bus, agent, &to);
	}
out:
	free(slash_prompt);
	agent_free(agent);
	headless_free(hl);
	sjson_free(sj);
	ccrun_free(run);
	event_bus_free(bus);
	demo_stop(demo);
	ev_loop_free(loop);
	config_release(&cfg);
	buf_release(&warnings);
	buf_release(&err);
	free(newest);
	return rc;
}
