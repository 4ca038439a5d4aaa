/*
 * ccsettings: Claude Code's settings files read beside tandem's own.
 *
 * ~/.claude/settings.json, <root>/.claude/settings.json and
 * <root>/.claude/settings.local.json are Claude Code's.  config_load reads
 * each as a layer just before tandem's file of the same scope, so for a
 * single value tandem's own file wins; rule lists and hooks accumulate
 * (config.h: deny rules of every file apply, a project's allow rules and
 * hooks wait for trust, a project only tightens the sandbox).
 *
 * ccsettings_translate turns one Claude Code settings object into the
 * object tandem's own file would hold: a key tandem has under the same
 * name passes as it is (model, permissions.*, hooks, apiKeyHelper, ...),
 * a few are renamed (cleanupPeriodDays, alwaysThinkingEnabled, sandbox.*),
 * and every other key is named on the never-silent list (notice.h) with
 * why tandem does not honour it.  Permission rules pass unchanged: perm.c
 * reads Claude Code's tool names and patterns itself, more strictly.
 */
#ifndef TANDEM_CCSETTINGS_H
#define TANDEM_CCSETTINGS_H

#include <cjson/cJSON.h>

struct notices;

/* A new object (the caller's to free) for tandem's loader; items not honoured go to notices. */
cJSON	*ccsettings_translate(const cJSON *cc, const char *path, struct notices *notices);

#endif
