/* Drawing DOT text with Graphviz's dot program, for the dot output's
 * render option and the report's HTML picture. */
#ifndef FXS_OUT_GRAPHVIZ_H
#define FXS_OUT_GRAPHVIZ_H

#include <fxsplit/plugin.h>

/* The full path of the program @ctx's option "graphviz" names ("dot",
 * looked up in PATH, or a path relative to the pipeline file), or NULL
 * when it is not found; free with g_free. */
char *graphviz_find (const FxsPluginContext *ctx);

/* Runs @program_path -T@format (svg, png) on @dot and returns what it
 * printed, or NULL with FXS_ERROR_PLUGIN_FAILED naming the program and its
 * first line of complaint.  Warnings it prints on success go to @ctx's
 * log (dropped when @ctx is NULL: a program's own use). */
GBytes *graphviz_render (FxsPluginContext *ctx, const char *program_path, const char *format,
                         const GString *dot, GError **error);

#endif
