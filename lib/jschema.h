/*
 * jschema: whether a JSON value is valid for a JSON Schema, in the subset
 * that structured output uses: type (one or a list; "integer" is a number
 * without a fraction), enum, const, properties, required,
 * additionalProperties (false or a schema), items, minItems, maxItems,
 * minLength, maxLength (in code points), minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, anyOf, oneOf, allOf, not, and "$ref" to "#/$defs/..." or
 * "#/definitions/...".  Keywords outside the subset are ignored, as the
 * standard says of unknown ones.
 *
 * Nothing is allocated that the caller must free; the schema and value stay
 * the caller's.
 */
#ifndef TANDEM_JSCHEMA_H
#define TANDEM_JSCHEMA_H

#include <cjson/cJSON.h>

struct buf;

/* 0 valid; -1 not, with the first problem found in why ("$.items[2]: expected a string"). */
int	jschema_check(const cJSON *schema, const cJSON *value, struct buf *why);

#endif
