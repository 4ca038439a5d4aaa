/*
 * json: small helpers over cJSON.
 *
 * Getters never allocate and return the default when the key is missing or
 * of another type.  json_parse_at reports where a parse failed as a line and
 * a column, so a user can be told "settings.json:3:14".
 */
#ifndef TANDEM_JSON_H
#define TANDEM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;

const char	*json_str(const cJSON *obj, const char *key, const char *def);
int64_t		 json_int(const cJSON *obj, const char *key, int64_t def);
double		 json_num(const cJSON *obj, const char *key, double def);
bool		 json_bool(const cJSON *obj, const char *key, bool def);
/* The member key, or NULL; never allocates. */
cJSON		*json_get(const cJSON *obj, const char *key);

/*
 * Parse n bytes.  On failure returns NULL and sets *line and *col (1-based)
 * to where the parser stopped.  The result is the caller's to cJSON_Delete.
 */
cJSON		*json_parse_at(const char *s, size_t n, int *line, int *col);

/* Compact text of item appended to out; 0 or -1 (limit). */
int		 json_append(struct buf *out, const cJSON *item);
/* Compact text; the caller frees. */
char		*json_print(const cJSON *item);

/*
 * Insert item (taken) into arr before position pos (past the end: append).
 * cJSON_InsertItemInArray of some cJSON releases fails in the middle of an
 * array; this one does not.
 */
void		 json_array_insert(cJSON *arr, int pos, cJSON *item);

/* Add a string that may hold invalid UTF-8 (replaced with U+FFFD). */
cJSON		*json_add_str_n(cJSON *obj, const char *key, const char *s, size_t n);

#endif
