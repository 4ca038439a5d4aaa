/*
 * call: one streamed model call, for turns and for compaction summaries.
 *
 * Owns the request in flight: building it, the stream it feeds, the HTTP
 * status and error body, usage totals, the retry with backoff (honouring
 * Retry-After), and the classification of how the call ended.
 */
#ifndef TANDEM_CALL_H
#define TANDEM_CALL_H

#include "agent_int.h"

void	 call_drop(struct agent *a);
void	 call_record_usage(struct agent *a);
void	 call_sum_cancel(struct agent *a);
int	 call_sum_start(struct agent *a, int keep, const char *focus, bool then_call);
void	 call_model(struct agent *a);

#endif
