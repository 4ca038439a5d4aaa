/* Pane placement: see layout.h. */
#include "autoconf.h"

#include <string.h>

#include "layout.h"

#define LAYOUT_MIN_TRANSCRIPT	3

static int
layout_clamp(int v, int lo, int hi)
{
	if (hi < lo)
		hi = lo;
	return v < lo ? lo : v > hi ? hi : v;
}

bool
layout_wide(int cols)
{
	return cols >= LAYOUT_WIDE;
}

static void
layout_set(struct rect *r, int y, int x, int h, int w)
{
	r->y = y;
	r->x = x;
	r->h = h > 0 && w > 0 ? h : 0;
	r->w = w > 0 ? w : 0;
}

/* Wide: transcript left, tools over diff on the right. */
static void
layout_side(const struct layout_req *q, int area, struct rect *out)
{
	int rw = layout_clamp(q->cols * 2 / 5, 48, q->cols - 40), tools;

	layout_set(&out[PANE_TRANSCRIPT], 0, 0, area, q->cols - rw);
	if (q->diff_rows <= 0)
		tools = area;
	else
		tools = layout_clamp(q->tool_rows > 0 ? q->tool_rows : 2, 3, area / 2);
	layout_set(&out[PANE_TOOLS], 0, q->cols - rw, tools, rw);
	layout_set(&out[PANE_DIFF], tools, q->cols - rw, area - tools, rw);
}

/* Narrow: transcript, then tools, then diff, each only as tall as it needs. */
static void
layout_stack(const struct layout_req *q, int area, struct rect *out)
{
	int diff = q->diff_rows > 0 ? layout_clamp(q->diff_rows, 3, area * 55 / 100) : 0;
	int tools = q->tool_rows > 0 ? layout_clamp(q->tool_rows, 2, area / 4 > 3 ? area / 4 : 3) : 0;
	int tr = area - diff - tools;

	while (tr < LAYOUT_MIN_TRANSCRIPT && (diff > 3 || tools > 2)) {
		if (diff > 3)
			diff--;
		else
			tools--;
		tr = area - diff - tools;
	}
	if (tr < 1) {
		tools = 0;
		diff = area - 1 > 0 ? area - 1 : 0;
		tr = area - diff;
	}
	layout_set(&out[PANE_TRANSCRIPT], 0, 0, tr, q->cols);
	layout_set(&out[PANE_TOOLS], tr, 0, tools, q->cols);
	layout_set(&out[PANE_DIFF], tr + tools, 0, diff, q->cols);
}

void
layout_compute(const struct layout_req *q, struct rect out[PANE_COUNT])
{
	int rows = q->rows > 1 ? q->rows : 1, cols = q->cols, y, input, approval, plan, area;

	memset(out, 0, sizeof *out * PANE_COUNT);
	y = rows - 1;
	layout_set(&out[PANE_STATUS], y, 0, 1, cols);
	input = layout_clamp(q->input_rows, 2, rows / 3 > 2 ? rows / 3 : 2);
	if (input > y)
		input = y;
	y -= input;
	layout_set(&out[PANE_INPUT], y, 0, input, cols);
	approval = layout_clamp(q->approval_rows, 0, 3);
	if (approval > y)
		approval = y;
	y -= approval;
	layout_set(&out[PANE_APPROVAL], y, 0, approval, cols);
	plan = layout_clamp(q->plan_rows, 0, y / 2);
	y -= plan;
	layout_set(&out[PANE_PLAN], y, 0, plan, cols);
	area = y;
	if (area <= 0)
		return;
	if (q->zoom == PANE_TRANSCRIPT || q->zoom == PANE_TOOLS || q->zoom == PANE_DIFF)
		layout_set(&out[q->zoom], 0, 0, area, cols);
	else if (layout_wide(cols))
		layout_side(q, area, out);
	else
		layout_stack(q, area, out);
}
