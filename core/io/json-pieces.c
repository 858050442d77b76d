/* Writing one JSON document on several threads (json-writer.h).
 *
 * The document is cut into pieces of a fixed number of units (nodes,
 * attributes, entries).  Every serializing thread walks the whole document
 * with its own writer; at each piece's first unit the first thread to get
 * there takes the piece, the others skip its units (a skipped unit costs a
 * counter step).  A thread writes its pieces into buffers; the calling
 * thread hands the buffers on in order.  Piece k goes
 * to slot k % n_slots, so at most n_slots pieces are held at a time and a
 * thread that runs ahead waits for its slot.  Text between units belongs
 * to the piece of the unit before it (before the first unit: to piece 0),
 * so every byte is written exactly once, in the order a single writer
 * would write it.
 */
#include "json-writer.h"
#include "util/bulk.h"

/* Where a thread puts the text between units of other threads' pieces. */
#define DISCARD_BUFFER 4096
/* A piece's buffer to start with: one huge page (bulk.h). */
#define PIECE_BUFFER (FXS_BULK_HUGE_PAGE - FXS_BULK_HEADER)

typedef struct {
  char *buf;
  gsize len;
  gsize cap;
  guint64 piece;            /* the piece the slot holds or takes next */
  gboolean full;            /* holds piece @piece, not yet written out */
} Slot;

struct FxsJsonPieces {
  FxsJsonEmitFunc emit;
  gconstpointer data;
  guint64 n_units;
  guint64 piece_units;
  guint64 n_pieces;
  guint n_threads;
  guint n_slots;
  Slot *slots;
  guint n_done;             /* threads that have finished their walk */
  gint next_piece;          /* atomic: the first piece no thread has taken */
  GMutex lock;
  GCond cond;
};

typedef struct {
  FxsJsonPieces *pieces;
  guint thread;
} Worker;

static void
start_piece (FxsJsonWriter *w, guint64 k)
{
  FxsJsonPieces *p = w->pieces;
  Slot *s = &p->slots[k % p->n_slots];
  g_mutex_lock (&p->lock);
  while (s->piece != k || s->full)
    g_cond_wait (&p->cond, &p->lock);
  g_mutex_unlock (&p->lock);
  if (!s->buf)
    {
      s->buf = fxs_bulk_alloc_uninit (PIECE_BUFFER);
      s->cap = PIECE_BUFFER;
    }
  w->buf = s->buf;
  w->cap = s->cap;
  w->len = 0;
  w->emitting = TRUE;
}

static void
skip (FxsJsonWriter *w)
{
  w->buf = w->discard;
  w->cap = DISCARD_BUFFER;
  w->len = 0;
  w->emitting = FALSE;
}

static void
finish_piece (FxsJsonWriter *w, guint64 k)
{
  FxsJsonPieces *p = w->pieces;
  Slot *s = &p->slots[k % p->n_slots];
  g_mutex_lock (&p->lock);
  s->buf = w->buf;          /* it may have grown */
  s->cap = w->cap;
  s->len = w->len;
  s->full = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  skip (w);
}

gboolean
fxs_json_pieces_unit (FxsJsonWriter *w)
{
  FxsJsonPieces *p = w->pieces;
  guint64 u = w->unit++;
  if (u > 0 && u % p->piece_units == 0)
    {
      guint64 k = u / p->piece_units;
      if (w->emitting)
        finish_piece (w, k - 1);
      /* the first thread here takes the piece: a thread on a slower core
       * (or one whose pieces were dearer) takes fewer; past the last
       * piece: a walk with more units than said (reported at its end) */
      if (k < p->n_pieces
          && g_atomic_int_compare_and_exchange (&p->next_piece, (gint) k, (gint) k + 1))
        start_piece (w, k);
    }
  if (!w->emitting)
    w->len = 0;
  return w->emitting;
}

gboolean
fxs_json_pieces_room (FxsJsonWriter *w, gsize len)
{
  if (!w->emitting)
    {
      w->len = 0;
      return len <= w->cap;
    }
  gsize cap = w->cap;
  while (w->len + len > cap)
    cap *= 2;
  char *bigger = fxs_bulk_alloc_uninit (cap);
  memcpy (bigger, w->buf, w->len);
  fxs_bulk_free (w->buf);
  w->buf = bigger;
  w->cap = cap;
  return TRUE;
}

static gpointer
run_worker (gpointer data)
{
  const Worker *worker = data;
  FxsJsonPieces *p = worker->pieces;
  FxsJsonWriter w = { 0 };
  w.pieces = p;
  w.thread = worker->thread;
  w.discard = g_malloc (DISCARD_BUFFER);
  if (w.thread == 0)
    start_piece (&w, 0);    /* the first piece, and the text before it */
  else
    skip (&w);
  p->emit (&w, p->data);
  if (w.unit != p->n_units)
    g_critical ("json writer: the document had %" G_GUINT64_FORMAT " units, not %"
                G_GUINT64_FORMAT, w.unit, p->n_units);
  else if (w.emitting)
    finish_piece (&w, (w.unit - 1) / p->piece_units);
  g_free (w.discard);
  g_mutex_lock (&p->lock);
  p->n_done++;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

void
fxs_json_write_pieces (FxsJsonWriter *out, FxsJsonEmitFunc emit, gconstpointer data,
                       guint64 n_units, guint n_threads, guint64 piece_units)
{
  piece_units = MAX (piece_units, 1);
  if (n_threads < 2 || n_units <= piece_units || n_units / piece_units >= G_MAXINT)
    {
      emit (out, data);
      return;
    }
  FxsJsonPieces p = {
    .emit = emit, .data = data, .n_units = n_units, .piece_units = piece_units,
    .n_pieces = (n_units + piece_units - 1) / piece_units,
    .n_threads = (guint) MIN ((guint64) n_threads, (n_units + piece_units - 1) / piece_units),
  };
  p.next_piece = 1;
  /* two per thread: one being filled, one waiting to be written */
  p.n_slots = 2 * p.n_threads;
  p.slots = g_new0 (Slot, p.n_slots);
  for (guint i = 0; i < p.n_slots; i++)
    p.slots[i].piece = i;
  g_mutex_init (&p.lock);
  g_cond_init (&p.cond);
  Worker *workers = g_new (Worker, p.n_threads);
  GThread **threads = g_new (GThread *, p.n_threads);
  for (guint i = 0; i < p.n_threads; i++)
    {
      workers[i] = (Worker) { &p, i };
      threads[i] = g_thread_new ("fxsplit-json", run_worker, &workers[i]);
    }
  for (guint64 k = 0; k < p.n_pieces; k++)
    {
      Slot *s = &p.slots[k % p.n_slots];
      g_mutex_lock (&p.lock);
      while (!(s->piece == k && s->full) && p.n_done < p.n_threads)
        g_cond_wait (&p.cond, &p.lock);
      gboolean ready = s->piece == k && s->full;
      g_mutex_unlock (&p.lock);
      if (!ready)
        break;              /* a walk went wrong (said above) */
      fxs_json_write_bytes (out, s->buf, s->len);
      g_mutex_lock (&p.lock);
      s->full = FALSE;
      s->piece = k + p.n_slots;
      g_cond_broadcast (&p.cond);
      g_mutex_unlock (&p.lock);
    }
  for (guint i = 0; i < p.n_threads; i++)
    g_thread_join (threads[i]);
  for (guint i = 0; i < p.n_slots; i++)
    fxs_bulk_free (p.slots[i].buf);
  g_free (p.slots);
  g_free (threads);
  g_free (workers);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.cond);
}
