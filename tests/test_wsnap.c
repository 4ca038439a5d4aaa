/* Unit tests of wsnap: the stat index, the store, the changes and their restore. */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "ev.h"
#include "json.h"
#include "redact.h"
#include "store/session.h"
#include "sha256.h"
#include "t.h"
#include "t_tree.h"
#include "store/wsnap.h"
#include "xalloc.h"

static char base[256], home[512];

static char *
get(const char *rel)
{
	static char data[4096];
	char *p = t_tree_at("/%s", rel);
	FILE *f;
	size_t n;

	f = fopen(p, "r");
	free(p);
	if (f == NULL)
		return NULL;
	n = fread(data, 1, sizeof data - 1, f);
	data[n] = '\0';
	fclose(f);
	return data;
}

static void
sh(const char *cmd)
{
	struct buf b = BUF_INIT(8192);

	buf_printf(&b, "cd '%s' && %s", root, cmd);
	if (system(buf_cstr(&b)) != 0)
		T_FAIL("failed: %s", cmd);
	buf_release(&b);
}

/* A fresh workspace and home; the settings' defaults. */
static struct wsnap *
fresh(struct wsnap_settings *set)
{
	struct wsnap_settings d = WSNAP_SETTINGS_DEFAULT;

	t_tree_remove(base);
	mkdir(base, 0700);
	mkdir(root, 0755);
	mkdir(home, 0700);
	if (set->max_files == 0)
		*set = d;
	return NULL;
}

static const cJSON *
change(const cJSON *ch, const char *path)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, ch)
		if (strcmp(json_str(f, "path", ""), path) == 0)
			return f;
	return NULL;
}

/* Run cmd between wsnap_before and wsnap_after; the changes (caller frees). */
static cJSON *
around(struct wsnap *ws, const char *cmd, bool *git)
{
	struct buf err = BUF_INIT(4096);
	bool g;
	cJSON *ch;

	T_EQ_INT(wsnap_before(ws, &err), 0);
	if (cmd != NULL)
		sh(cmd);
	ch = wsnap_after(ws, git != NULL ? git : &g, NULL, &err);
	T_OK(ch != NULL);
	buf_release(&err);
	return ch;
}

static cJSON *
as_record(cJSON *ch)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "by", "run_bash");
	cJSON_AddItemToObject(rec, "files", ch);
	return rec;
}

T_TEST(an_unchanged_tree_is_not_read_again)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	cJSON *ch;

	fresh(&set);
	puts_file("a.txt", "one\n");
	puts_file("b.txt", "two\n");
	ws = wsnap_new(home, root, NULL, &set);
	T_OK(ws != NULL);
	ch = around(ws, NULL, NULL);
	T_EQ_INT(wsnap_last_read(ws), 0);	/* wsnap_after read nothing: nothing changed */
	T_EQ_INT(cJSON_GetArraySize(ch), 0);
	T_EQ_INT((int)wsnap_count(ws), 2);
	cJSON_Delete(ch);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	T_EQ_INT(wsnap_last_read(ws), 0);
	wsnap_free(ws);
}

T_TEST(the_first_snapshot_reads_everything_and_stores_it)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	char hex[SHA256_HEX_LEN + 1], p[1024];

	fresh(&set);
	puts_file("a.txt", "one\n");
	ws = wsnap_new(home, root, NULL, &set);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	T_EQ_INT(wsnap_last_read(ws), 4);
	sha256_hex("one\n", 4, hex);
	snprintf(p, sizeof p, "%s/%s", wsnap_store(ws), hex);
	T_OK(access(p, R_OK) == 0);
	T_OK(strncmp(wsnap_store(ws), home, strlen(home)) == 0);
	wsnap_free(ws);
}

T_TEST(changes_are_named_by_kind)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	const cJSON *f;
	cJSON *ch;

	fresh(&set);
	puts_file("a.txt", "one\n");
	puts_file("gone.txt", "bye\n");
	puts_file("x.sh", "#!/bin/sh\n");
	sh("chmod 644 x.sh && mkdir old && ln -s a.txt ln");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, "echo two >>a.txt; echo n >new.txt; rm gone.txt; mkdir -p d/e; chmod 755 x.sh;"
	    " rmdir old; ln -sfn new.txt ln", NULL);
	f = change(ch, "a.txt");
	T_OK(f != NULL && strcmp(json_str(f, "before", ""), json_str(f, "after", "")) != 0);
	f = change(ch, "new.txt");
	T_OK(f != NULL && json_str(f, "was", NULL) == NULL && strcmp(json_str(f, "now", ""), "file") == 0);
	f = change(ch, "gone.txt");
	T_OK(f != NULL && json_str(f, "now", NULL) == NULL && json_str(f, "before", NULL) != NULL);
	f = change(ch, "d/e");
	T_OK(f != NULL && strcmp(json_str(f, "now", ""), "dir") == 0);
	f = change(ch, "x.sh");
	T_OK(f != NULL && json_int(f, "mode_before", 0) == 0644 && json_int(f, "mode_after", 0) == 0755);
	f = change(ch, "old");
	T_OK(f != NULL && strcmp(json_str(f, "was", ""), "dir") == 0 && json_str(f, "now", NULL) == NULL);
	f = change(ch, "ln");
	T_OK(f != NULL && strcmp(json_str(f, "now", ""), "link") == 0);
	/* sorted by path: parents first */
	T_EQ_STR(json_str(cJSON_GetArrayItem(ch, 0), "path", ""), "a.txt");
	T_EQ_STR(json_str(cJSON_GetArrayItem(ch, 1), "path", ""), "d");
	T_EQ_STR(json_str(cJSON_GetArrayItem(ch, 2), "path", ""), "d/e");
	{
		/* the browser's lines */
		struct buf b = BUF_INIT(65536);
		cJSON *rec = as_record(ch);

		cJSON_AddStringToObject(rec, "id", "toolu_1");
		wsnap_describe(rec, NULL, &b);
		T_CONTAINS(buf_cstr(&b), "  run_bash:\n");
		T_CONTAINS(buf_cstr(&b), "    + new.txt  created\n");
		T_CONTAINS(buf_cstr(&b), "    - gone.txt  deleted\n");
		T_CONTAINS(buf_cstr(&b), "    + d/e/  created\n");
		T_CONTAINS(buf_cstr(&b), "    - old/  deleted\n");
		T_CONTAINS(buf_cstr(&b), "    m x.sh  mode 644 -> 755\n");
		T_CONTAINS(buf_cstr(&b), "    ~ a.txt  changed\n");
		buf_release(&b);
		ch = NULL;
		cJSON_Delete(rec);
	}
	wsnap_free(ws);
}

T_TEST(ctime_catches_a_restored_mtime)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	cJSON *ch;

	fresh(&set);
	puts_file("a.txt", "abc\n");
	sh("touch -d '2001-01-01 00:00:00' a.txt");
	ws = wsnap_new(home, root, NULL, &set);
	/* same size, the old mtime put back: only ctime tells */
	ch = around(ws, "printf 'xyz\\n' >a.txt && touch -d '2001-01-01 00:00:00' a.txt", NULL);
	T_OK(change(ch, "a.txt") != NULL);
	cJSON_Delete(ch);
	wsnap_free(ws);
}

T_TEST(an_mtime_at_or_after_the_snapshot_is_hashed_again)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;

	fresh(&set);
	puts_file("future.txt", "f\n");
	puts_file("past.txt", "p\n");
	sh("touch -d '+1 hour' future.txt && touch -d '2001-01-01' past.txt");
	ws = wsnap_new(home, root, NULL, &set);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	/* past.txt is not read again, future.txt is (its mtime is after the snapshot's time) */
	T_EQ_INT(wsnap_last_read(ws), 2);
	wsnap_free(ws);
}

T_TEST(ignored_fifos_and_oversized_are_indexed_not_kept)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	const cJSON *f;
	cJSON *ch;

	fresh(&set);
	set.max_file_mb = 1;
	puts_file(".gitignore", "*.log\nbuild/\n");
	puts_file("x.log", "old\n");
	sh("mkdir build && echo o >build/o");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, "echo new >>x.log; mkfifo pipe; head -c 1100000 /dev/zero >big; echo p >build/p", NULL);
	f = change(ch, "x.log");
	T_OK(f != NULL);
	T_EQ_STR(json_str(f, "lost", ""), "both");
	T_CONTAINS(json_str(f, "why", ""), "ignored");
	/* a FIFO has no content to keep: it is restorable */
	f = change(ch, "pipe");
	T_OK(f != NULL && strcmp(json_str(f, "now", ""), "fifo") == 0);
	T_OK(json_str(f, "lost", NULL) == NULL);
	f = change(ch, "big");
	T_OK(f != NULL);
	T_CONTAINS(json_str(f, "why", ""), "max_file_mb");
	/* an ignored directory is one entry: what is in it is not walked */
	T_OK(change(ch, "build/p") == NULL);
	cJSON_Delete(ch);
	wsnap_free(ws);
}

T_TEST(the_file_budget_is_a_note)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	cJSON *ch;

	fresh(&set);
	set.max_files = 3;
	sh("for i in 1 2 3 4 5 6; do echo $i >f$i; done");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, NULL, NULL);
	T_OK(wsnap_note(ws) != NULL);
	T_CONTAINS(wsnap_note(ws), "snapshots.max_files");
	T_EQ_INT((int)wsnap_count(ws), 3);
	/* what the walk did not reach is not taken for deleted */
	T_EQ_INT(cJSON_GetArraySize(ch), 0);
	cJSON_Delete(ch);
	wsnap_free(ws);
}

T_TEST(undo_and_redo_round_trip)
{
	struct wsnap_settings set = { 0 };
	struct buf rep = BUF_INIT(65536);
	struct wsnap *ws;
	cJSON *rec;

	fresh(&set);
	puts_file("a.txt", "one\n");
	puts_file("gone.txt", "bye\n");
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "echo two >>a.txt; rm gone.txt; mkdir d; echo x >d/x; chmod 600 a.txt", NULL));
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	T_EQ_STR(get("a.txt"), "one\n");
	T_EQ_STR(get("gone.txt"), "bye\n");
	T_OK(get("d/x") == NULL);
	T_OK(access("d", F_OK) != 0);
	T_EQ_INT(wsnap_restore(ws, rec, false, false, &rep), 0);
	T_EQ_STR(get("a.txt"), "one\ntwo\n");
	T_EQ_STR(get("d/x"), "x\n");
	T_OK(get("gone.txt") == NULL);
	cJSON_Delete(rec);
	buf_release(&rep);
	wsnap_free(ws);
}

T_TEST(a_changed_file_is_left_alone_unless_forced)
{
	struct wsnap_settings set = { 0 };
	struct buf rep = BUF_INIT(65536);
	struct wsnap *ws;
	cJSON *rec;

	fresh(&set);
	puts_file("a.txt", "one\n");
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "echo two >>a.txt", NULL));
	puts_file("a.txt", "user\n");
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 1);
	T_EQ_STR(get("a.txt"), "user\n");
	T_CONTAINS(buf_cstr(&rep), "a.txt changed since");
	T_EQ_INT(wsnap_restore(ws, rec, true, true, &rep), 0);
	T_EQ_STR(get("a.txt"), "one\n");
	cJSON_Delete(rec);
	buf_release(&rep);
	wsnap_free(ws);
}

T_TEST(a_hard_link_is_not_written_through)
{
	struct wsnap_settings set = { 0 };
	struct buf rep = BUF_INIT(65536), p = BUF_INIT(4096);
	struct wsnap *ws;
	cJSON *rec;
	FILE *f;
	char got[64] = "";

	fresh(&set);
	buf_printf(&p, "%s/outside", base);
	f = fopen(buf_cstr(&p), "w");
	fputs("one\n", f);
	fclose(f);
	sh("ln ../outside h");
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "echo two >>h", NULL));
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	T_EQ_STR(get("h"), "one\n");
	f = fopen(buf_cstr(&p), "r");
	T_OK(f != NULL && fread(got, 1, sizeof got - 1, f) > 0);
	fclose(f);
	/* the file outside keeps what the command wrote: the name was replaced, not written */
	T_EQ_STR(got, "one\ntwo\n");
	cJSON_Delete(rec);
	buf_release(&rep);
	buf_release(&p);
	wsnap_free(ws);
}

/* The inode of rel, or 0. */
static unsigned long
ino_of(const char *rel)
{
	char *p = t_tree_at("/%s", rel);
	struct stat st;
	unsigned long ino = stat(p, &st) == 0 ? (unsigned long)st.st_ino : 0;

	free(p);
	return ino;
}

T_TEST(hard_links_come_back_as_links)
{
	struct wsnap_settings set = { 0 };
	struct buf rep = BUF_INIT(65536);
	struct wsnap *ws;
	cJSON *rec, *f;

	fresh(&set);
	puts_file("a", "one\n");
	sh("ln a b && mkfifo -m 640 p");
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "rm b p", NULL));
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	T_EQ_STR(get("b"), "one\n");
	T_OK(ino_of("a") == ino_of("b"));
	T_CONTAINS(buf_cstr(&rep), "restored b (a hard link of a)");
	{
		char *p = t_tree_at("/p");
		struct stat st;

		T_OK(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode) && (st.st_mode & 07777) == 0640);
		free(p);
	}
	cJSON_Delete(rec);
	/* a link broken with the bytes kept: recorded, named, and linked again */
	rec = as_record(around(ws, "cp b a.new && mv a.new a", NULL));
	T_OK(change(json_get(rec, "files"), "a") != NULL);
	buf_reset(&rep);
	wsnap_describe(rec, NULL, &rep);
	T_CONTAINS(buf_cstr(&rep), "~ a  hard links changed");
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	T_OK(ino_of("a") == ino_of("b"));
	T_EQ_INT(wsnap_restore(ws, rec, false, false, &rep), 0);
	T_OK(ino_of("a") != ino_of("b"));
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	cJSON_Delete(rec);
	/* a file given a new inode with no link before or after: no change */
	rec = as_record(around(ws, "echo x >c", NULL));
	cJSON_Delete(rec);
	rec = as_record(around(ws, "cp c c.new && mv c.new c", NULL));
	T_EQ_INT(cJSON_GetArraySize(json_get(rec, "files")), 0);
	cJSON_Delete(rec);
	/* a record without the names (of an older tandem) gives a copy, as it did */
	rec = as_record(around(ws, "rm b p", NULL));
	T_OK(get("b") == NULL);
	cJSON_ArrayForEach(f, json_get(rec, "files"))
		cJSON_DeleteItemFromObject(f, "links_before");
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 0);
	T_EQ_STR(get("b"), "one\n");
	T_OK(ino_of("a") != ino_of("b"));
	cJSON_Delete(rec);
	buf_release(&rep);
	wsnap_free(ws);
}

T_TEST(a_socket_is_named_not_restorable)
{
	struct wsnap_settings set = { 0 };
	struct sockaddr_un sa;
	struct buf rep = BUF_INIT(65536);
	struct wsnap *ws;
	const cJSON *f;
	cJSON *rec;
	char *p;
	int fd;

	fresh(&set);
	p = t_tree_at("/sock");
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	T_OK(strlen(p) < sizeof sa.sun_path);
	memcpy(sa.sun_path, p, strlen(p));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	T_OK(fd != -1 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
	close(fd);
	free(p);
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "rm sock", NULL));
	f = change(json_get(rec, "files"), "sock");
	T_OK(f != NULL);
	T_EQ_STR(json_str(f, "lost", ""), "before");
	T_CONTAINS(json_str(f, "why", ""), "a socket");
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 1);
	T_CONTAINS(buf_cstr(&rep), "sock: not restorable (a socket");
	cJSON_Delete(rec);
	buf_release(&rep);
	wsnap_free(ws);
}

T_TEST(a_planted_link_cannot_lead_outside)
{
	struct wsnap_settings set = { 0 };
	struct buf rep = BUF_INIT(65536), away = BUF_INIT(4096);
	struct wsnap *ws;
	cJSON *rec;

	fresh(&set);
	sh("mkdir src && echo g >src/g");
	ws = wsnap_new(home, root, NULL, &set);
	rec = as_record(around(ws, "rm src/g", NULL));
	sh("rmdir src && mkdir -p ../away && ln -s ../away src");
	T_EQ_INT(wsnap_restore(ws, rec, true, false, &rep), 1);
	buf_printf(&away, "%s/away/g", base);
	T_OK(access(buf_cstr(&away), F_OK) != 0);
	T_CONTAINS(buf_cstr(&rep), "src/g: ");
	/* forced, it still does not leave the workspace */
	T_EQ_INT(wsnap_restore(ws, rec, true, true, &rep), 1);
	T_OK(access(buf_cstr(&away), F_OK) != 0);
	cJSON_Delete(rec);
	buf_release(&rep);
	buf_release(&away);
	wsnap_free(ws);
}

T_TEST(a_git_change_is_flagged)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	bool git = false;
	cJSON *ch;

	fresh(&set);
	puts_file("a.txt", "one\n");
	if (system("git --version >/dev/null 2>&1") != 0) {
		printf("# git not found: skipped\n");
		return;
	}
	sh("git init -q . && git add a.txt && git -c user.email=t@t -c user.name=t commit -qm one");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, "git checkout -q -b other", &git);
	T_OK(git);
	cJSON_Delete(ch);
	ch = around(ws, "echo two >>a.txt", &git);
	T_OK(!git);
	cJSON_Delete(ch);
	wsnap_free(ws);
}

static uint64_t
store_size(const char *dir)
{
	struct buf b = BUF_INIT(4096);
	uint64_t n = 0;
	FILE *p;

	buf_printf(&b, "du -sb --apparent-size '%s' | cut -f1", dir);
	p = popen(buf_cstr(&b), "r");
	if (p != NULL && fscanf(p, "%llu", (unsigned long long *)&n) != 1)
		n = 0;
	if (p != NULL)
		pclose(p);
	buf_release(&b);
	return n;
}

T_TEST(the_store_is_pruned_to_its_budget)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	char hex[SHA256_HEX_LEN + 1], p[1024];
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };

	fresh(&set);
	set.store_mb = 4;
	sh("head -c 700000 /dev/urandom >r1; head -c 700000 /dev/urandom >r2; echo small >s");
	ws = wsnap_new(home, root, NULL, &set);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	sha256_hex("small\n", 6, hex);
	snprintf(p, sizeof p, "%s/%s", wsnap_store(ws), hex);
	T_OK(access(p, F_OK) == 0);
	T_OK(store_size(wsnap_store(ws)) > 1400000);
	utimensat(AT_FDCWD, p, old, 0);
	wsnap_free(ws);
	/* a budget of 1 MB: the oldest content goes first, down to three quarters */
	set.store_mb = 1;
	ws = wsnap_new(home, root, NULL, &set);
	T_OK(access(p, F_OK) != 0);
	T_OK(store_size(wsnap_store(ws)) <= 1 << 20);
	/* and what does not fit any more is not kept, and said */
	sh("head -c 900000 /dev/urandom >r3");
	{
		cJSON *ch = around(ws, NULL, NULL);

		T_EQ_INT(cJSON_GetArraySize(ch), 0);
		cJSON_Delete(ch);
	}
	T_OK(store_size(wsnap_store(ws)) <= 1 << 20);
	wsnap_free(ws);
}

T_TEST(the_first_snapshot_runs_in_the_loop)
{
	struct wsnap_settings set = { 0 };
	struct ev_loop *loop = ev_loop_new();
	struct wsnap *ws;
	char hex[SHA256_HEX_LEN + 1], p[1024];
	int i;

	fresh(&set);
	puts_file("a.txt", "warm\n");
	ws = wsnap_new(home, root, NULL, &set);
	wsnap_warm(ws, loop);
	T_OK(wsnap_warming(ws));
	for (i = 0; i < 100 && wsnap_warming(ws); i++)
		ev_run_once(loop, 50);
	T_OK(!wsnap_warming(ws));
	sha256_hex("warm\n", 5, hex);
	snprintf(p, sizeof p, "%s/%s", wsnap_store(ws), hex);
	T_OK(access(p, F_OK) == 0);
	/* the snapshot before a command has nothing left to read */
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	T_EQ_INT(wsnap_last_read(ws), 0);
	wsnap_free(ws);
	ev_loop_free(loop);
}

T_TEST(a_file_holding_a_secret_is_not_copied)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	const cJSON *f;
	cJSON *ch;
	char hex[SHA256_HEX_LEN + 1], p[1024];

	fresh(&set);
	redact_add("sk-test-0123456789abcdef");
	puts_file("key.txt", "the key is sk-test-0123456789abcdef\n");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, "echo more >>key.txt", NULL);
	f = change(ch, "key.txt");
	T_OK(f != NULL);
	T_EQ_STR(json_str(f, "lost", ""), "both");
	T_CONTAINS(json_str(f, "why", ""), "secret");
	sha256_hex("the key is sk-test-0123456789abcdef\n", 36, hex);
	snprintf(p, sizeof p, "%s/%s", wsnap_store(ws), hex);
	T_OK(access(p, F_OK) != 0);
	cJSON_Delete(ch);
	wsnap_free(ws);
	redact_reset();
}

T_TEST(a_directory_ignored_since_is_not_deleted)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *ws;
	cJSON *ch;

	fresh(&set);
	sh("mkdir build && echo o >build/o && echo x >x.txt");
	ws = wsnap_new(home, root, NULL, &set);
	ch = around(ws, "echo build/ >.gitignore; rm x.txt", NULL);
	T_OK(change(ch, "build/o") == NULL);
	T_OK(change(ch, ".gitignore") != NULL);
	T_OK(change(ch, "x.txt") != NULL);
	cJSON_Delete(ch);
	wsnap_free(ws);
}

/*
 * The walk on four threads (forced, on a tree small enough for one)
 * sees exactly what one thread sees: the same changes, byte for byte,
 * over a tree deep and wide enough to be handed between threads.
 */
T_TEST(four_threads_see_what_one_sees)
{
	struct wsnap_settings set = { 0 };
	struct wsnap *w1, *w4;
	char home4[600];
	char *j1, *j4;
	cJSON *c1, *c4;
	bool g1, g4;

	fresh(&set);
	snprintf(home4, sizeof home4, "%s/home4", base);
	mkdir(home4, 0700);
	sh("printf 'build/\\n*.o\\n' >.gitignore && mkdir -p build && echo o >build/x.o && "
	    "for d in $(seq 1 40); do mkdir -p d$d/e/f; "
	    "for f in $(seq 1 12); do echo $d.$f >d$d/f$f.c; echo $f >d$d/e/g$f; done; "
	    "echo deep >d$d/e/f/deep; ln -s f1.c d$d/link; done");
	setenv("TANDEM_WSNAP_THREADS", "1", 1);
	w1 = wsnap_new(home, root, NULL, &set);
	T_EQ_INT(wsnap_before(w1, NULL), 0);
	setenv("TANDEM_WSNAP_THREADS", "4", 1);
	w4 = wsnap_new(home4, root, NULL, &set);
	T_EQ_INT(wsnap_before(w4, NULL), 0);
	T_EQ_INT((int)wsnap_count(w1), (int)wsnap_count(w4));
	sh("for d in $(seq 1 40 | awk 'NR%3==0'); do echo changed >>d$d/f2.c; rm d$d/e/g3; "
	    "mkdir d$d/new; echo n >d$d/new/n.c; chmod 755 d$d/f4.c; ln -sf f5.c d$d/link; done; "
	    "rm -r d7/e; echo x >build/y.o; echo secret >.env");
	setenv("TANDEM_WSNAP_THREADS", "1", 1);
	c1 = wsnap_after(w1, &g1, NULL, NULL);
	setenv("TANDEM_WSNAP_THREADS", "4", 1);
	c4 = wsnap_after(w4, &g4, NULL, NULL);
	T_OK(c1 != NULL && c4 != NULL);
	j1 = cJSON_PrintUnformatted(c1);
	j4 = cJSON_PrintUnformatted(c4);
	T_EQ_INT(cJSON_GetArraySize(c1), 13 * 6 + 14 + 2);
	T_EQ_STR(j4, j1);
	T_EQ_INT((int)wsnap_count(w1), (int)wsnap_count(w4));
	free(j1);
	free(j4);
	cJSON_Delete(c1);
	cJSON_Delete(c4);
	wsnap_free(w1);
	wsnap_free(w4);
	unsetenv("TANDEM_WSNAP_THREADS");
}

/* The hash of the file rel holds now. */
static void
hash_of(const char *rel, char hex[SHA256_HEX_LEN + 1])
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	char *p = t_tree_at("/%s", rel), chunk[65536];
	size_t n;
	FILE *f = fopen(p, "r");

	free(p);
	T_OK(f != NULL);
	while (f != NULL && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	if (f != NULL)
		fclose(f);
	sha256_hex(b.data != NULL ? b.data : "", b.len, hex);
	buf_release(&b);
}

static bool
in_store(const struct wsnap *ws, const char *name)
{
	struct buf p = BUF_INIT(BUF_NOLIMIT);
	bool there;

	buf_printf(&p, "%s/%s", wsnap_store(ws), name);
	there = access(buf_cstr(&p), F_OK) == 0;
	buf_release(&p);
	return there;
}

/* Put n bytes of junk under a hash-like name in the store, as old as t (0: now). */
static void
junk(const struct wsnap *ws, int i, size_t n, time_t t)
{
	char p[1024];
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };
	FILE *f;

	snprintf(p, sizeof p, "%s/%064d", wsnap_store(ws), i);
	f = fopen(p, "w");
	T_OK(f != NULL);
	while (f != NULL && n-- > 0)
		fputc('j', f);
	if (f != NULL)
		fclose(f);
	if (t != 0)
		utimensat(AT_FDCWD, p, ts, 0);
}

static void
age(const struct wsnap *ws, const char *name, time_t t)
{
	char p[1024];
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	snprintf(p, sizeof p, "%s/%s", wsnap_store(ws), name);
	T_EQ_INT(utimensat(AT_FDCWD, p, ts, 0), 0);
}

static struct session *
new_session(void)
{
	struct buf err = BUF_INIT(4096);
	struct session *s = session_create(home, root, "m", NULL, &err);

	if (s == NULL)
		T_FAIL("session_create: %s", buf_cstr(&err));
	buf_release(&err);
	return s;
}

/* The last "files" record of sess, or NULL. */
static const cJSON *
last_record(const struct session *sess)
{
	const cJSON *f = session_files(sess);
	int n = cJSON_GetArraySize(f);

	return n > 0 ? cJSON_GetArrayItem(f, n - 1) : NULL;
}

/*
 * Session one's command rewrites big.bin: its record needs the old
 * content (A0, the store's oldest) and the new (A1), kb each.
 */
static struct wsnap *
first_session(struct wsnap_settings *set, int kb, struct session **s1, char a0[SHA256_HEX_LEN + 1],
    char a1[SHA256_HEX_LEN + 1])
{
	struct buf cmd = BUF_INIT(4096);
	struct wsnap *ws;

	fresh(set);
	set->store_mb = 8;
	buf_printf(&cmd, "head -c %d /dev/urandom >big.bin", kb * 1000);
	sh(buf_cstr(&cmd));
	hash_of("big.bin", a0);
	*s1 = new_session();
	ws = wsnap_new(home, root, *s1, set);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	sh(buf_cstr(&cmd));
	buf_release(&cmd);
	T_EQ_INT(wsnap_record(ws, 1, "toolu_1", "run_bash"), 0);
	hash_of("big.bin", a1);
	T_OK(last_record(*s1) != NULL);
	T_OK(in_store(ws, a0) && in_store(ws, a1));
	age(ws, a0, 1000000);
	age(ws, a1, 2000000);
	return ws;
}

T_TEST(pruning_keeps_what_another_sessions_record_needs)
{
	struct wsnap_settings set = { 0 };
	struct session *s1, *s2;
	struct wsnap *ws1, *ws2;
	struct buf rep = BUF_INIT(BUF_NOLIMIT);
	char a0[SHA256_HEX_LEN + 1], a1[SHA256_HEX_LEN + 1], p[1024];
	int i;

	ws1 = first_session(&set, 300, &s1, a0, a1);
	snprintf(p, sizeof p, "%s/refs/%s", wsnap_store(ws1), session_id(s1));
	T_OK(access(p, F_OK) == 0);
	/* newer content no record names: 800 KB of it */
	for (i = 1; i <= 4; i++)
		junk(ws1, i, 200000, 3000000 + i);
	/* a second session of the root starts, with a budget of 1 MB (the store holds 1.4) */
	set.store_mb = 1;
	s2 = new_session();
	ws2 = wsnap_new(home, root, s2, &set);
	T_OK(in_store(ws2, a0));	/* the oldest, but the first session's record needs it */
	T_OK(in_store(ws2, a1));
	for (i = 1; i <= 4; i++) {
		snprintf(p, sizeof p, "%064d", i);
		T_OK(!in_store(ws2, p));
	}
	/* and the first session's rewind still has what it needs */
	T_EQ_INT(wsnap_restore(ws1, last_record(s1), true, false, &rep), 0);
	hash_of("big.bin", p);
	T_EQ_STR(p, a0);
	wsnap_free(ws2);
	wsnap_free(ws1);
	session_close(s2);
	session_close(s1);
	buf_release(&rep);
}

T_TEST(past_the_budget_referenced_content_goes_oldest_first)
{
	struct wsnap_settings set = { 0 };
	struct session *s1, *s2;
	struct wsnap *ws1, *ws2;
	struct buf rep = BUF_INIT(BUF_NOLIMIT);
	char a0[SHA256_HEX_LEN + 1], a1[SHA256_HEX_LEN + 1], p[1024];

	ws1 = first_session(&set, 500, &s1, a0, a1);
	junk(ws1, 1, 200000, 3000000);
	/* 1.2 MB, all but 0.2 named by a record: still over 3/4 MB once the junk is gone */
	set.store_mb = 1;
	s2 = new_session();
	ws2 = wsnap_new(home, root, s2, &set);
	snprintf(p, sizeof p, "%064d", 1);
	T_OK(!in_store(ws2, p));
	T_OK(!in_store(ws2, a0));	/* the oldest of what records name */
	T_OK(in_store(ws2, a1));
	/* a rewind that needs it says so, and leaves the file alone */
	T_EQ_INT(wsnap_restore(ws1, last_record(s1), true, false, &rep), 1);
	T_CONTAINS(buf_cstr(&rep), "big.bin");
	hash_of("big.bin", p);
	T_EQ_STR(p, a1);
	wsnap_free(ws2);
	wsnap_free(ws1);
	session_close(s2);
	session_close(s1);
	buf_release(&rep);
}

T_TEST(the_refs_of_a_session_that_is_gone_are_dropped)
{
	struct wsnap_settings set = { 0 };
	struct session *s1;
	struct wsnap *ws;
	char a0[SHA256_HEX_LEN + 1], a1[SHA256_HEX_LEN + 1], mine[1024], gone[1024];
	FILE *f;

	ws = first_session(&set, 10, &s1, a0, a1);
	snprintf(mine, sizeof mine, "%s/refs/%s", wsnap_store(ws), session_id(s1));
	snprintf(gone, sizeof gone, "%s/refs/20200101-000000-gone", wsnap_store(ws));
	f = fopen(gone, "w");
	T_OK(f != NULL);
	if (f != NULL) {
		fprintf(f, "%s\n", a0);
		fclose(f);
	}
	wsnap_free(ws);
	ws = wsnap_new(home, root, NULL, &set);
	T_OK(access(gone, F_OK) != 0);
	T_OK(access(mine, F_OK) == 0);
	wsnap_free(ws);
	session_close(s1);
}

T_TEST(a_refs_write_that_fails_fails_the_session)
{
	struct wsnap_settings set = { 0 };
	struct session *s;
	struct wsnap *ws;
	char p[1024];
	FILE *f;

	fresh(&set);
	puts_file("a.txt", "one\n");
	s = new_session();
	ws = wsnap_new(home, root, s, &set);
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	/* refs/ cannot be made: a file is in its place */
	snprintf(p, sizeof p, "%s/refs", wsnap_store(ws));
	f = fopen(p, "w");
	T_OK(f != NULL);
	if (f != NULL)
		fclose(f);
	sh("echo two >>a.txt");
	T_EQ_INT(wsnap_record(ws, 1, "toolu_1", "run_bash"), -1);
	T_OK(session_error(s) != NULL);
	if (session_error(s) != NULL)
		T_CONTAINS(session_error(s), "snapshots/refs");
	T_OK(last_record(s) == NULL);	/* no record promises what pruning may take */
	wsnap_free(ws);
	session_close(s);
}

T_TEST(a_bang_command_joins_a_running_writers_window)
{
	struct wsnap_settings set = { 0 };
	struct session *s;
	struct wsnap *ws;
	const cJSON *r;
	char *notes;
	uint64_t e;

	fresh(&set);
	puts_file("a.txt", "one\n");
	s = new_session();
	ws = wsnap_new(home, root, s, &set);
	e = wsnap_epoch(ws);
	T_OK(e != 0);
	/* a tool runs; the user's command starts meanwhile (busy): it joins, no new walk */
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	sh("echo tool >t.txt");
	T_EQ_INT(wsnap_join(ws, true, NULL), 0);
	sh("echo user >u.txt");
	T_EQ_INT(wsnap_record(ws, 1, "toolu_1", "run_bash"), 0);
	r = last_record(s);
	T_OK(r != NULL && change(json_get(r, "files"), "t.txt") != NULL);
	T_OK(r != NULL && change(json_get(r, "files"), "u.txt") != NULL);
	notes = cJSON_PrintUnformatted(json_get(r, "notes"));
	T_CONTAINS(notes != NULL ? notes : "", "at the same time");
	free(notes);
	/* the tool's hook starts while the user's command still runs: it joins too */
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	T_EQ_INT(wsnap_record(ws, 1, "toolu_1", "PostToolUse hook"), 0);
	sh("echo more >>u.txt");
	T_EQ_INT(wsnap_leave(ws, 2, "user_cmd_1", "!command"), 0);
	r = last_record(s);
	T_EQ_STR(json_str(r, "id", ""), "user_cmd_1");
	T_EQ_INT((int)json_int(r, "turn", 0), 2);
	T_OK(change(json_get(r, "files"), "u.txt") != NULL);
	T_OK(change(json_get(r, "files"), "t.txt") == NULL);
	/* the window closed with it: the next writer walks afresh, with no note */
	sh("echo mine >>a.txt");
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	sh("echo z >z.txt");
	T_EQ_INT(wsnap_record(ws, 3, "toolu_2", "run_bash"), 0);
	r = last_record(s);
	T_EQ_STR(json_str(r, "id", ""), "toolu_2");
	T_OK(change(json_get(r, "files"), "a.txt") == NULL);
	T_OK(json_get(r, "notes") == NULL);
	/* a window a writer left open (no record) is not joined when nothing runs */
	T_EQ_INT(wsnap_before(ws, NULL), 0);
	sh("echo edit >>a.txt");
	T_EQ_INT(wsnap_join(ws, false, NULL), 0);
	sh("echo b >b.txt");
	T_EQ_INT(wsnap_leave(ws, 4, "user_cmd_2", "!command"), 0);
	r = last_record(s);
	T_EQ_STR(json_str(r, "id", ""), "user_cmd_2");
	T_OK(change(json_get(r, "files"), "b.txt") != NULL);
	T_OK(change(json_get(r, "files"), "a.txt") == NULL);
	T_OK(json_get(r, "notes") == NULL);
	wsnap_free(ws);
	session_close(s);
}

/* The cases about what a walk sees, run on one thread and again on four. */
static void
walk_tests(void)
{
	T_RUN(an_unchanged_tree_is_not_read_again);
	T_RUN(the_first_snapshot_reads_everything_and_stores_it);
	T_RUN(changes_are_named_by_kind);
	T_RUN(ctime_catches_a_restored_mtime);
	T_RUN(an_mtime_at_or_after_the_snapshot_is_hashed_again);
	T_RUN(ignored_fifos_and_oversized_are_indexed_not_kept);
	T_RUN(the_file_budget_is_a_note);
	T_RUN(undo_and_redo_round_trip);
	T_RUN(a_changed_file_is_left_alone_unless_forced);
	T_RUN(a_hard_link_is_not_written_through);
	T_RUN(hard_links_come_back_as_links);
	T_RUN(a_socket_is_named_not_restorable);
	T_RUN(a_planted_link_cannot_lead_outside);
	T_RUN(a_git_change_is_flagged);
	T_RUN(a_directory_ignored_since_is_not_deleted);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(base, sizeof base, "%s/tandem-wsnap.%ld", tmp != NULL ? tmp : "/tmp", (long)getpid());
	snprintf(root, sizeof root, "%s/ws", base);
	snprintf(home, sizeof home, "%s/home", base);
	setenv("HOME", base, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("GIT_DIR");
	walk_tests();
	T_RUN(the_store_is_pruned_to_its_budget);
	T_RUN(the_first_snapshot_runs_in_the_loop);
	T_RUN(a_file_holding_a_secret_is_not_copied);
	T_RUN(four_threads_see_what_one_sees);
	/* the same again with the walk on four threads */
	setenv("TANDEM_WSNAP_THREADS", "4", 1);
	walk_tests();
	unsetenv("TANDEM_WSNAP_THREADS");
	T_RUN(pruning_keeps_what_another_sessions_record_needs);
	T_RUN(past_the_budget_referenced_content_goes_oldest_first);
	T_RUN(the_refs_of_a_session_that_is_gone_are_dropped);
	T_RUN(a_refs_write_that_fails_fails_the_session);
	T_RUN(a_bang_command_joins_a_running_writers_window);
	t_tree_remove(base);
	return t_done();
}
