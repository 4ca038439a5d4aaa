/*
 * cctranscript: the session as Claude Code writes its transcript, one JSON
 * object a line, for the programs that read Claude Code's
 * `transcript_path` (hooks, and status line commands such as ccstatusline).
 *
 * Fed from the event stream: a turn's prompt is a "user" line; each model
 * response (its text, thinking and tool calls, closed by its usage event)
 * is an "assistant" line whose message carries the model and the usage;
 * each tool result is a "user" line of tool_result content.  Every line has
 * uuid, parentUuid (the line before), sessionId, cwd, timestamp, version
 * and isSidechain, as Claude Code's do.  Tools are named as Claude Code
 * names them.  Replayed events (a resumed session) are not written again.
 *
 * The file is appended to (0600), never read; a write that fails is
 * dropped (the transcript is a courtesy to other programs, not tandem's
 * record, which is log.jsonl).  struct cctr owns its copies.
 */
#ifndef TANDEM_CCTRANSCRIPT_H
#define TANDEM_CCTRANSCRIPT_H

#include <cjson/cJSON.h>

/* The transcript's name in a session's directory. */
#define CCTR_FILE	"transcript.jsonl"

struct cctr;

/* A writer for the project at root (its cwd). */
struct cctr	*cctr_new(const char *root);
void		 cctr_free(struct cctr *);
/* The session and the file to append to (both copied). */
void		 cctr_set_session(struct cctr *, const char *session_id, const char *path);
/* Take in one event of the stream. */
void		 cctr_event(struct cctr *, const cJSON *ev);

#endif
