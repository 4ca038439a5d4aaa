/*
 * patch_bench: apply one patch file to a tree with the apply_patch tool,
 * in process (as the agent's child does), and print the wall time.
 *
 *	patch_bench ROOT PATCH
 *
 * Exits 1 when the tool refuses the patch (its text goes to stderr).
 */
#include "autoconf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fsutil.h"
#include "tool.h"

int
main(int argc, char **argv)
{
	struct buf err = BUF_INIT(4096);
	struct tool_env env = { NULL, NULL, NULL };
	struct tool_out out;
	struct timespec t0, t1;
	char *text, *root;
	size_t len;
	cJSON *in;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: patch_bench ROOT PATCH\n");
		return 2;
	}
	if ((root = realpath(argv[1], NULL)) == NULL ||
	    fsutil_read_file(argv[2], FSUTIL_MAX_FILE, &text, &len, &err) != 0) {
		fprintf(stderr, "patch_bench: cannot read %s or %s %s\n", argv[1], argv[2],
		    buf_cstr(&err));
		return 2;
	}
	env.root = root;
	in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "patch", text);
	tool_out_init(&out);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tool_apply_patch.run(&env, in, &out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	rc = out.is_error ? 1 : 0;
	if (out.is_error)
		fprintf(stderr, "%.2000s\n", buf_cstr(&out.text));
	tool_out_release(&out);
	cJSON_Delete(in);
	free(text);
	free(root);
	buf_release(&err);
	return rc;
}
