/* Tests for lib/redact.c: secrets out of children's environments and out of text. */
#include "autoconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "redact.h"
#include "t.h"

#define KEY	"sk-ant-test-0123456789abcdef"
#define KEY2	"ghp_another_secret_value_42"

static char *
redacted(const char *s)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	redact_text(s, strlen(s), &out);
	return buf_detach(&out, NULL);
}

T_TEST(text)
{
	char *r;

	redact_reset();
	r = redacted("nothing to hide " KEY);
	T_EQ_STR(r, "nothing to hide " KEY);
	free(r);
	redact_add(KEY);
	redact_add(KEY);
	redact_add("short");
	redact_add(NULL);
	T_EQ_INT(redact_count(), 1);
	redact_add(KEY2);
	r = redacted("ANTHROPIC_API_KEY=" KEY "\nX=" KEY2 KEY "\n");
	T_EQ_STR(r, "ANTHROPIC_API_KEY=[redacted]\nX=[redacted][redacted]\n");
	free(r);
	r = redacted("sk-ant-test-0123456789abcde (one byte short)");
	T_EQ_STR(r, "sk-ant-test-0123456789abcde (one byte short)");
	free(r);
	{
		struct buf b = BUF_INIT(BUF_NOLIMIT);

		buf_puts(&b, "plain");
		T_OK(!redact_buf(&b));
		T_EQ_STR(buf_cstr(&b), "plain");
		buf_puts(&b, " " KEY);
		T_OK(redact_buf(&b));
		T_EQ_STR(buf_cstr(&b), "plain [redacted]");
		buf_release(&b);
	}
	redact_reset();
}

/* Every way of cutting text into two or three pieces gives the same result. */
T_TEST(stream_split_anywhere)
{
	static const char text[] = "a " KEY " b sk-ant-te " KEY2 "x" KEY;
	const char *want = "a [redacted] b sk-ant-te [redacted]x[redacted]";
	struct redact_stream rs = REDACT_STREAM_INIT;
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	size_t n = strlen(text), i, j;

	redact_reset();
	redact_add(KEY);
	redact_add(KEY2);
	for (i = 0; i <= n; i++)
		for (j = i; j <= n; j += 3) {
			buf_reset(&out);
			redact_stream_feed(&rs, text, i, &out);
			redact_stream_feed(&rs, text + i, j - i, &out);
			redact_stream_feed(&rs, text + j, n - j, &out);
			redact_stream_flush(&rs, &out);
			if (strcmp(buf_cstr(&out), want) != 0) {
				T_FAIL("cut at %zu and %zu: %s", i, j, buf_cstr(&out));
				i = n + 1;
				break;
			}
		}
	/* One byte at a time; what may begin a key is held, nothing more. */
	buf_reset(&out);
	for (i = 0; i < n; i++)
		redact_stream_feed(&rs, text + i, 1, &out);
	T_OK(rs.hold.len < sizeof(KEY));
	redact_stream_flush(&rs, &out);
	T_EQ_STR(buf_cstr(&out), want);
	buf_reset(&out);
	redact_stream_feed(&rs, "ends with sk-ant", 16, &out);
	T_EQ_STR(buf_cstr(&out), "ends with ");
	redact_stream_flush(&rs, &out);
	T_EQ_STR(buf_cstr(&out), "ends with sk-ant");
	redact_stream_release(&rs);
	buf_release(&out);
	redact_reset();
}

T_TEST(stream_to_fd)
{
	struct redact_stream rs = REDACT_STREAM_INIT;
	char path[] = "/tmp/tandem-redact-XXXXXX", got[256];
	int fd = mkstemp(path);
	ssize_t n;

	T_OK(fd != -1);
	redact_reset();
	redact_add(KEY);
	redact_stream_write(&rs, fd, "k=sk-ant-test-01234", 19);
	redact_stream_write(&rs, fd, "56789abcdef;", 12);
	redact_stream_write(&rs, fd, "tail sk-", 8);
	redact_stream_write_flush(&rs, fd);
	n = pread(fd, got, sizeof(got) - 1, 0);
	T_OK(n > 0);
	got[n > 0 ? n : 0] = '\0';
	T_EQ_STR(got, "k=[redacted];tail sk-");
	close(fd);
	unlink(path);
	redact_stream_release(&rs);
	redact_reset();
}

T_TEST(env_names)
{
	redact_reset();
	T_OK(redact_env_removed("ANTHROPIC_API_KEY"));
	T_OK(redact_env_removed("OPENAI_API_KEY"));
	T_OK(redact_env_removed("ANTHROPIC_AUTH_TOKEN"));
	T_OK(!redact_env_removed("PATH"));
	T_OK(!redact_env_removed("AWS_SECRET_ACCESS_KEY"));
	redact_env_remove("AWS_*");
	redact_env_remove("*_TOKEN");
	T_OK(redact_env_removed("AWS_SECRET_ACCESS_KEY"));
	T_OK(redact_env_removed("GITHUB_TOKEN"));
	redact_env_keep("GITHUB_*");
	redact_env_keep("OPENAI_API_KEY");
	T_OK(!redact_env_removed("GITHUB_TOKEN"));
	T_OK(redact_env_removed("NPM_TOKEN"));
	T_OK(!redact_env_removed("OPENAI_API_KEY"));
	redact_reset();
}

/* Scrubbed: gone from the environment, from children, from /proc, yet saved. */
T_TEST(env_scrub)
{
	struct buf env = BUF_INIT(BUF_NOLIMIT);
	int p[2], status;
	char chunk[4096];
	const char *got;
	ssize_t n;
	pid_t pid;

	redact_reset();
	setenv("ANTHROPIC_API_KEY", KEY, 1);
	setenv("TANDEM_TEST_SECRET", KEY2, 1);
	setenv("TANDEM_TEST_PLAIN", "visible-value", 1);
	redact_env_remove("TANDEM_TEST_S*");
	T_EQ_INT(redact_env_scrub(), 2);
	T_OK(getenv("ANTHROPIC_API_KEY") == NULL);
	T_OK(getenv("TANDEM_TEST_SECRET") == NULL);
	T_EQ_STR(getenv("TANDEM_TEST_PLAIN"), "visible-value");
	T_EQ_STR(redact_env_saved("ANTHROPIC_API_KEY"), KEY);
	T_EQ_STR(redact_env_saved("TANDEM_TEST_SECRET"), KEY2);
	T_OK(redact_env_saved("ANTHROPIC_API") == NULL);
	T_EQ_INT(redact_count(), 2);
	T_EQ_INT(redact_env_scrub(), 0);
	/* Set again later: a child still does not get it. */
	setenv("TANDEM_TEST_SECRET", "set-after-the-scrub", 1);
	T_OK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		redact_env_child();
		execl("/usr/bin/env", "env", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
		buf_append(&env, chunk, (size_t)n);
	close(p[0]);
	got = buf_cstr(&env);
	T_OK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	T_OK(strstr(got, "TANDEM_TEST_PLAIN=visible-value") != NULL);
	T_OK(strstr(got, "TANDEM_TEST_SECRET") == NULL);
	T_OK(strstr(got, "ANTHROPIC_API_KEY") == NULL);
	unsetenv("TANDEM_TEST_SECRET");
	unsetenv("TANDEM_TEST_PLAIN");
	buf_release(&env);
	redact_reset();
}

/* Words shaped like keys go, known secrets go, the rest of the sentence stays. */
T_TEST(keylike)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	redact_reset();
	buf_puts(&b, "vault: token sk-ant-api03-bd67c8be98b66e14 has expired "
	    "(/usr/local/bin/vault-helper, ANTHROPIC_API_KEY_FILE, wJalrXUtnFEMI/K7MDENG/bPxRfi)");
	T_OK(redact_keylike(&b));
	T_EQ_STR(buf_cstr(&b), "vault: token [redacted] has expired "
	    "(/usr/local/bin/vault-helper, ANTHROPIC_API_KEY_FILE, [redacted])");
	buf_reset(&b);
	/* 15 characters, or one kind of character only: a word */
	buf_puts(&b, "abc123def456ghi abcdefghijklmnopqrstuvwxyz 0123456789012345678");
	T_OK(!redact_keylike(&b));
	T_EQ_STR(buf_cstr(&b), "abc123def456ghi abcdefghijklmnopqrstuvwxyz 0123456789012345678");
	buf_reset(&b);
	redact_add("secret.value.known");
	buf_puts(&b, "got secret.value.known, abc123def456ghi7");
	T_OK(redact_keylike(&b));
	T_EQ_STR(buf_cstr(&b), "got [redacted], [redacted]");
	buf_release(&b);
	redact_reset();
}

int
main(void)
{
	T_RUN(text);
	T_RUN(stream_split_anywhere);
	T_RUN(stream_to_fd);
	T_RUN(env_names);
	T_RUN(env_scrub);
	T_RUN(keylike);
	return t_done();
}
