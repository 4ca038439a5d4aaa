/* jail: the sandbox settings, the trust rule, the gate's auto-allow, the refusal note. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "jail/jail.h"
#include "rules/perm.h"
#include "t.h"

static void
apply(struct jail_config *c, const char *json, bool project, struct buf *warn)
{
	cJSON *j = cJSON_Parse(json);

	jail_config_apply(c, j, project ? "proj.json" : "user.json", project, warn);
	cJSON_Delete(j);
}

T_TEST(settings_and_warnings)
{
	struct jail_config c;
	struct buf w = BUF_INIT(4096), out = BUF_INIT(8192), err = BUF_INIT(1024);

	memset(&c, 0, sizeof c);
	apply(&c, "{\"mode\":\"read-only\",\"network\":\"yes\",\"allow_write\":[\"~/a\",3],"
	    "\"odd\\nkey\":1}", false, &w);
	T_CONTAINS(buf_cstr(&w), "user.json: \"sandbox.network\" must be true or false (ignored)");
	T_CONTAINS(buf_cstr(&w), "\"sandbox.allow_write\" must be an array of paths");
	T_CONTAINS(buf_cstr(&w), "\"sandbox.odd?key\" is not a sandbox setting");
	jail_config_print(&c, false, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             read-only  [user.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.auto_allow       true  [default]");
	T_CONTAINS(buf_cstr(&out), "sandbox.network          false  [default]");
	/* The flag wins. */
	T_EQ_INT(jail_config_flag(&c, "mode", "off", &err), 0);
	buf_reset(&out);
	jail_config_print(&c, false, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             off  [flag]");
	T_CONTAINS(buf_cstr(&out), "sandbox.auto_allow       false  [default]");
	T_EQ_INT(jail_config_flag(&c, "mode", "wide", &err), -1);
	T_CONTAINS(buf_cstr(&err), "must be \"off\", \"read-only\" or \"workspace-write\"");
	jail_config_release(&c);
	buf_release(&w);
	buf_release(&out);
	buf_release(&err);
}

T_TEST(untrusted_project_only_tightens)
{
	struct jail_config c;
	struct buf w = BUF_INIT(4096), out = BUF_INIT(8192);

	memset(&c, 0, sizeof c);
	apply(&c, "{\"mode\":\"workspace-write\",\"network\":true}", false, &w);
	apply(&c, "{\"mode\":\"read-only\",\"network\":true,\"auto_allow\":true,"
	    "\"allow_write\":[\"/\"],\"deny_read\":[\"secret\"]}", true, &w);
	/* A stricter mode and more hidden paths apply, trusted or not; the rest does not. */
	jail_config_print(&c, false, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             read-only  [proj.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.network          true  [user.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.auto_allow       true  [default]");
	T_CONTAINS(buf_cstr(&out), "sandbox.allow_write      []");
	T_CONTAINS(buf_cstr(&out), "sandbox.deny_read        secret");
	buf_reset(&out);
	jail_config_print(&c, true, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             read-only  [proj.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.auto_allow       true  [proj.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.allow_write      []");
	/* Off loosens (yolo would run unconfined): refused even trusted; the network off applies. */
	apply(&c, "{\"mode\":\"off\",\"network\":false}", true, &w);
	buf_reset(&out);
	jail_config_print(&c, true, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             workspace-write  [user.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.network          false  [proj.json]");
	/* The user's project_loosens: a trusted project loosens, an untrusted one still cannot. */
	apply(&c, "{\"project_loosens\":true}", false, &w);
	buf_reset(&out);
	jail_config_print(&c, false, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             workspace-write  [user.json]");
	buf_reset(&out);
	jail_config_print(&c, true, &out);
	T_CONTAINS(buf_cstr(&out), "sandbox.mode             off  [proj.json]");
	T_CONTAINS(buf_cstr(&out), "sandbox.allow_write      /  [settings]");
	/* A project cannot give itself that right. */
	buf_reset(&w);
	apply(&c, "{\"project_loosens\":true}", true, &w);
	T_CONTAINS(buf_cstr(&w), "\"sandbox.project_loosens\" is the user's to set");
	jail_config_release(&c);
	buf_release(&w);
	buf_release(&out);
}

static struct jail *
make_jail(const char *mode, bool network, const char *simulate)
{
	struct jail_config c;
	struct buf err = BUF_INIT(1024);
	struct jail *j;

	memset(&c, 0, sizeof c);
	jail_config_flag(&c, "mode", mode, &err);
	if (network)
		jail_config_flag(&c, "network", "true", &err);
	if (simulate != NULL)
		setenv("TANDEM_SANDBOX_SIMULATE", simulate, 1);
	j = jail_new(&c, true, "/nonexistent-ws", "/nonexistent-home");
	unsetenv("TANDEM_SANDBOX_SIMULATE");
	jail_config_release(&c);
	buf_release(&err);
	return j;
}

T_TEST(auto_allow_in_the_gate)
{
	struct jail *j = make_jail("read-only", false, NULL), *net = make_jail("read-only", true, NULL);
	struct jail *sim = make_jail("read-only", false, "landlock=2");
	struct perm_rules *rules = perm_rules_new();
	struct buf why = BUF_INIT(1024), err = BUF_INIT(1024);
	cJSON *in = cJSON_Parse("{\"command\":\"make test\"}");
	cJSON *git = cJSON_Parse("{\"command\":\"ls && git push\"}");
	cJSON *out = cJSON_Parse("{\"command\":\"make test\",\"sandbox\":false}");

	if (t_under_valgrind()) {
		/* valgrind 3.19 knows no Landlock system call (444-446): the probe must say so. */
		T_OK(!jail_usable(j));
		T_CONTAINS(jail_unusable(j), "Landlock");
		printf("# under valgrind the sandbox cannot run; its cases run in the plain and ASan suites\n");
		goto out;
	}
	T_OK(jail_usable(j));	/* CI's kernel has what the sandbox needs: no skip */
	T_OK(jail_auto_allow(j, rules, PERM_ASK, "run_bash", in, &why));
	T_CONTAINS(buf_cstr(&why), "sandbox (read-only, no network)");
	T_OK(jail_auto_allow(j, rules, PERM_ACCEPT_EDITS, "run_bash", in, &why));
	T_OK(!jail_auto_allow(j, rules, PERM_PLAN, "run_bash", in, &why));
	T_OK(!jail_auto_allow(j, rules, PERM_ASK, "write_file", in, &why));
	T_OK(!jail_auto_allow(j, rules, PERM_ASK, "run_bash", out, &why));
	T_OK(!jail_auto_allow(net, rules, PERM_ASK, "run_bash", in, &why));
	T_OK(!jail_usable(sim));
	T_CONTAINS(jail_unusable(sim), "Landlock ABI is 2; the sandbox needs Landlock ABI 3");
	T_OK(!jail_auto_allow(sim, rules, PERM_ASK, "run_bash", in, &why));
	/* An ask rule on any part still asks. */
	T_EQ_INT(perm_rules_add(rules, PERM_LIST_ASK, "run_bash(git push*)", &err), 0);
	T_OK(!jail_auto_allow(j, rules, PERM_ASK, "run_bash", git, &why));
	T_OK(jail_auto_allow(j, rules, PERM_ASK, "run_bash", in, &why));
	buf_reset(&why);
	jail_explain(j, "run_bash", out, &why);
	T_CONTAINS(buf_cstr(&why), "OUTSIDE the sandbox");
out:
	cJSON_Delete(in);
	cJSON_Delete(git);
	cJSON_Delete(out);
	perm_rules_free(rules);
	jail_free(j);
	jail_free(net);
	jail_free(sim);
	buf_release(&why);
	buf_release(&err);
}

T_TEST(refusal_note)
{
	struct jail *j = make_jail("workspace-write", false, NULL);
	struct buf t = BUF_INIT(65536);
	int fail = 1 << 8;	/* a wait status: exit 1 */

	if (t_under_valgrind()) {
		/* No sandbox under valgrind (see auto_allow_in_the_gate): no note either. */
		T_OK(!jail_usable(j));
		jail_free(j);
		buf_release(&t);
		return;
	}
	buf_puts(&t, "touch: cannot touch '.git/x': Read-only file system\n[exit status 0]");
	jail_note(j, 0, &t);
	T_CONTAINS(buf_cstr(&t), "[sandbox: a write was refused (Read-only file system)");
	T_CONTAINS(buf_cstr(&t), "\"sandbox\": false");
	buf_reset(&t);
	buf_puts(&t, "curl: (6) Could not resolve host: example.com\n[exit status 6]");
	jail_note(j, 6 << 8, &t);
	T_CONTAINS(buf_cstr(&t), "the network is off inside the sandbox");
	buf_reset(&t);
	/* EACCES is not guessed at, nor a clean exit's network words. */
	buf_puts(&t, "open: Permission denied\n");
	jail_note(j, fail, &t);
	T_OK(strstr(buf_cstr(&t), "[sandbox") == NULL);
	buf_reset(&t);
	buf_puts(&t, "grep found: Could not resolve host\n");
	jail_note(j, 0, &t);
	T_OK(strstr(buf_cstr(&t), "[sandbox") == NULL);
	jail_free(j);
	buf_release(&t);
}

int
main(void)
{
	T_RUN(settings_and_warnings);
	T_RUN(untrusted_project_only_tightens);
	T_RUN(auto_allow_in_the_gate);
	T_RUN(refusal_note);
	return t_done();
}
