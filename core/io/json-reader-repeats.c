/* Values that repeat (json-reader-private.h, FxsJsonRepeats): the text of
 * the last few values of a repeating member, each with the tree read from
 * it, so that the fast path gives the same text the same tree without
 * reading it again.  Also the tree copies it takes (json-reader.h). */
#include "json-reader-private.h"

#include <string.h>

/* ---- copies of trees ------------------------------------------------------- */

gsize
fxs_json_tree_bytes (const FxsJson *j)
{
  gsize size = sizeof (FxsJson);
  if (j->type == FXS_JSON_NUMBER || j->type == FXS_JSON_STRING)
    size += 8 * (j->n / 8 + 1);
  else if (j->type == FXS_JSON_ARRAY || j->type == FXS_JSON_OBJECT)
    {
      guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
      for (guint i = 0; i < n; i++)
        size += fxs_json_tree_bytes (&j->u.items[i]);
    }
  return size;
}

/* @from's items and texts into *@free on, @from itself into @to. */
static void
copy_below (const FxsJson *from, FxsJson *to, char **free)
{
  *to = *from;
  if (from->type == FXS_JSON_NUMBER || from->type == FXS_JSON_STRING)
    {
      /* with its padding (json-reader.h) */
      gsize words = from->n / 8 + 1;
      memcpy (*free, from->u.s, 8 * words);
      to->u.s = *free;
      *free += 8 * words;
    }
  else if (from->type == FXS_JSON_ARRAY || from->type == FXS_JSON_OBJECT)
    {
      guint n = from->type == FXS_JSON_OBJECT ? 2 * from->n : from->n;
      FxsJson *items = (FxsJson *) *free;
      *free += n * sizeof (FxsJson);
      for (guint i = 0; i < n; i++)
        copy_below (&from->u.items[i], &items[i], free);
      to->u.items = n ? items : NULL;
    }
}

FxsJson *
fxs_json_tree_copy (const FxsJson *j, gpointer block)
{
  char *free = (char *) block + sizeof (FxsJson);
  copy_below (j, block, &free);
  return block;
}

/* ---- values that repeat ---------------------------------------------------- */

/* Containers only, and small ones (of 8 bytes or more): a scalar is read
 * as fast as it is compared. */
#define REPEAT_MAX_TEXT 512

static guint
tree_depth (const FxsJson *j)
{
  guint depth = 0;
  if (j->type == FXS_JSON_ARRAY || j->type == FXS_JSON_OBJECT)
    {
      guint n = j->type == FXS_JSON_OBJECT ? 2 * j->n : j->n;
      for (guint i = 0; i < n; i++)
        depth = MAX (depth, tree_depth (&j->u.items[i]));
      depth++;
    }
  return depth;
}

void
fxs_json_repeats_clear (FxsJsonRepeats *reps)
{
  for (guint i = 0; i < FXS_JSON_REPEATS; i++)
    {
      g_free (reps->seen[i].text);
      reps->seen[i] = (FxsJsonRepeat) { 0 };
    }
}

const FxsJson *
fxs_json_repeats_find (FxsJsonRepeats *reps, const char *p, gsize avail, guint depth_room,
                       gsize *len, guint64 *id)
{
  /* the last one found or added first: runs of equal values are common */
  for (guint k = 0; k < FXS_JSON_REPEATS; k++)
    {
      guint i = (reps->last + k) % FXS_JSON_REPEATS;
      FxsJsonRepeat *seen = &reps->seen[i];
      if (!seen->text || seen->len > avail || seen->depth > depth_room)
        continue;
      /* most texts that differ do so near their end (a shape, a stage,
       * their length): that word first */
      guint64 tail;
      memcpy (&tail, p + seen->len - 8, 8);
      if (tail == seen->tail && memcmp (seen->text, p, seen->len) == 0)
        {
          reps->last = reps->pinned = i;
          *len = seen->len;
          *id = seen->id;
          return seen->tree;
        }
    }
  return NULL;
}

gboolean
fxs_json_repeats_add (FxsJsonRepeats *reps, const char *text, gsize len, const FxsJson *tree,
                      guint64 id)
{
  /* (at least 8 bytes: their last word is compared first) */
  if (len < 8 || len > REPEAT_MAX_TEXT
      || (tree->type != FXS_JSON_OBJECT && tree->type != FXS_JSON_ARRAY))
    return FALSE;
  guint i = reps->next;
  if (i == reps->pinned)
    i = (i + 1) % FXS_JSON_REPEATS;
  reps->next = (i + 1) % FXS_JSON_REPEATS;
  FxsJsonRepeat *seen = &reps->seen[i];
  /* one block: the text, then the tree (8-byte aligned) */
  gsize text_room = (len + 7) & ~(gsize) 7, size = text_room + fxs_json_tree_bytes (tree);
  if (size > seen->size)
    {
      g_free (seen->text);
      seen->size = MAX (size, 2 * seen->size);
      seen->text = g_malloc (seen->size);
    }
  memcpy (seen->text, text, len);
  seen->len = len;
  memcpy (&seen->tail, text + len - 8, 8);
  seen->tree = fxs_json_tree_copy (tree, seen->text + text_room);
  seen->depth = tree_depth (tree);
  seen->id = id;
  reps->last = i;
  return TRUE;
}
