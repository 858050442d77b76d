/* Opening a plugin module and checking its descriptor before anything in
 * it is called. */
#include "host-private.h"
#include "util/getter.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <string.h>

/* Options tables longer than this are taken as missing their terminator. */
#define MAX_OPTIONS 256

/* The longest name or version, and the longest description, help or
 * default text, a descriptor may hold. */
#define MAX_NAME 200
#define MAX_TEXT 65536

/* The one place that opens module files: plain dlopen() of the exact,
 * absolute file the registry resolved, so that the file whose descriptor
 * is checked is the one that runs (libltdl's extension search tried
 * NAME.la and NAME.so first).  RTLD_NOW: a plugin built against a newer
 * libfxsplit fails here with the dynamic linker's message, not mid-run.
 * Its ELF constructors run: plugins are trusted code (docs/cli.md). */
static void *
open_module (const char *path, GError **error)
{
  /* dlopen() would search LD_LIBRARY_PATH and the system for a name
   * without '/'; the registry always resolves to absolute paths. */
  g_return_val_if_fail (path != NULL && g_path_is_absolute (path), NULL);
  /* not a FIFO or a device, which dlopen() would block on or read; a file
   * that is not ELF, or vanished since the registry found it, is told by
   * dlopen() (below) */
  const char *reason = NULL;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    reason = "is a directory";
  else if (g_file_test (path, G_FILE_TEST_EXISTS) && !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    reason = "not a regular file";
  if (reason)
    {
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s", path,
                   reason);
      return NULL;
    }
  dlerror ();
  /* local: plugins do not see each other's symbols. */
  void *handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    {
      const char *why = dlerror ();
      why = why ? why : "unknown reason";
      /* without the leading "PATH: " it often adds */
      gsize len = strlen (path);
      if (strncmp (why, path, len) == 0 && strncmp (why + len, ": ", 2) == 0)
        why += len + 2;
      gboolean not_so = strstr (why, "invalid ELF header") || strstr (why, "file too short")
                        || strstr (why, "only ET_DYN and ET_EXEC");
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, "%s: cannot load: %s%s%s", path,
                   not_so ? "not a shared object (" : "", why, not_so ? ")" : "");
    }
  return handle;
}

const char *
fxs_plugin_kind_to_string (FxsPluginKind kind)
{
  return kind == FXS_PLUGIN_PARTITIONER ? "partitioner"
         : kind == FXS_PLUGIN_OUTPUT    ? "output"
                                        : "unknown";
}

/* FXS_ERROR_PLUGIN_INVALID "PATH: MESSAGE". */
static gboolean G_GNUC_PRINTF (3, 4)
fail (const FxsPlugin *p, GError **error, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  GError *message = g_error_new_valist (FXS_ERROR, FXS_ERROR_PLUGIN_INVALID, format, args);
  va_end (args);
  g_propagate_prefixed_error (error, message, "%s: ", p->path);
  return FALSE;
}

#define bad_pointer(p, error, what, ...)                                                     \
  fail (p, error, "broken descriptor: " what " does not point into the plugin's or a "      \
        "library's loaded memory", __VA_ARGS__)

/* A pointer a descriptor holds may be followed only when it lies in a
 * segment the dynamic linker mapped for a loaded object: a descriptor is
 * static data, so a bad pointer is a refused plugin, not a crash.  This
 * needs no system call per pointer (unlike a probe with write() or
 * process_vm_readv(), which some sandboxes refuse). */
typedef struct {
  guintptr p, end;  /* the pointer; the end of its segment, 0 when in none */
  gboolean exec;
} Segment;

static int
find_segment (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  Segment *s = data;
  for (ElfW (Half) i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      guintptr start = info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && s->p >= start
          && s->p < start + ph->p_memsz)
        {
          s->end = start + ph->p_memsz;
          s->exec = (ph->p_flags & PF_X) != 0;
          return 1;
        }
    }
  return 0;
}

static Segment
segment_of (gconstpointer p)
{
  Segment s = { (guintptr) p, 0, FALSE };
  dl_iterate_phdr (find_segment, &s);
  return s;
}

/* The @len bytes at @p lie in one readable segment. */
static gboolean
loaded_readable (gconstpointer p, gsize len)
{
  Segment s = segment_of (p);
  return s.end && len <= s.end - s.p;
}

/* @str is a string in a readable segment, its NUL within @max_len bytes. */
static gboolean
loaded_string (const char *str, gsize max_len)
{
  Segment s = segment_of (str);
  return s.end && memchr (str, '\0', MIN (s.end - s.p, max_len + 1)) != NULL;
}

/* The option table, one entry at a time: its pointers are checked before
 * they are followed (a table without its terminator runs out of its
 * segment or past MAX_OPTIONS), then its key, type, help and default. */
static gboolean
check_options (FxsPlugin *p, GError **error)
{
  const FxsOptionSpec *table = p->info->options;
  const char *name = p->info->name;
  guint n = 0;
  for (; table && n < MAX_OPTIONS; n++)
    {
      const FxsOptionSpec *o = &table[n];
      if (!loaded_readable (o, sizeof *o))
        return n ? bad_pointer (p, error, "option table entry %u (unterminated table?)", n)
                 : bad_pointer (p, error, "the option table (%p)", (gconstpointer) table);
      if (!o->key)
        break;
      const char *const texts[] = { o->key, o->help, o->default_value };
      const char *const text_names[] = { "key", "help", "default" };
      for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
        if (texts[i] && !loaded_string (texts[i], i == 0 ? MAX_NAME : MAX_TEXT))
          return bad_pointer (p, error, "the %s of option %u (%p)", text_names[i], n,
                              (gconstpointer) texts[i]);
      const char *problem = NULL;
      if (!*o->key || o->key[strspn (o->key, "abcdefghijklmnopqrstuvwxyz0123456789_")])
        problem = "is not made of a-z, 0-9 and _";
      else if (!fxs_option_type_is_valid (o->type))
        problem = "has an unknown type";
      else if (o->help == NULL)
        problem = "has no help text";
      for (guint j = 0; j < n && !problem; j++)
        if (strcmp (table[j].key, o->key) == 0)
          problem = "is declared twice";
      if (problem)
        return fail (p, error, "plugin '%s': option '%s' %s", name, o->key, problem);
      FxsOptionValue v = { 0 };
      GError *local = NULL;
      if (o->default_value && !fxs_option_parse (o->type, o->default_value, "/", &v, &local))
        {
          fail (p, error, "plugin '%s': default of option '%s': %s", name, o->key,
                local->message);
          g_error_free (local);
          return FALSE;
        }
      g_free (v.text);
    }
  if (n == MAX_OPTIONS)
    return fail (p, error, "plugin '%s': its option table has no terminating entry", name);
  p->n_options = n;
  return TRUE;
}

/* Finds the descriptor symbol and checks its header, whose first fields
 * (abi_major, abi_minor) decide how the rest is read. */
static gboolean
find_descriptor (FxsPlugin *p, GError **error)
{
  const FxsPluginInfo *part = dlsym (p->module, FXS_PARTITIONER_DESCRIPTOR_SYMBOL);
  const FxsPluginInfo *out = dlsym (p->module, FXS_OUTPUT_DESCRIPTOR_SYMBOL);
  if (!part && !out)
    return fail (p, error, "not an fxsplit plugin: no fxsplit descriptor (it exports neither "
                 FXS_PARTITIONER_DESCRIPTOR_SYMBOL " nor " FXS_OUTPUT_DESCRIPTOR_SYMBOL ")");
  if (part && out)
    return fail (p, error, "exports both " FXS_PARTITIONER_DESCRIPTOR_SYMBOL " and "
                 FXS_OUTPUT_DESCRIPTOR_SYMBOL "; a plugin is one kind");
  const FxsPluginInfo *info = part ? part : out;
  if (!loaded_readable (info, sizeof *info))
    return bad_pointer (p, error, "the descriptor symbol (%p)", (gconstpointer) info);
  if (info->abi_major != FXS_PLUGIN_ABI_MAJOR || info->abi_minor > FXS_PLUGIN_ABI_MINOR)
    {
      /* a newer major, or this major with a newer minor */
      gboolean newer = info->abi_major >= FXS_PLUGIN_ABI_MAJOR;
      g_set_error (error, FXS_ERROR, FXS_ERROR_PLUGIN_ABI,
                   "%s: built for plugin ABI %u.%u, host is %u.%u: %s", p->path,
                   info->abi_major, info->abi_minor, FXS_PLUGIN_ABI_MAJOR, FXS_PLUGIN_ABI_MINOR,
                   newer ? "it needs a newer fxsplit" : "rebuild it against this fxsplit");
      return FALSE;
    }
  /* The sizes of ABI 1.0; a later 1.x host treats fields beyond them as absent. */
  gsize min_size = part ? sizeof (FxsPartitionerDescriptor) : sizeof (FxsOutputDescriptor);
  if (info->size < min_size)
    return fail (p, error, "its descriptor is %u bytes, ABI %u.%u needs %u: it was not filled "
                 "with FXS_%s_ABI", info->size, info->abi_major, info->abi_minor,
                 (guint) min_size, part ? "PARTITIONER" : "OUTPUT");
  if (!loaded_readable (info, info->size))
    return bad_pointer (p, error, "the descriptor's %u bytes", info->size);
  FxsPluginKind expected = part ? FXS_PLUGIN_PARTITIONER : FXS_PLUGIN_OUTPUT;
  if (info->kind != expected)
    return fail (p, error, "its descriptor %s says kind %d, expected %s",
                 part ? FXS_PARTITIONER_DESCRIPTOR_SYMBOL : FXS_OUTPUT_DESCRIPTOR_SYMBOL,
                 (int) info->kind, fxs_plugin_kind_to_string (expected));
  const char *const texts[] = { info->name, info->version, info->description };
  const char *const text_names[] = { "the name", "the version", "the description" };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    if (texts[i] && !loaded_string (texts[i], i < 2 ? MAX_NAME : MAX_TEXT))
      return bad_pointer (p, error, "%s (%p)", text_names[i], (gconstpointer) texts[i]);
  if (!info->name || !*info->name || !info->version || !info->description)
    return fail (p, error, "its descriptor lacks a name, version or description");
  /* a name or version is one line of printable text that needs no escaping */
  char *name = fxs_text_escape (info->name, MAX_NAME);
  char *version = fxs_text_escape (info->version, MAX_NAME);
  gboolean plain = strcmp (name, info->name) == 0 && strcmp (version, info->version) == 0;
  if (plain)
    p->info = info;
  else
    fail (p, error, "its descriptor's name '%s' or version '%s' holds control characters",
          name, version);
  g_free (name);
  g_free (version);
  return plain;
}

/* The hooks of the kind, each one that is set code of a loaded object. */
static gboolean
find_hooks (FxsPlugin *p, GError **error)
{
  const FxsPluginInfo *info = p->info;
  gboolean output = info->kind == FXS_PLUGIN_OUTPUT;
  if (output)
    p->write = ((const FxsOutputDescriptor *) info)->write;
  else
    {
      const FxsPartitionerDescriptor *d = (const FxsPartitionerDescriptor *) info;
      p->prepare = d->prepare;
      /* ABI 1.0 had reserved[0] here, which is not read. */
      p->label = info->abi_minor >= 1 ? d->label : NULL;
      p->callback = (FxsSplitCallback) dlsym (p->module, FXS_PARTITIONER_CALLBACK_SYMBOL);
    }
  const struct { gconstpointer fn; const char *name; } hooks[] = {
    { (gconstpointer) info->init, "init" }, { (gconstpointer) info->fini, "fini" },
    { (gconstpointer) p->prepare, "prepare" }, { (gconstpointer) p->label, "label" },
    { (gconstpointer) p->write, "write" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (hooks); i++)
    if (hooks[i].fn && !segment_of (hooks[i].fn).exec)
      return bad_pointer (p, error, "the %s hook (%p)", hooks[i].name, hooks[i].fn);
  if (output)
    return p->write || fail (p, error, "output '%s' has no write hook", info->name);
  return p->callback || fail (p, error, "partitioner '%s' does not export "
                              FXS_PARTITIONER_CALLBACK_SYMBOL, info->name);
}

FxsPlugin *
fxs_plugin_open (const char *path, GError **error)
{
  void *module = open_module (path, error);
  if (!module)
    return NULL;
  FxsPlugin *p = g_new0 (FxsPlugin, 1);
  p->path = g_strdup (path);
  p->module = module;
  /* Every pointer of the descriptor is checked against the loaded
   * segments before it is followed. */
  gboolean ok = find_descriptor (p, error) && find_hooks (p, error)
                && check_options (p, error);
  if (!ok)
    {
      fxs_plugin_close (p);
      return NULL;
    }
  char *who = g_strdup_printf ("plugin '%s' (%s)", p->info->name, path);
  p->who = fxs_text_escape (who, 600);
  g_free (who);
  return p;
}

void
fxs_plugin_close (FxsPlugin *plugin)
{
  if (!plugin)
    return;
  if (plugin->module)
    dlclose (plugin->module);
  g_free (plugin->found.shadowed);
  g_free (plugin->who);
  g_free (plugin->path);
  g_free (plugin);
}

/* ---- accessors ---------------------------------------------------------------- */

FXS_GETTER (FxsPluginKind, fxs_plugin_kind, FxsPlugin, plugin, plugin->info->kind, 0)
FXS_GETTER (const char *, fxs_plugin_name, FxsPlugin, plugin, plugin->info->name, NULL)
FXS_GETTER (const char *, fxs_plugin_version, FxsPlugin, plugin, plugin->info->version, NULL)
FXS_GETTER (const char *, fxs_plugin_description, FxsPlugin, plugin,
            plugin->info->description, NULL)
FXS_GETTER (const char *, fxs_plugin_path, FxsPlugin, plugin, plugin->path, NULL)
FXS_GETTER (guint, fxs_plugin_n_options, FxsPlugin, plugin, plugin->n_options, 0)

const char *
fxs_plugin_shadowed_path (const FxsPlugin *plugin, FxsPluginDirSource *source,
                          FxsPluginDirSource *shadowed_source)
{
  if (plugin->found.shadowed && source)
    *source = plugin->found.source;
  if (plugin->found.shadowed && shadowed_source)
    *shadowed_source = plugin->found.shadowed_source;
  return plugin->found.shadowed;
}

void
fxs_plugin_abi (const FxsPlugin *plugin, guint *major, guint *minor)
{
  if (major)
    *major = plugin->info->abi_major;
  if (minor)
    *minor = plugin->info->abi_minor;
}

const FxsOptionSpec *
fxs_plugin_option (const FxsPlugin *plugin, guint i)
{
  g_return_val_if_fail (i < plugin->n_options, NULL);
  return &plugin->info->options[i];
}
