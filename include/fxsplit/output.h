/* fxsplit: the output plugin ABI.
 *
 * An output is a shared module (loaded with dlopen) that exports
 *
 *   const FxsOutputDescriptor fxsplit_output;
 *
 * with the same header as a partitioner (name, version, options, init,
 * fini) and a write hook that receives the split result through the
 * read-only API of <fxsplit/split.h> (partitions in order with their nodes,
 * inputs, outputs and dependencies, the top-level graph, each submodule's
 * graph, the qualname map and the original graph).
 *
 * Files: open every file through fxs_output_open_file().  The host stages
 * the files of all outputs of a run and makes them appear only after every
 * output succeeded; when anything fails, none of them appears and no
 * temporary file is left behind.  Never write to a destination directly.
 */
#ifndef FXSPLIT_OUTPUT_H
#define FXSPLIT_OUTPUT_H

#include <stdio.h>
#include <fxsplit/api.h>
#include <fxsplit/plugin.h>
#include <fxsplit/split.h>

G_BEGIN_DECLS

/* Writes @result.  Return TRUE, or set @error and return FALSE: the run
 * then fails and no output's files appear. */
typedef gboolean (*FxsOutputWriteFunc) (FxsPluginContext *ctx, gpointer state,
                                        const FxsSplitResult *result, GError **error);

typedef struct {
  FxsPluginInfo plugin;      /* start with FXS_OUTPUT_ABI */
  FxsOutputWriteFunc write;  /* required */
  gpointer reserved[8];      /* zero */
} FxsOutputDescriptor;

/* The first four fields of an output's FxsPluginInfo, as a designated
 * initializer: { FXS_OUTPUT_ABI, .name = ..., ... }. */
#define FXS_OUTPUT_ABI                                                        \
  .abi_major = FXS_PLUGIN_ABI_MAJOR, .abi_minor = FXS_PLUGIN_ABI_MINOR,        \
  .size = sizeof (FxsOutputDescriptor), .kind = FXS_PLUGIN_OUTPUT

#define FXS_OUTPUT_DESCRIPTOR_SYMBOL "fxsplit_output"

extern FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output;

/* Opens @path (absolute, or relative to the pipeline file's directory) for
 * writing, staged: the file appears when the whole run succeeds.  Only
 * valid inside write.  Fails with FXS_ERROR_IO when the directory does not
 * exist or is not writable, or @path exists and is not a regular file with
 * one link (a device, FIFO, directory, symbolic link: docs/cli.md), and
 * with FXS_ERROR_CONFIG when another output (or this one) already wrote
 * @path in this run.  The stream belongs to the host: write to it with
 * stdio (it has no file descriptor: fileno() gives -1), never fclose it. */
FXS_API FILE *fxs_output_open_file (FxsPluginContext *ctx, const char *path, GError **error);

G_END_DECLS

#endif
