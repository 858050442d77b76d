/* Segments of loaded objects (plugin-memory.h), from dl_iterate_phdr().
 *
 * Why this and not a probe of the memory itself (write() to a pipe,
 * process_vm_readv()): descriptors are static data, so "inside a mapped
 * segment of a loaded object" is the exact rule, it needs no system call
 * per pointer and no file descriptor, and process_vm_readv() is refused
 * by some container sandboxes. */
#include "segments.h"

#include <link.h>
#include <string.h>

typedef struct {
  guintptr start, end; /* [start, end) */
  gboolean exec;
} Segment;

struct FxsLoadedMemory {
  GArray *segments; /* Segment */
};

static int
add_object (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  GArray *segments = data;
  for (ElfW (Half) i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || ph->p_memsz == 0)
        continue;
      Segment s = { info->dlpi_addr + ph->p_vaddr, info->dlpi_addr + ph->p_vaddr + ph->p_memsz,
                    (ph->p_flags & PF_X) != 0 };
      g_array_append_val (segments, s);
    }
  return 0;
}

FxsLoadedMemory *
fxs_loaded_memory_new (void)
{
  FxsLoadedMemory *m = g_new0 (FxsLoadedMemory, 1);
  m->segments = g_array_new (FALSE, FALSE, sizeof (Segment));
  dl_iterate_phdr (add_object, m->segments);
  return m;
}

void
fxs_loaded_memory_free (FxsLoadedMemory *memory)
{
  if (!memory)
    return;
  g_array_unref (memory->segments);
  g_free (memory);
}

/* The segment holding @p, or NULL. */
static const Segment *
segment_of (const FxsLoadedMemory *m, guintptr p)
{
  for (guint i = 0; i < m->segments->len; i++)
    {
      const Segment *s = &g_array_index (m->segments, Segment, i);
      if (p >= s->start && p < s->end)
        return s;
    }
  return NULL;
}

gboolean
fxs_loaded_memory_readable (const FxsLoadedMemory *memory, gconstpointer p, gsize len)
{
  const Segment *s = segment_of (memory, (guintptr) p);
  return s && len <= s->end - (guintptr) p;
}

gboolean
fxs_loaded_memory_string (const FxsLoadedMemory *memory, const char *str, gsize max_len)
{
  const Segment *s = segment_of (memory, (guintptr) str);
  if (!s)
    return FALSE;
  gsize room = MIN (s->end - (guintptr) str, max_len + 1);
  return memchr (str, '\0', room) != NULL;
}

gboolean
fxs_loaded_memory_code (const FxsLoadedMemory *memory, gconstpointer fn)
{
  const Segment *s = segment_of (memory, (guintptr) fn);
  return s && s->exec;
}
