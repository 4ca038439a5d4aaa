/*
 * plantools: todo_write, exit_plan and ask_user (their definitions are in
 * tool.h's list); the checks of their inputs, shared with agent/plan/.
 */
#ifndef TANDEM_PLANTOOLS_H
#define TANDEM_PLANTOOLS_H

#include <cjson/cJSON.h>

#include "buf.h"

/* A todo list in TodoWrite's shape: 0, or -1 with one sentence in why. */
int	plantools_check_todos(const cJSON *todos, struct buf *why);
/* AskUserQuestion's questions (1-4, each with 2-4 options): 0, or -1 with why. */
int	plantools_check_questions(const cJSON *questions, struct buf *why);

#endif
