/*
 * queue: type-ahead, the prompts typed while a turn runs.
 *
 * A prompt sent while a turn runs is queued instead of refused: the
 * queue shows on the input's rule ("2 queued › first prompt"), Up on an
 * empty input line takes the newest one back to edit (Enter queues it
 * again; clearing the line cancels it), and when the turn ends well
 * (end_turn, max_tokens) the oldest is sent, then the next after that
 * turn, in order.  When the turn is interrupted (Esc) or ends in an
 * error or a hook's block, nothing more is sent: the queued prompts come
 * back into the input line, joined by blank lines, to send or change.
 *
 * Every change is written (write, fsync, rename) to queue.json in the
 * session's directory, removed when the queue empties, so a crash loses
 * none: on resume they come back into the input line.
 *
 * The state is struct queue in struct app; queue_release frees it.
 */
#ifndef TANDEM_TUI_QUEUE_H
#define TANDEM_TUI_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app;
struct sline;

struct queue {
	char		**v;		/* oldest first; owned */
	size_t		  n, cap;
	uint64_t	  timer;	/* sending the next, on the next loop turn */
	char		 *path;		/* the file it was last written to; owned */
};

/* Free the queue (its file stays: it is what survives); cancels a pending send. */
void	 queue_free(struct app *);
/* app_submit: while a turn runs, queue text and return true. */
bool	 queue_take(struct app *, const char *text);
/* A turn ended with why (its stop_reason): send the next, or give them all back. */
void	 queue_turn_ended(struct app *, const char *why);
/* Up on an empty input line: the newest queued prompt back to edit; false when none. */
bool	 queue_pull(struct app *);
/* Put every queued prompt back into the input line (before what it holds). */
void	 queue_give_back(struct app *);
/* What the input's rule shows of the queue (nothing when it is empty). */
void	 queue_rule(const struct app *, struct sline *);
/* At start: prompts a crash left queued come back into the input line. */
void	 queue_restore(struct app *);

/* The file's text for a queue, and back (pure; for tests).  The caller frees. */
char	*queue_encode(char *const *v, size_t n);
/* Parse queue.json's text: the prompts (caller frees each and the array); -1 when malformed. */
int	 queue_decode(const char *text, char ***v, size_t *n);

#endif
