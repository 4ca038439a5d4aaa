/*
 * hex: the value of one hexadecimal digit, for the decoders of %XX
 * escapes (URLs, file URIs), \uXXXX escapes and the shell's $'\xHH'.
 */
#ifndef TANDEM_HEX_H
#define TANDEM_HEX_H

/* The value of the hex digit c (either case), or -1. */
static inline int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
