/* The fast path (json-reader.h, fxs_json_reader_parse_fast): an input read
 * by recursive descent straight into the consumer's streamed members and
 * collected trees, with no yajl and no token stream between.  A file is
 * read through a window (a few MiB at most for usual graphs, so a big file
 * costs no fresh memory of its size): the window moves on at the start of
 * each member of a streamed container, and a member that does not fit is
 * read again in a window twice as big.
 *
 * It accepts a strict subset of what the general path accepts and gives up
 * at the first byte outside it, and at every error, the consumer's
 * included, without reporting anything: the caller then reads the input
 * again the general way, which finds and reports the error exactly as
 * always.  So everything it accepts must be valid for the general path and
 * read the same: when in doubt it gives up.  Outside the subset: escaped
 * UTF-16 surrogates (yajl pairs them its own way), control characters,
 * blank runs and tokens longer than a quarter of the string limit (the
 * general path counts those limits per chunk), and anything that is not
 * valid JSON.  Strings without escapes, most of them, are copied as they
 * are; the others are decoded as yajl decodes them.
 */
#include "json-reader-private.h"
#include "util/bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Children of the containers being collected, until each is complete. */
typedef struct {
  FxsJson *items;
  gsize n, alloc;
} Stack;

/* The part of the input in memory, read from a file or (for tests and
 * fuzzers) copied from a buffer, as a file would give it. */
typedef struct {
  int fd;                   /* -1: the input is @data */
  const char *data;
  gsize length;
  gsize taken;              /* of @data */
  char *buf;
  gsize cap;
  gsize start;              /* the first cap: a bigger window grew for a member */
  gsize lookahead;          /* what a member starts with in the window */
  gsize max;                /* the biggest window */
} Window;

/* The window's usual size, one huge page (bulk.h: in a 4 KiB page heap
 * its first read alone would take 512 page faults); a member starts where
 * the window holds a sixteenth of that (or the rest of the input), more
 * only for a member that needs it, up to 64 times as much: a bigger member
 * goes the general way. */
#define WINDOW_START (FXS_BULK_HUGE_PAGE - FXS_BULK_HEADER)

static gsize window_start = WINDOW_START;

void
fxs_json_reader_set_fast_window (gsize bytes)
{
  window_start = bytes ? bytes : WINDOW_START;
}

static void
window_init (Window *w, int fd, const char *data, gsize length)
{
  gsize start = MAX (window_start, 2);
  *w = (Window) { fd, data, length, 0, fxs_bulk_alloc_uninit (start), start, start,
                  start / 16 ? start / 16 : 1, 64 * start };
}

/* A window grown for a big member goes back to the system (the pool keeps
 * blocks the size of the next ones). */
static void
window_free (Window *w)
{
  if (w->cap > w->start)
    fxs_bulk_release (w->buf);
  else
    fxs_bulk_free (w->buf);
}

/* Reads up to @n bytes into @to: how many (0 at the end), -1 on an error. */
static gssize
window_read (Window *w, char *to, gsize n)
{
  if (w->fd < 0)
    {
      n = MIN (n, w->length - w->taken);
      memcpy (to, w->data + w->taken, n);
      w->taken += n;
      return (gssize) n;
    }
  for (;;)
    {
      gssize got = read (w->fd, to, n);
      if (got >= 0 || errno != EINTR)
        return got;
    }
}

typedef struct {
  FxsJsonReader *r;
  Stack stack;
  const char *buf;          /* the input in memory: offset @off in the input */
  gint64 off;
  const char *p;            /* the next byte to read */
  const char *end;
  Window *win;              /* NULL when all of the input is in memory */
  gboolean more;            /* the input goes on past @end */
  gsize max_run;            /* longest token or blank run taken */
  gboolean too_long;        /* a run was longer: reading again cannot help */
  guint depth;              /* containers open, against FXS_JSON_MAX_DEPTH */
  FxsJsonRepeats member_repeats; /* of the reader's repeating member, */
  FxsJsonRepeats item_repeats;   /* and repeating items */
} Fast;

/* Where @p is in the input. */
static inline gint64
at (const Fast *f, const char *p)
{
  return f->off + (p - f->buf);
}

/* Moves the window on to start at @keep (the start of what is being read)
 * and fills it with at least @need bytes from there, or what is left of
 * the input; FALSE when it cannot (a read error, or more than the biggest
 * window). */
static gboolean
refill (Fast *f, const char *keep, gsize need)
{
  Window *w = f->win;
  gsize kept = (gsize) (f->end - keep), p = (gsize) (f->p - keep);
  if (need > w->max)
    return FALSE;
  f->off = at (f, keep);
  if (need > w->cap)
    {
      gsize cap = w->cap;
      while (cap < need)
        cap *= 2;
      char *buf = fxs_bulk_alloc_uninit (cap);
      memcpy (buf, keep, kept);
      window_free (w);
      w->buf = buf;
      w->cap = cap;
    }
  else
    memmove (w->buf, keep, kept);
  while (f->more && kept < w->cap)
    {
      gssize n = window_read (w, w->buf + kept, w->cap - kept);
      if (n < 0)
        return FALSE;
      if (n == 0)
        f->more = FALSE;
      kept += (gsize) n;
    }
  f->buf = w->buf;
  f->p = w->buf + p;
  f->end = w->buf + kept;
  return TRUE;
}

/* Before a member of a streamed container, or what follows it: the window
 * holds the lookahead from f->p on (or the rest of the input). */
static inline gboolean
ensure_lookahead (Fast *f)
{
  if (G_LIKELY (!f->more || (gsize) (f->end - f->p) >= f->win->lookahead))
    return TRUE;
  return refill (f, f->p, f->win->lookahead);
}

/* After reading from @start (an offset) failed or reached the window's
 * end: whether it is worth reading again from there, in a window twice as
 * big as what it had (then f->p is back at @start). */
static gboolean
read_again (Fast *f, gint64 start)
{
  if (!f->more || f->r->failed || f->too_long)
    return FALSE;
  const char *keep = f->buf + (start - f->off);
  gsize had = (gsize) (f->end - keep);
  f->p = keep;
  return refill (f, keep, MAX (2 * had, f->win->lookahead));
}

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline FxsJson *
push (Stack *s)
{
  if (G_UNLIKELY (s->n == s->alloc))
    {
      s->alloc = s->alloc ? 2 * s->alloc : 256;
      s->items = g_renew (FxsJson, s->items, s->alloc);
    }
  return &s->items[s->n++];
}

/* Whether a token or blank run of @len bytes is within the limit (else
 * noted: a bigger window would not change that). */
static inline gboolean
within_run (Fast *f, gsize len)
{
  if (G_LIKELY (len <= f->max_run))
    return TRUE;
  f->too_long = TRUE;
  return FALSE;
}

static gboolean
skip_blank_run (Fast *f)
{
  const char *start = f->p;
  while (f->p < f->end && is_blank (*f->p))
    f->p++;
  return within_run (f, (gsize) (f->p - start)) && f->p < f->end;
}

/* Skips blanks; FALSE at the end of the input or after too long a run.
 * Most tokens follow one another without blanks. */
static inline gboolean
skip_blanks (Fast *f)
{
  if (G_LIKELY (f->p < f->end && (guchar) *f->p > ' '))
    return TRUE;
  return skip_blank_run (f);
}

/* The run of plain string bytes from @p on, a byte at a time, for what the
 * wide scans below leave: where it ends (at a quote, a backslash, a
 * control character or @end), *@high set when it holds a byte >= 0x80. */
static inline const char *
plain_run_bytes (const char *p, const char *end, gboolean *high)
{
  for (; p < end; p++)
    {
      guchar c = (guchar) *p;
      if (c == '"' || c == '\\' || c < 0x20)
        break;
      if (c & 0x80)
        *high = TRUE;
    }
  return p;
}

/* Where the run of plain string bytes from @p on ends: at the first quote,
 * backslash, control character or the end of the input; *@high: whether
 * it holds a byte >= 0x80 (UTF-8 still to be checked). */
#ifdef __SSE2__
static inline const char *
plain_run (const char *p, const char *end, gboolean *high)
{
  /* sixteen bytes at a time (x86-64 has SSE2 always) */
  const __m128i quote = _mm_set1_epi8 ('"'), slash = _mm_set1_epi8 ('\\');
  const __m128i below = _mm_set1_epi8 (0x1f);
  guint any_high = 0;
  while (end - p >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) p);
      __m128i stop = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, quote),
                                                 _mm_cmpeq_epi8 (v, slash)),
                                   _mm_cmpeq_epi8 (_mm_min_epu8 (v, below), v));
      guint stops = (guint) _mm_movemask_epi8 (stop), highs = (guint) _mm_movemask_epi8 (v);
      if (G_LIKELY (stops))
        {
          guint first = (guint) __builtin_ctz (stops);
          *high = (any_high | (highs & ((1u << first) - 1))) != 0;
          return p + first;
        }
      any_high |= highs;
      p += 16;
    }
  *high = any_high != 0;
  return plain_run_bytes (p, end, high);
}
#else
static inline const char *
plain_run (const char *p, const char *end, gboolean *high)
{
  const guint64 ones = 0x0101010101010101u, tops = 0x8080808080808080u;
  const guint64 quotes = ones * '"', slashes = ones * '\\', below = ones * 0x20;
  guint64 any_high = 0;
  /* eight bytes at a time: the lowest flag of each test is exact */
  while (end - p >= 8)
    {
      guint64 w;
      memcpy (&w, p, 8);
      guint64 q = w ^ quotes, b = w ^ slashes;
      guint64 stop = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - below) & ~w)) & tops;
      if (stop)
        {
          guint first = (guint) __builtin_ctzll (stop) / 8;
          any_high |= w & tops & ((((guint64) 1) << (8 * first)) - 1);
          *high = any_high != 0;
          return p + first;
        }
      any_high |= w & tops;
      p += 8;
    }
  *high = any_high != 0;
  return plain_run_bytes (p, end, high);
}
#endif

/* The string whose opening quote is at f->p, when it has no escapes (1):
 * its text is [*@text, *@text + *@len) and f->p ends past its closing
 * quote; *@high: it holds a byte >= 0x80 (UTF-8 still to be checked).
 * -1: it has an escape (f->p is left anywhere); 0: it is not to be read. */
static inline int
scan_string (Fast *f, const char **text, gsize *len, gboolean *high)
{
  const char *s = ++f->p;
  gboolean any_high;
  const char *p = plain_run (s, f->end, &any_high);
  if (p < f->end && *p == '\\')
    return -1;
  if (!within_run (f, (gsize) (p - s)) || p >= f->end || *p != '"')
    return 0; /* too long, a control character or no end */
  *text = s;
  *len = (gsize) (p - s);
  *high = any_high;
  f->p = p + 1;
  return 1;
}

/* @len bytes of scanned text (no NUL in it) into the scratch memory as the
 * general path has them (fxs_json_copy_text: NUL-terminated, zero-padded
 * to whole words).  Most are keys and names shorter than 16 bytes: two
 * word loads, masked, where the input goes on for 16 bytes. */
static inline char *
copy_text (Fast *f, const char *text, gsize len)
{
  gsize words = len / 8 + 1;
  guint64 *copy = fxs_json_scratch_alloc (&f->r->scratch, 8 * words);
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  if (len < 16 && f->end - text >= 16)
    {
      guint64 a, b;
      memcpy (&a, text, 8);
      memcpy (&b, text + 8, 8);
      if (len < 8)
        copy[0] = a & ((G_GUINT64_CONSTANT (1) << (8 * len)) - 1);
      else
        {
          copy[0] = a;
          copy[1] = b & ((G_GUINT64_CONSTANT (1) << (8 * (len - 8))) - 1);
        }
      return (char *) copy;
    }
#endif
  copy[words - 1] = 0;
  memcpy (copy, text, len);
  return (char *) copy;
}

/* A scanned string into @out: FALSE when it is not strict UTF-8. */
static inline gboolean
copy_string (Fast *f, const char *text, gsize len, gboolean high, FxsJson *out)
{
  if (high && !fxs_json_is_strict_utf8 ((const guchar *) text, len))
    return FALSE;
  char *copy = copy_text (f, text, len);
  out->type = FXS_JSON_STRING;
  out->flags = 0; /* no NUL: no escapes, no control characters */
  out->n = (guint32) len;
  out->pos = at (f, text - 1);
  out->u.s = copy;
  return TRUE;
}

static int
hex_digit (char c)
{
  return c >= '0' && c <= '9' ? c - '0'
       : c >= 'a' && c <= 'f' ? c - 'a' + 10
       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The string with escapes whose opening quote is at f->p, decoded into the
 * scratch memory as yajl decodes it (a \u0000 is a NUL byte and sets
 * FXS_JSON_HAS_NUL), NUL-terminated and zero-padded.  FALSE at anything
 * the general path is to judge: a bad escape, a surrogate (yajl pairs
 * them its own way), a control character, no end, not strict UTF-8. */
static gboolean
decode_string (Fast *f, FxsJson *out)
{
  const char *s = f->p + 1, *p = s;
  /* the end first: the text decoded is never longer */
  while (p < f->end && *p != '"')
    {
      if ((guchar) *p < 0x20 || (*p == '\\' && f->end - p < 2))
        return FALSE;
      p += *p == '\\' ? 2 : 1;
    }
  if (!within_run (f, (gsize) (p - s)) || p >= f->end)
    return FALSE;
  const char *close = p;
  gsize room = 8 * ((gsize) (close - s) / 8 + 1);
  guchar *d = fxs_json_scratch_alloc (&f->r->scratch, room), *to = d;
  guint8 flags = 0;
  guchar high = 0;
  for (p = s; p < close;)
    {
      guchar c = (guchar) *p++;
      if (c != '\\')
        {
          high |= c;
          *to++ = c;
          continue;
        }
      switch (*p++)
        {
        case '"': *to++ = '"'; break;
        case '\\': *to++ = '\\'; break;
        case '/': *to++ = '/'; break;
        case 'b': *to++ = '\b'; break;
        case 'f': *to++ = '\f'; break;
        case 'n': *to++ = '\n'; break;
        case 'r': *to++ = '\r'; break;
        case 't': *to++ = '\t'; break;
        case 'u':
          {
            if (close - p < 4)
              return FALSE;
            guint32 cp = 0;
            for (int k = 0; k < 4; k++)
              {
                int h = hex_digit (p[k]);
                if (h < 0)
                  return FALSE;
                cp = cp << 4 | (guint32) h;
              }
            p += 4;
            if (cp >= 0xd800 && cp <= 0xdfff)
              return FALSE;
            if (cp == 0)
              flags = FXS_JSON_HAS_NUL;
            if (cp < 0x80)
              *to++ = (guchar) cp;
            else if (cp < 0x800)
              {
                *to++ = (guchar) (0xc0 | cp >> 6);
                *to++ = (guchar) (0x80 | (cp & 0x3f));
              }
            else
              {
                *to++ = (guchar) (0xe0 | cp >> 12);
                *to++ = (guchar) (0x80 | (cp >> 6 & 0x3f));
                *to++ = (guchar) (0x80 | (cp & 0x3f));
              }
            high |= cp >= 0x80 ? 0x80 : 0;
            break;
          }
        default:
          return FALSE;
        }
    }
  gsize len = (gsize) (to - d);
  memset (to, 0, room - len);
  if ((high & 0x80) && !fxs_json_is_strict_utf8 (d, len))
    return FALSE;
  out->type = FXS_JSON_STRING;
  out->flags = flags;
  out->n = (guint32) len;
  out->pos = at (f, s - 1);
  out->u.s = (const char *) d;
  f->p = close + 1;
  return TRUE;
}

#ifdef __SSE2__
/* A string of up to 15 ASCII bytes without escapes (most keys and names) whose
 * opening quote is at f->p, where the input goes on for 16 bytes past it:
 * one load finds its end and is its copy, masked (as copy_text() has it).
 * FALSE for any other string, f->p unmoved. */
static inline gboolean
short_string (Fast *f, FxsJson *out)
{
  static const guint8 keep[32] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  const char *s = f->p + 1;
  if (f->end - s < 16)
    return FALSE;
  __m128i v = _mm_loadu_si128 ((const __m128i *) s);
  __m128i quote = _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('"'));
  /* a quote, a backslash, a control character or a byte >= 0x80 (below
   * 0x20 as a signed byte): its first must be the closing quote */
  __m128i stop = _mm_or_si128 (_mm_or_si128 (quote, _mm_cmpeq_epi8 (v, _mm_set1_epi8 ('\\'))),
                               _mm_cmplt_epi8 (v, _mm_set1_epi8 (0x20)));
  guint stops = (guint) _mm_movemask_epi8 (stop), quotes = (guint) _mm_movemask_epi8 (quote);
  if (!(stops & -stops & quotes))
    return FALSE;
  guint len = (guint) __builtin_ctz (stops);
  if (len > f->max_run)
    return FALSE;
  __m128i text = _mm_and_si128 (v, _mm_loadu_si128 ((const __m128i *) (keep + 16 - len)));
  void *copy = fxs_json_scratch_alloc (&f->r->scratch, 8 * (len / 8 + 1));
  if (len < 8)
    _mm_storel_epi64 (copy, text);
  else
    _mm_storeu_si128 (copy, text);
  out->type = FXS_JSON_STRING;
  out->flags = 0;
  out->n = len;
  out->pos = at (f, f->p);
  out->u.s = copy;
  f->p = s + len + 1;
  return TRUE;
}
#endif

/* The string whose opening quote is at f->p into @out, escapes or not
 * (inlined: most values and all keys are strings). */
G_ALWAYS_INLINE static inline gboolean
string_value (Fast *f, FxsJson *out)
{
#ifdef __SSE2__
  if (G_LIKELY (short_string (f, out)))
    return TRUE;
#endif
  const char *start = f->p, *text;
  gsize len;
  gboolean high;
  int plain = scan_string (f, &text, &len, &high);
  if (plain > 0)
    return copy_string (f, text, len, high, out);
  f->p = start;
  return plain < 0 && decode_string (f, out);
}

static inline gboolean
is_digit (char c)
{
  return c >= '0' && c <= '9';
}

/* A number as JSON has it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * (what follows it is checked by the caller). */
static gboolean
scan_number (Fast *f, FxsJson *out)
{
  const char *s = f->p, *p = s, *end = f->end;
  guint8 flags = FXS_JSON_INTEGER;
  if (p < end && *p == '-')
    p++;
  if (p < end && *p == '0')
    p++;
  else if (p < end && *p >= '1' && *p <= '9')
    while (p < end && is_digit (*p))
      p++;
  else
    return FALSE;
  if (p < end && *p == '.')
    {
      flags = 0;
      if (++p >= end || !is_digit (*p))
        return FALSE;
      while (p < end && is_digit (*p))
        p++;
    }
  if (p < end && (*p == 'e' || *p == 'E'))
    {
      flags = 0;
      if (++p < end && (*p == '+' || *p == '-'))
        p++;
      if (p >= end || !is_digit (*p))
        return FALSE;
      while (p < end && is_digit (*p))
        p++;
    }
  gsize len = (gsize) (p - s);
  if (!within_run (f, len))
    return FALSE;
  out->u.s = copy_text (f, s, len);
  out->type = FXS_JSON_NUMBER;
  out->flags = flags;
  out->n = (guint32) len;
  out->pos = at (f, s);
  f->p = p;
  return TRUE;
}

static gboolean
scan_word (Fast *f, const char *word, gsize len)
{
  if ((gsize) (f->end - f->p) < len || memcmp (f->p, word, len) != 0)
    return FALSE;
  f->p += len;
  return TRUE;
}

/* A collected object right in a streamed container (@direct): its scalar
 * members go to the consumer's peek() too (a look ahead) when it has one
 * (@on), and its repeating member is looked for (json-reader.h). */
typedef struct {
  gboolean on;
  gboolean direct;
  int parent_tag;
} Peek;

static const Peek no_peek = { FALSE, FALSE, 0 };

static gboolean push_value (Fast *f, Peek peek);

/* After an item of a container: blanks, then ',' (TRUE, *@more) or @close
 * (TRUE, !*@more). */
static inline gboolean
next_item (Fast *f, char close, gboolean *more)
{
  if (!skip_blanks (f))
    return FALSE;
  char c = *f->p++;
  *more = c == ',';
  if (*more)
    return skip_blanks (f);
  return c == close;
}

/* The children of the container being collected, from @start on the
 * pending stack, moved into the scratch memory as its items; the container
 * takes their place on the stack. */
static gboolean
finish_container (Fast *f, FxsJsonType type, gint64 pos, gsize start)
{
  FxsJsonReader *r = f->r;
  gsize n = f->stack.n - start;
  gsize count = type == FXS_JSON_OBJECT ? n / 2 : n;
  if (count > G_MAXUINT32)
    return FALSE;
  const FxsJson *children = n ? &f->stack.items[start] : NULL;
  if (type == FXS_JSON_OBJECT && count > 1 && fxs_json_find_duplicate_key (children, count))
    return FALSE;
  FxsJson *items = NULL;
  if (n)
    {
      items = fxs_json_scratch_alloc (&r->scratch, n * sizeof (FxsJson));
      memcpy (items, children, n * sizeof (FxsJson));
    }
  f->stack.n = start;
  FxsJson *out = push (&f->stack);
  out->type = type;
  out->flags = 0;
  out->n = (guint32) count;
  out->pos = pos;
  out->u.items = items;
  return TRUE;
}

/* A value at f->p whose text is one of @reps's (json-reader.h: repeating
 * members and items): its tree pushed on the pending stack, f->p past it
 * and the item's repeat identifier set.  FALSE (nothing done) for another. */
static gboolean
repeated_value (Fast *f, FxsJsonRepeats *reps)
{
  gsize len;
  const FxsJson *tree = fxs_json_repeats_find (reps, f->p, (gsize) (f->end - f->p),
                                               FXS_JSON_MAX_DEPTH - f->depth, &len,
                                               &f->r->repeat_id);
  if (!tree)
    return FALSE;
  FxsJson *out = push (&f->stack);
  *out = *tree;
  out->pos = at (f, f->p);
  f->p += len;
  return TRUE;
}

/* The value just pushed, read from @start to f->p, into @reps (when it
 * takes it), with a new identifier. */
static void
remember_value (Fast *f, FxsJsonRepeats *reps, const char *start)
{
  FxsJsonReader *r = f->r;
  guint64 id = r->repeat_ids + 1;
  if (fxs_json_repeats_add (reps, start, (gsize) (f->p - start), &f->stack.items[f->stack.n - 1],
                            id))
    r->repeat_id = r->repeat_ids = id;
}

/* An object or array being collected, its opening bracket at f->p: pushed
 * on the pending stack. */
static gboolean
collect_container (Fast *f, Peek peek)
{
  FxsJsonReader *r = f->r;
  gboolean object = *f->p == '{';
  gint64 pos = at (f, f->p);
  char close = object ? '}' : ']';
  if (f->depth == FXS_JSON_MAX_DEPTH)
    return FALSE;
  f->depth++;
  f->p++;
  gsize start = f->stack.n;
  if (!skip_blanks (f))
    return FALSE;
  gboolean more = *f->p != close;
  if (!more)
    f->p++;
  while (more)
    {
      gboolean repeating = FALSE;
      if (object)
        {
          FxsJson *key = push (&f->stack);
          if (*f->p != '"' || !string_value (f, key))
            return FALSE;
          if (!skip_blanks (f) || *f->p++ != ':' || !skip_blanks (f))
            return FALSE;
          repeating = peek.direct && peek.parent_tag == r->repeat_tag && r->repeat_key
                      && key->n == r->repeat_key_len
                      && memcmp (key->u.s, r->repeat_key, key->n) == 0;
        }
      const char *value_start = f->p;
      if (repeating && repeated_value (f, &f->member_repeats))
        ;
      else if (!push_value (f, no_peek))
        return FALSE;
      else if (repeating)
        remember_value (f, &f->member_repeats, value_start);
      if (object && peek.on && f->stack.items[f->stack.n - 1].type < FXS_JSON_ARRAY)
        {
          const FxsJson *kv = &f->stack.items[f->stack.n - 2];
          r->handler.peek (r, r->user_data, peek.parent_tag, kv, kv + 1);
        }
      if (!next_item (f, close, &more))
        return FALSE;
    }
  f->depth--;
  return finish_container (f, object ? FXS_JSON_OBJECT : FXS_JSON_ARRAY, pos, start);
}

static inline void
set_literal (FxsJson *out, FxsJsonType type, gint64 pos)
{
  out->type = type;
  out->flags = 0;
  out->n = 0;
  out->pos = pos;
  out->u.s = NULL;
}

/* The value at f->p (blanks skipped), pushed on the pending stack.  Each is
 * written in its slot where it is read: a value made elsewhere and copied
 * there stalls the copy's wide load on the narrow stores that made it. */
static gboolean
push_value (Fast *f, Peek peek)
{
  gint64 pos = at (f, f->p);
  switch (*f->p)
    {
    case '"':
      return string_value (f, push (&f->stack));
    case '{':
    case '[':
      return collect_container (f, peek);
    case 't':
    case 'f':
      {
        gboolean b = *f->p == 't';
        if (!scan_word (f, b ? "true" : "false", b ? 4 : 5))
          return FALSE;
        FxsJson *out = push (&f->stack);
        set_literal (out, FXS_JSON_BOOL, pos);
        out->u.b = b;
        return TRUE;
      }
    case 'n':
      if (!scan_word (f, "null", 4))
        return FALSE;
      set_literal (push (&f->stack), FXS_JSON_NULL, pos);
      return TRUE;
    default:
      return scan_number (f, push (&f->stack));
    }
}

static gboolean stream_member (Fast *f, FxsJsonItem *item);

/* A streamed object's key at f->p, its colon and the blanks around it. */
static inline gboolean
member_key (Fast *f, FxsJson *key)
{
  return *f->p == '"' && string_value (f, key) && skip_blanks (f) && *f->p++ == ':'
         && skip_blanks (f);
}

/* The members of a streamed container whose opening bracket is at f->p,
 * then the consumer's end(). */
static gboolean
stream_container (Fast *f, gboolean object, int tag, gboolean own_keys)
{
  FxsJsonReader *r = f->r;
  char close = object ? '}' : ']';
  if (f->depth == FXS_JSON_MAX_DEPTH)
    return FALSE;
  f->depth++;
  f->p++;
  GHashTable *keys = NULL;
  gboolean ok = FALSE, more;
  guint64 count = 0;
  /* what is read between members is read again in a bigger window where
   * it ran past the window's end */
  gint64 from = at (f, f->p);
  while (!skip_blanks (f))
    if (!read_again (f, from))
      goto out;
  more = *f->p != close;
  if (!more)
    f->p++;
  while (more)
    {
      FxsJsonItem item = { .parent_tag = tag, .index = count };
      if (!ensure_lookahead (f))
        goto out;
      if (object)
        {
          /* lives until the member is finished, as the general path's */
          FxsJson key;
          from = at (f, f->p);
          while (!member_key (f, &key))
            if (!read_again (f, from))
              goto out;
          if (!own_keys && !fxs_json_key_set_add (&keys, key.u.s, key.n))
            goto out;
          item.key = key.u.s;
          item.key_len = key.n;
          item.key_pos = key.pos;
          item.index = 0;
        }
      if (!stream_member (f, &item))
        goto out;
      from = at (f, f->p);
      while (!next_item (f, close, &more))
        if (!read_again (f, from))
          goto out;
      count++;
    }
  f->depth--;
  ok = r->handler.end (r, r->user_data, tag, count, at (f, f->p - 1));
out:
  if (keys)
    g_hash_table_unref (keys);
  return ok;
}

/* One member of a streamed container (or the top-level value) at f->p: the
 * consumer's begin() says whether to collect or stream it. */
static gboolean
stream_member (Fast *f, FxsJsonItem *item)
{
  FxsJsonReader *r = f->r;
  char c = *f->p;
  item->pos = at (f, f->p);
  item->type = c == '{' ? FXS_JSON_OBJECT : c == '[' ? FXS_JSON_ARRAY
             : c == '"' ? FXS_JSON_STRING : c == 't' || c == 'f' ? FXS_JSON_BOOL
             : c == 'n' ? FXS_JSON_NULL : FXS_JSON_NUMBER;
  gboolean container = item->type == FXS_JSON_OBJECT || item->type == FXS_JSON_ARRAY;
  /* a scalar is read before begin(), as the general path does; the value
   * is the top of the pending stack until the member is finished */
  gsize below = f->stack.n;
  /* a scalar is known whole only where something follows it */
  if (!container)
    while (!push_value (f, no_peek) || (f->p == f->end && f->more))
      {
        f->stack.n = below;
        if (!read_again (f, item->pos))
          return FALSE;
      }
  int tag = 0;
  r->in_item = TRUE;
  FxsJsonAction action = r->handler.begin (r, r->user_data, item, &tag);
  r->in_item = FALSE;
  if (action == FXS_JSON_FAIL || r->failed)
    return FALSE;
  gboolean ok;
  if (container && (action == FXS_JSON_STREAM || action == FXS_JSON_STREAM_OWN_KEYS))
    ok = stream_container (f, item->type == FXS_JSON_OBJECT, tag,
                           action == FXS_JSON_STREAM_OWN_KEYS);
  else
    {
      /* as the general path: objects collected in a streamed container
       * (not the top-level value) show their scalar members early */
      gboolean direct = f->depth > 0 && item->type == FXS_JSON_OBJECT;
      Peek peek = { r->handler.peek && direct, direct, item->parent_tag };
      guint depth = f->depth;
      FxsJsonRepeats *reps = r->repeat_items && item->parent_tag == r->repeat_items_tag
                             ? &f->item_repeats : NULL;
      /* a repeat is known only once all of it is in the window */
      while (container && !(reps && repeated_value (f, reps)))
        {
          if (push_value (f, peek))
            {
              if (reps)
                remember_value (f, reps, f->buf + (item->pos - f->off));
              break;
            }
          /* peek() may see the same members again: only a look ahead */
          f->stack.n = below;
          f->depth = depth;
          if (!read_again (f, item->pos))
            return FALSE;
        }
      r->in_item = TRUE;
      ok = r->handler.value (r, r->user_data, item, &f->stack.items[below]);
      r->in_item = FALSE;
    }
  f->stack.n = below;
  f->member_repeats.pinned = f->item_repeats.pinned = FXS_JSON_REPEAT_NONE;
  r->repeat_id = 0;
  fxs_json_scratch_reset (&r->scratch);
  return ok && !r->failed;
}

/* After the value: only blanks, at most a run's worth. */
static gboolean
only_blanks_left (Fast *f)
{
  gsize run = 0;
  for (;;)
    {
      const char *start = f->p;
      while (f->p < f->end && is_blank (*f->p))
        f->p++;
      run += (gsize) (f->p - start);
      if (f->p < f->end || run > f->max_run)
        return FALSE;
      if (!f->more)
        return TRUE;
      if (!refill (f, f->p, f->win->lookahead))
        return FALSE;
    }
}

/* The whole input, from what is in @f on. */
static gboolean
parse (Fast *f)
{
  FxsJsonItem top = { 0 };
  gboolean ok = TRUE;
  f->r->repeat_id = 0;
  while (ok && !skip_blanks (f))
    ok = read_again (f, at (f, f->buf));
  ok = ok && stream_member (f, &top) && only_blanks_left (f);
  fxs_json_repeats_clear (&f->member_repeats);
  fxs_json_repeats_clear (&f->item_repeats);
  g_free (f->stack.items);
  return ok;
}

static guint n_read, n_given_up;

static Fast
fast_new (FxsJsonReader *reader)
{
  Fast f = { .r = reader, .max_run = reader->max_string / 4,
             .member_repeats.pinned = FXS_JSON_REPEAT_NONE,
             .item_repeats.pinned = FXS_JSON_REPEAT_NONE };
  return f;
}

static gboolean
counted (gboolean ok)
{
  g_atomic_int_inc (ok ? &n_read : &n_given_up);
  return ok;
}

gboolean
fxs_json_reader_parse_fast (FxsJsonReader *reader, const char *data, gsize length)
{
  g_return_val_if_fail (reader->feed.yajl == NULL && reader->depth == 0, FALSE);
  Fast f = fast_new (reader);
  f.buf = f.p = data;
  f.end = data + length;
  return counted (parse (&f));
}

/* The input that @win reads. */
static gboolean
parse_windowed (FxsJsonReader *reader, Window *win)
{
  Fast f = fast_new (reader);
  f.buf = f.p = f.end = win->buf;
  f.win = win;
  f.more = TRUE;
  gboolean ok = parse (&f);
  window_free (win);
  return counted (ok);
}

gboolean
fxs_json_reader_parse_fast_file (FxsJsonReader *reader, const char *path)
{
  g_return_val_if_fail (reader->feed.yajl == NULL && reader->depth == 0, FALSE);
  /* only a regular file can be read again the general way (O_NONBLOCK:
   * opening a FIFO does not wait for a writer; reading a regular file
   * ignores it) */
  int fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    return FALSE;
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return FALSE;
    }
  Window win;
  window_init (&win, fd, NULL, 0);
  gboolean ok = parse_windowed (reader, &win);
  close (fd);
  return ok;
}

gboolean
fxs_json_reader_parse_fast_windowed (FxsJsonReader *reader, const char *data, gsize length)
{
  g_return_val_if_fail (reader->feed.yajl == NULL && reader->depth == 0, FALSE);
  Window win;
  window_init (&win, -1, data, length);
  return parse_windowed (reader, &win);
}

void
fxs_json_reader_fast_counts (guint *read, guint *given_up)
{
  *read = (guint) g_atomic_int_get (&n_read);
  *given_up = (guint) g_atomic_int_get (&n_given_up);
}

static gint fast_path = FXS_JSON_FAST_AUTO;

void
fxs_json_reader_set_fast_path (FxsJsonFastPath mode)
{
  g_atomic_int_set (&fast_path, (gint) mode);
}

FxsJsonFastPath
fxs_json_reader_get_fast_path (void)
{
  return (FxsJsonFastPath) g_atomic_int_get (&fast_path);
}
