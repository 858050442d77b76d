/* fxsplit: the export marker of the library's public functions.
 *
 * libfxsplit is built with hidden symbol visibility: only the functions
 * declared with FXS_API in these headers are exported from libfxsplit.so
 * (tests/api/check-exports.py checks that the two lists are equal).
 */
#ifndef FXSPLIT_API_H
#define FXSPLIT_API_H

#define FXS_API __attribute__ ((visibility ("default")))

#endif
