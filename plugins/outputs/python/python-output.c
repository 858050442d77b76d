/* The python output: the split module as one Python file.
 *
 * The file rebuilds every graph node by node as a torch.fx.Graph and lets
 * torch.fx compile the GraphModules' forward from them, exactly as
 * split_module's result is made; it does not exec a code text of its own.
 * That keeps code, graph and behaviour consistent under any torch version
 * (a forward exec'd from 1.13's text would silently disagree with the
 * graph under a torch that prints differently).  The code texts torch.fx
 * 1.13 prints are generated here too, in C (codegen.c), and kept in the
 * file as CODE; check_code() compares them with what torch printed, which
 * the tests in tests/torch/codegen/ do against PyTorch's own split. */
#include <fxsplit/output.h>

#include "module-writer.h"

static const FxsOptionSpec python_options[] = {
  { .key = "path", .type = FXS_OPTION_OUTPUT_PATH, .flags = FXS_OPTION_REQUIRED,
    .help = "the Python file to write; its build(original_module) returns the split "
            "torch.fx.GraphModule" },
  { NULL },
};

typedef struct {
  const char *path;
} Python;

static gboolean
python_init (FxsPluginContext *ctx, gpointer *state, GError **error)
{
  (void) error;
  Python *p = g_new0 (Python, 1);
  p->path = fxs_plugin_option_string (ctx, "path");
  *state = p;
  return TRUE;
}

static gboolean
python_write (FxsPluginContext *ctx, gpointer state, const FxsSplitResult *result,
              GError **error)
{
  const Python *p = state;
  FILE *out = fxs_output_open_file (ctx, p->path, error);
  if (!out)
    return FALSE;
  if (!fxs_py_write_module (result, out, error))
    return FALSE;
  fxs_plugin_log (ctx, FXS_LOG_INFO, "%u partitions written to %s",
                  fxs_split_result_n_partitions (result), p->path);
  /* Write errors are caught when the host commits the file. */
  return TRUE;
}

FXS_PLUGIN_EXPORT const FxsOutputDescriptor fxsplit_output = {
  .plugin = {
    FXS_OUTPUT_ABI,
    .name = "python",
    .version = "1.0",
    .description = "the split module as a Python file that rebuilds it with torch.fx "
                   "(forward code as torch.fx 1.13 prints it)",
    .options = python_options,
    .init = python_init,
    .fini = g_free,
  },
  .write = python_write,
};
