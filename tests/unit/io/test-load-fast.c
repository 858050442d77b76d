/* Unit tests of the loader's fast path (core/io/json-reader-fast.c): it reads
 * the graph files it knows, gives up on everything else, and whatever the
 * input, loading with the fast path first gives what the general path
 * alone gives: the same graph (saved text) or the same error. */
#include <fxsplit/fxsplit.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "io/json-reader.h"
#include "../test-util.h"

#define HEAD "{\"format\": \"fxsplit-graph\", \"version\": 1,\n"
#define X "{\"name\": \"x\", \"op\": \"placeholder\", \"target\": \"x\"}"
#define OUT "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [null]}"
#define NODES(...) HEAD "\"nodes\": [\n" __VA_ARGS__ "\n]}"
/* a node whose args are @A */
#define ADD(A) "{\"name\": \"add\", \"op\": \"call_function\", \"target\": \"_operator.add\", " \
  "\"args\": " A "}"
#define WITH_ARGS(A) NODES (X ",\n" ADD (A) ",\n" OUT)

/* What one loading gave: the graph's saved text, or the error. */
typedef struct {
  char *text;
  char *error;
  int code;
} Outcome;

static Outcome
load_with (const char *json, gsize len, const char *path, FxsJsonFastPath mode)
{
  fxs_json_reader_set_fast_path (mode);
  GError *error = NULL;
  FxsGraph *g = path ? fxs_graph_load_file (path, &error)
                     : fxs_graph_load_data (json, len, "t.json", &error);
  fxs_json_reader_set_fast_path (FXS_JSON_FAST_AUTO);
  Outcome o = { NULL, NULL, 0 };
  if (g)
    {
      GString *text = g_string_new (NULL);
      fxs_graph_to_json (g, text);
      o.text = g_string_free (text, FALSE);
      fxs_graph_unref (g);
    }
  else
    {
      o.error = g_strdup (error->message);
      o.code = error->code;
      g_error_free (error);
    }
  return o;
}

enum { GIVES_UP, READS, EITHER };

/* Loads @json (or the file at @path) with the fast path first: the outcome
 * must be @general's, and the fast path must have read it or given up as
 * @expect says. */
static void
check_fast (const Outcome *general, const char *json, gsize len, const char *path, int expect,
            const char *how)
{
  guint read0, gave0, read1, gave1;
  fxs_json_reader_fast_counts (&read0, &gave0);
  Outcome fast = load_with (json, len, path, FXS_JSON_FAST_AUTO);
  fxs_json_reader_fast_counts (&read1, &gave1);
  CU_ASSERT_EQUAL (read1 + gave1, read0 + gave0 + 1);
  if (expect == READS)
    CU_ASSERT_EQUAL (read1, read0 + 1);
  if (expect == GIVES_UP)
    CU_ASSERT_EQUAL (gave1, gave0 + 1);
  gboolean same = general->text ? fast.text && strcmp (general->text, fast.text) == 0
                                 : fast.error && strcmp (general->error, fast.error) == 0
                                   && general->code == fast.code;
  CU_ASSERT_TRUE (same);
  if (!same || (expect == READS && read1 != read0 + 1)
      || (expect == GIVES_UP && gave1 != gave0 + 1))
    fprintf (stderr, "\n  %s: general: %s\n  fast: %s (%s)\n", how,
             general->error ? general->error : "(loaded)", fast.error ? fast.error : "(loaded)",
             read1 > read0 ? "read" : "gave up");
  g_free (fast.text);
  g_free (fast.error);
}

/* Windows for reading files in tests: each moves the window's edges to
 * other bytes of the input (the biggest member they take is 64 times the
 * size: 2 KiB for the smallest). */
static const gsize test_windows[] = { 32, 33, 47, 64, 100, 256 };

/* Loads @json (or the file at @path) both ways: the outcomes must be the
 * same, and the fast path must have read it or given up as @expect says.
 * @json is also written to a file and read through windows of every size
 * in test_windows. */
static void
check_same_at (const char *json, gsize len, const char *path, int expect)
{
  Outcome general = load_with (json, len, path, FXS_JSON_FAST_NEVER);
  check_fast (&general, json, len, path, expect, path ? "file" : "data");
  if (json)
    {
      char *file = NULL;
      int fd = g_file_open_tmp ("fxsplit-fast-XXXXXX.json", &file, NULL);
      CU_ASSERT_TRUE_FATAL (fd >= 0);
      close (fd);
      CU_ASSERT_TRUE_FATAL (g_file_set_contents (file, json, (gssize) len, NULL));
      /* the general path names the input by its path */
      Outcome general_file = load_with (NULL, 0, file, FXS_JSON_FAST_NEVER);
      for (guint i = 0; i < G_N_ELEMENTS (test_windows); i++)
        {
          char how[64];
          g_snprintf (how, sizeof how, "window of %zu", test_windows[i]);
          fxs_json_reader_set_fast_window (test_windows[i]);
          check_fast (&general_file, NULL, 0, file, expect, how);
        }
      fxs_json_reader_set_fast_window (0);
      g_unlink (file);
      g_free (file);
      g_free (general_file.text);
      g_free (general_file.error);
    }
  g_free (general.text);
  g_free (general.error);
}

static void
check_same (const char *json, int expect)
{
  check_same_at (json, strlen (json), NULL, expect);
}

/* ---- what it reads ---------------------------------------------------------- */

static void
test_fast_reads_graph_files (void)
{
  /* exports of real models by python/fxsplit_torch, and a split result */
  static const char *const files[] = { "load/torch-export.json", "load/split-result.json",
                                       "models/resnet18.json" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      char *path = g_build_filename (FXS_TEST_DATA_DIR, files[i], NULL);
      check_same_at (NULL, 0, path, READS);
      char *data;
      gsize len;
      CU_ASSERT_TRUE_FATAL (g_file_get_contents (path, &data, &len, NULL));
      check_same_at (data, len, NULL, READS);
      g_free (data);
      g_free (path);
    }
}

static void
test_fast_reads_values (void)
{
  /* every kind of scalar, blanks of every kind, empty containers */
  check_same (WITH_ARGS ("[{\"node\": \"x\"}, 0]"), READS);
  check_same (WITH_ARGS ("[{\"node\": \"x\"}, -0, 1.5, -2e10, 1E+2, 3e-2, 0.25]"), READS);
  check_same (WITH_ARGS ("[true, false, null, [], {\"tuple\": []}, \"\"]"), READS);
  check_same (WITH_ARGS ("[\"caf\xc3\xa9\", \"\xe2\x82\xac\", \"\xf0\x9f\x98\x80\"]"), READS);
  check_same (WITH_ARGS ("[\"seven b\", \"eight by\", \"a string of more than sixteen\"]"),
              READS);
  check_same ("\t\r\n " NODES (X ",\n" OUT) " \n\t", READS);
  check_same (HEAD "\"x-extension\": {\"a\": [1, {\"b\": null}], \"c\": \"d\"},\n"
              "\"nodes\": [" X ", " OUT "]}", READS);
  check_same (HEAD "\"attributes\": {\"w\": {\"kind\": \"parameter\", \"shape\": [2, 3]}},\n"
              "\"nodes\": [" X ", " OUT "]}", READS);
}

/* A string of @len bytes, 'a' but for @what at @at (when @what is set). */
static char *
string_of (guint len, const char *what, guint at)
{
  GString *t = g_string_new (NULL);
  for (guint i = 0; i < len; i++)
    if (what && i == at)
      g_string_append (t, what);
    else
      g_string_append_c (t, 'a');
  return g_string_free (t, FALSE);
}

static void
test_fast_reads_strings_of_every_length (void)
{
  /* around the sixteen bytes the fast path reads at once: with a
   * multi-byte character, an escape, a control character or a lone
   * continuation byte at the start, middle and end; as a value in the
   * middle of the input and as the last one, with less than sixteen bytes
   * after it */
  static const struct {
    const char *what;
    int expect;
  } variants[] = {
    { NULL, READS }, { "\xc3\xa9", READS }, { "\\n", READS }, { "\\\"", READS },
    { "\x01", GIVES_UP }, { "\x80", GIVES_UP },
  };
  for (guint len = 0; len <= 40; len++)
    for (guint v = 0; v < G_N_ELEMENTS (variants); v++)
      for (guint at = 0; at < 3; at++)
        {
          if (variants[v].what && len == 0)
            continue;
          char *text = string_of (len, variants[v].what, at == 0 ? 0 : at == 1 ? len / 2 : len - 1);
          char *middle = g_strdup_printf (WITH_ARGS ("[\"%s\", 1]"), text);
          char *last = g_strdup_printf (NODES (X ",\n" OUT) "\"x-s\": \"%s\"}", text);
          /* the second form: an extension member after the nodes */
          last[strlen (last) - strlen ("\"x-s\": \"\"}") - strlen (text) - 1] = ',';
          check_same (middle, variants[v].expect);
          check_same (last, variants[v].expect);
          g_free (last);
          g_free (middle);
          if (!variants[v].what)
            {
              /* the same key twice, then different bytes: a duplicate, which the
               * general path reports (keys are compared with their padding) */
              char *twice = g_strdup_printf (HEAD "\"x-e\": [{\"%s\": 1, \"%s\": 2}],\n"
                                             "\"nodes\": [" X ", " OUT "]}", text, text);
              check_same (twice, GIVES_UP);
              g_free (twice);
              g_free (text);
              break;
            }
          g_free (text);
        }
}

/* ---- what it leaves to the general path ----------------------------------- */

static void
test_fast_reads_escapes (void)
{
  /* decoded as yajl decodes them */
  check_same (WITH_ARGS ("[\"a\\\"b\", \"back\\\\slash\", \"\\/\", \"\\b\\f\\n\\r\\t\"]"), READS);
  check_same (WITH_ARGS ("[\"caf\\u00e9\", \"\\u20AC\", \"\\u0041\\u007f\\u0080\\u07ff\\u0800\\uffff\"]"),
              READS);
  check_same (HEAD "\"x-k\\u0065y\": {\"a\\\"b\": 1}, \"attributes\": {\"w\\u00e9\": "
              "{\"kind\": \"parameter\"}}, \"nodes\": [" X ", " OUT "]}", READS);
  /* keys of a streamed object that differ only after a NUL are two keys;
   * the same key twice is a duplicate */
  check_same (HEAD "\"x-a\\u0000b\": 1, \"x-a\\u0000c\": 2, \"nodes\": [" X ", " OUT "]}", READS);
  check_same (HEAD "\"x-a\\u0000b\": 1, \"x-a\\u0000b\": 2, \"nodes\": [" X ", " OUT "]}",
              GIVES_UP);
  /* a NUL decoded, a newline in a name: the loader judges them the same */
  check_same (WITH_ARGS ("[\"nul \\u0000 inside\"]"), EITHER);
  check_same (NODES ("{\"name\": \"x\\n\", \"op\": \"placeholder\", \"target\": \"x\"}, " OUT),
              EITHER);
  /* left to the general path: surrogates (yajl pairs them its own way),
   * bad escapes */
  static const char *const left[] = {
    WITH_ARGS ("[\"\\ud83d\\ude00\"]"),
    WITH_ARGS ("[\"\\ud800\"]"),
    WITH_ARGS ("[\"\\udc00 alone\"]"),
    WITH_ARGS ("[\"\\x41\"]"),
    WITH_ARGS ("[\"\\u12\"]"),
    WITH_ARGS ("[\"\\uzzzz\"]"),
    WITH_ARGS ("[\"ends in a backslash\\\"]"),
    WITH_ARGS ("[\"a\\\"b\tc\"]"),                 /* a raw tab after an escape */
  };
  for (guint i = 0; i < G_N_ELEMENTS (left); i++)
    check_same (left[i], GIVES_UP);
}

static void
test_fast_gives_up_on_invalid_json (void)
{
  static const char *const cases[] = {
    "",
    "   \n ",
    "hello",
    "\xef\xbb\xbf" NODES (X ", " OUT),           /* a byte order mark */
    NODES (X ", " OUT) " x",                     /* trailing garbage */
    NODES (X ", " OUT) " {}",                    /* a second value */
    HEAD "\"nodes\": [" X,                       /* truncated */
    HEAD "\"nodes\": [" X ", " OUT "]",
    WITH_ARGS ("[01]"),
    WITH_ARGS ("[1.]"),
    WITH_ARGS ("[.5]"),
    WITH_ARGS ("[-]"),
    WITH_ARGS ("[+1]"),
    WITH_ARGS ("[1e]"),
    WITH_ARGS ("[1e+]"),
    WITH_ARGS ("[1x]"),
    WITH_ARGS ("[1,]"),
    WITH_ARGS ("[tru]"),
    WITH_ARGS ("[nulls]"),
    WITH_ARGS ("[\"tab\there\"]"),               /* a raw control character */
    WITH_ARGS ("[\"\xc0\xaf\"]"),                /* overlong */
    WITH_ARGS ("[\"\xed\xa0\x80\"]"),            /* a surrogate */
    WITH_ARGS ("[\"\xff\"]"),
    WITH_ARGS ("[\"\xe2\x82\"]"),                /* cut short */
    WITH_ARGS ("[\"open]"),
    HEAD "\"nodes\": [" X ", " OUT ",]}",
    HEAD "\"nodes\": [" X " " OUT "]}",
    HEAD "\"nodes\" [" X ", " OUT "]}",
    HEAD "\"x-a\": {\"b\": 1,}, \"nodes\": [" X ", " OUT "]}",
    HEAD "\"x-a\": {\"b\" 1}, \"nodes\": [" X ", " OUT "]}",
    HEAD "\"x-a\": {1: 1}, \"nodes\": [" X ", " OUT "]}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    check_same (cases[i], GIVES_UP);
}

static void
test_fast_gives_up_on_graph_errors (void)
{
  /* errors the consumer finds: the fast path stops, the general path says */
  check_same (NODES (X ", " X ", " OUT), GIVES_UP);                /* duplicate node */
  check_same (WITH_ARGS ("[{\"node\": \"y\"}]"), GIVES_UP);        /* unknown node */
  check_same (NODES ("{\"name\": \"x\", \"name\": \"y\", \"op\": \"placeholder\", "
                     "\"target\": \"x\"}, " OUT), GIVES_UP);       /* duplicate key */
  check_same (HEAD "\"nodes\": [" X ", " OUT "], \"nodes\": []}", GIVES_UP);
  check_same (HEAD "\"attributes\": {\"w\": {\"kind\": \"parameter\"}, \"w\": {\"kind\": "
              "\"parameter\"}}, \"nodes\": [" X ", " OUT "]}", GIVES_UP);
  check_same ("{\"version\": 1, \"format\": \"fxsplit-graph\", \"nodes\": [" X ", " OUT "]}",
              READS);
  check_same ("{\"nodes\": [" X ", " OUT "], \"format\": \"fxsplit-graph\", \"version\": 1}",
              GIVES_UP);
  check_same ("[1, 2]", GIVES_UP);
  check_same (HEAD "\"nodes\": []}", GIVES_UP); /* no output node: found at the end */
  check_same (WITH_ARGS ("[123456789012345678901234567890]"), GIVES_UP);
}

static void
test_fast_depth_limit (void)
{
  /* exactly the limit is read, one more is left to the general path (the
   * top-level object and the extension member's array take two levels) */
  for (guint extra = 0; extra < 2; extra++)
    {
      guint depth = FXS_JSON_MAX_DEPTH - 1 + extra;
      GString *doc = g_string_new (HEAD "\"x-deep\": ");
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, '[');
      for (guint i = 0; i < depth; i++)
        g_string_append_c (doc, ']');
      g_string_append (doc, ", \"nodes\": [" X ", " OUT "]}");
      check_same (doc->str, extra ? GIVES_UP : READS);
      g_string_free (doc, TRUE);
    }
}

/* Node metadata repeats (json-reader.h: the loader's repeating member):
 * however the metas come, the graph is the one the general path reads. */
static void
test_fast_repeated_metadata (void)
{
  static const char *const metas[] = {
    "{\"tensor\": {\"shape\": [2, 3], \"dtype\": \"torch.float32\"}, \"stage\": 1}",
    "{\"tensor\": {\"shape\": [2, 3], \"dtype\": \"torch.float32\"}, \"stage\": 12}",
    /* the same JSON as the first, in another text */
    "{\"tensor\": {\"shape\": [2,3], \"dtype\": \"torch.float32\"}, \"stage\": 1}",
    "{\"stage\": 1}",
    "{}",
    "{\"note\": [1, [2, [null, true]]], \"s\": \"caf\xc3\xa9\"}",
    /* refers to a node: the same text, the same node */
    "{\"source\": {\"node\": \"x\"}}",
  };
  /* runs, cycles over more texts than are remembered, alternations */
  static const char pattern[] = "0000111022203456654321060606012345601234566";
  GString *doc = g_string_new (HEAD "\"nodes\": [" X);
  for (guint i = 0; pattern[i]; i++)
    g_string_append_printf (doc, ",\n{\"name\": \"n%u\", \"op\": \"call_function\", "
                            "\"target\": \"torch.relu\", \"args\": [{\"node\": \"x\"}], "
                            "\"meta\": %s}", i, metas[pattern[i] - '0']);
  g_string_append (doc, ",\n" OUT "]}");
  check_same (doc->str, READS);
  g_string_free (doc, TRUE);

  /* a bad meta, once read and then repeated; duplicate metas in a node,
   * one of them remembered and the others not */
  check_same (NODES (X ",\n{\"name\": \"a\", \"op\": \"call_function\", \"target\": \"f\", "
                     "\"meta\": {\"stage\": 1}},\n{\"name\": \"b\", \"op\": \"call_function\", "
                     "\"target\": \"f\", \"meta\": {\"tensor\": {\"dtype\": \"torch.float32\"}}},\n"
                     "{\"name\": \"c\", \"op\": \"call_function\", \"target\": \"f\", "
                     "\"meta\": {\"tensor\": {\"dtype\": \"torch.float32\"}}},\n" OUT),
              GIVES_UP);
  check_same (NODES (X ",\n{\"name\": \"a\", \"op\": \"call_function\", \"target\": \"f\", "
                     "\"meta\": {\"stage\": 1}},\n{\"name\": \"b\", \"op\": \"call_function\", "
                     "\"target\": \"f\", \"meta\": {\"stage\": 1}, \"meta\": {\"stage\": 2}, "
                     "\"meta\": {\"stage\": 3}, \"meta\": {\"stage\": 4}, \"meta\": {\"stage\": 5}, "
                     "\"meta\": {\"stage\": 6}},\n" OUT),
              GIVES_UP);
}

/* Attributes repeat too (the loader's repeating items): the same graph. */
static void
test_fast_repeated_attributes (void)
{
  static const char *const attrs[] = {
    "{\"kind\": \"module\", \"class\": \"torch.nn.modules.linear.Linear\"}",
    "{\"kind\": \"parameter\", \"shape\": [4, 4], \"dtype\": \"torch.float32\"}",
    "{\"kind\": \"parameter\", \"shape\": [4], \"dtype\": \"torch.float32\"}",
    "{\"kind\": \"buffer\", \"shape\": [4], \"dtype\": \"torch.float32\"}",
    "{\"kind\": \"buffer\", \"shape\": [], \"dtype\": \"torch.int64\"}",
    "{\"kind\": \"parameter\", \"shape\": [4, 4]}",
    "{\"kind\": \"constant\"}",
    "{\"kind\": \"object\", \"class\": \"caf\xc3\xa9\"}",
    "{\"kind\": \"module\", \"class\": \"torch.nn.modules.linear.Linear\" }",
    "{\"kind\": \"parameter\", \"shape\": [4, 4], \"dtype\": \"torch.float16\"}",
  };
  /* runs, and cycles over more texts than are remembered */
  static const char pattern[] = "0001112223434343401234567890123456789012998877665544332211000";
  GString *doc = g_string_new (HEAD "\"attributes\": {");
  for (guint i = 0; pattern[i]; i++)
    g_string_append_printf (doc, "%s\n\"a%u\": %s", i ? "," : "", i, attrs[pattern[i] - '0']);
  g_string_append (doc, "},\n\"nodes\": [" X ", {\"name\": \"g\", \"op\": \"get_attr\", "
                   "\"target\": \"a5\"}, " OUT "]}");
  check_same (doc->str, READS);
  g_string_free (doc, TRUE);
  /* a bad attribute, read and then repeated; a repeated one under a
   * duplicate name */
  check_same (HEAD "\"attributes\": {\"a\": {\"kind\": \"constant\"}, \"b\": {\"kind\": \"x\"}, "
              "\"c\": {\"kind\": \"x\"}},\n\"nodes\": [" X ", " OUT "]}", GIVES_UP);
  check_same (HEAD "\"attributes\": {\"a\": {\"kind\": \"constant\"}, \"b\": {\"kind\": \"constant\"}, "
              "\"a\": {\"kind\": \"constant\"}},\n\"nodes\": [" X ", " OUT "]}", GIVES_UP);
}

/* ---- files through the window ----------------------------------------------- */

/* @json in a new temporary file: its path (free with g_free, after
 * g_unlink). */
static char *
temp_file_with (const char *json)
{
  char *file = NULL;
  int fd = g_file_open_tmp ("fxsplit-fast-XXXXXX.json", &file, NULL);
  CU_ASSERT_TRUE_FATAL (fd >= 0);
  close (fd);
  CU_ASSERT_TRUE_FATAL (g_file_set_contents (file, json, -1, NULL));
  return file;
}

static void
test_fast_reads_big_files_in_a_small_window (void)
{
  /* 30,000 nodes, ~2.6 MB: the default window of 1 MiB moves on a few
   * times, with nodes across each of its edges */
  GString *doc = g_string_new (HEAD "\"nodes\": [\n" X);
  for (guint i = 0; i < 30000; i++)
    {
      char *before = i ? g_strdup_printf ("n%u", i - 1) : g_strdup ("x");
      g_string_append_printf (doc, ",\n  {\"name\": \"n%u\", \"op\": \"call_function\", "
                              "\"target\": \"torch.relu\", \"args\": [{\"node\": \"%s\"}, %u]}",
                              i, before, i * 7919);
      g_free (before);
    }
  g_string_append (doc, ",\n" OUT "\n]}\n");
  g_string_replace (doc, "\"args\": [null]", "\"args\": [{\"node\": \"n29999\"}]", 1);
  char *file = temp_file_with (doc->str);
  check_same_at (NULL, 0, file, READS);
  g_unlink (file);
  g_free (file);
  g_string_free (doc, TRUE);
}

static void
test_fast_window_grows_for_big_members (void)
{
  /* a window of 1 KiB grows to 64 KiB at most: a node of 10 KB is read
   * in a bigger window, one of 100 KB is left to the general path (which
   * loads it all the same) */
  static const guint sizes[] = { 10000, 100000 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      char *big = string_of (sizes[i], NULL, 0);
      char *args = g_strdup_printf ("[{\"node\": \"x\"}, \"%s\"]", big);
      char *json = g_strdup_printf (WITH_ARGS ("%s"), args);
      char *file = temp_file_with (json);
      fxs_json_reader_set_fast_window (1024);
      check_same_at (NULL, 0, file, i == 0 ? READS : GIVES_UP);
      fxs_json_reader_set_fast_window (0);
      g_unlink (file);
      g_free (file);
      g_free (json);
      g_free (args);
      g_free (big);
    }
}

static void
test_fast_window_errors_far_in (void)
{
  /* an error past the first windows: the general path reports it, at its
   * line and column */
  GString *doc = g_string_new (HEAD "\"nodes\": [\n" X);
  for (guint i = 0; i < 200; i++)
    g_string_append_printf (doc, ",\n{\"name\": \"n%u\", \"op\": \"call_function\", "
                            "\"target\": \"torch.relu\", \"args\": [{\"node\": \"x\"}]}", i);
  g_string_append (doc, ",\n{\"name\": \"bad\", \"op\": \"call_function\", \"target\": 7}");
  g_string_append (doc, ",\n" OUT "\n]}\n");
  char *file = temp_file_with (doc->str);
  static const gsize windows[] = { 64, 1000, 0 };
  for (guint i = 0; i < G_N_ELEMENTS (windows); i++)
    {
      fxs_json_reader_set_fast_window (windows[i]);
      check_same_at (NULL, 0, file, GIVES_UP);
    }
  fxs_json_reader_set_fast_window (0);
  g_unlink (file);
  g_free (file);
  g_string_free (doc, TRUE);
}

/* ---- the reader alone ------------------------------------------------------- */

/* What a reader told its handler: every callback but peek() in order, with
 * the values it gave and, with @positions, where they are (the general
 * path places a value at the end of the token before it, the fast path at
 * its first byte: both lead the error locator to the same token); peek()
 * only counted (the windowed fast path may show a member again when it
 * reads an object again). */
typedef struct {
  GString *trace;
  guint peeks;
  gboolean positions;
  GArray *repeat_ids;       /* guint64: fxs_json_reader_repeat_id() at each value() */
} Calls;

/* "@POS:" for @pos when @c traces positions */
static void
dump_pos (const Calls *c, GString *out, gint64 pos)
{
  if (c->positions)
    g_string_append_printf (out, "@%" G_GINT64_FORMAT ":", pos);
}

static void
dump_json (const Calls *c, GString *out, const FxsJson *v)
{
  dump_pos (c, out, v->pos);
  switch (v->type)
    {
    case FXS_JSON_NULL: g_string_append (out, "null"); break;
    case FXS_JSON_BOOL: g_string_append (out, v->u.b ? "true" : "false"); break;
    case FXS_JSON_NUMBER:
    case FXS_JSON_STRING:
      g_string_append_printf (out, "%c%u:", v->type == FXS_JSON_STRING ? 's' : 'n', v->n);
      g_string_append_len (out, v->u.s, v->n);
      break;
    default:
      g_string_append_c (out, v->type == FXS_JSON_OBJECT ? '{' : '[');
      for (guint i = 0; i < (v->type == FXS_JSON_OBJECT ? 2 * v->n : v->n); i++)
        {
          dump_json (c, out, &v->u.items[i]);
          g_string_append_c (out, ',');
        }
      g_string_append_c (out, v->type == FXS_JSON_OBJECT ? '}' : ']');
    }
}

static FxsJsonAction
trace_begin (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, int *tag)
{
  (void) reader;
  Calls *c = data;
  g_string_append_printf (c->trace, "begin %d %s", item->parent_tag, item->key ? item->key : "-");
  dump_pos (c, c->trace, item->key_pos);
  g_string_append_printf (c->trace, " #%" G_GUINT64_FORMAT " type %d ", item->index, item->type);
  dump_pos (c, c->trace, item->pos);
  g_string_append_c (c->trace, '\n');
  *tag = item->parent_tag + 1;
  /* stream the top level and whatever it holds directly; collect below */
  return item->parent_tag == 0 || (item->type == FXS_JSON_ARRAY && item->key == NULL)
           ? FXS_JSON_STREAM : FXS_JSON_COLLECT;
}

static gboolean
trace_value (FxsJsonReader *reader, gpointer data, const FxsJsonItem *item, const FxsJson *v)
{
  (void) item;
  Calls *c = data;
  guint64 id = fxs_json_reader_repeat_id (reader);
  g_array_append_val (c->repeat_ids, id);
  g_string_append (c->trace, "value ");
  dump_json (c, c->trace, v);
  g_string_append_c (c->trace, '\n');
  return TRUE;
}

static gboolean
trace_end (FxsJsonReader *reader, gpointer data, int tag, guint64 n, gint64 pos)
{
  (void) reader;
  Calls *c = data;
  g_string_append_printf (c->trace, "end %d %" G_GUINT64_FORMAT " ", tag, n);
  dump_pos (c, c->trace, pos);
  g_string_append_c (c->trace, '\n');
  return TRUE;
}

static void
count_peek (FxsJsonReader *reader, gpointer data, int tag, const FxsJson *key,
            const FxsJson *value)
{
  (void) reader;
  (void) tag;
  (void) key;
  (void) value;
  ((Calls *) data)->peeks++;
}

enum { GENERAL, FAST, WINDOWED };

/* @repeating: the key of the repeating member of objects in the top-level
 * array (json-reader.h), "" for the array's items themselves, or NULL. */
static Calls
read_tracing_repeats (const char *json, int how, gboolean positions, const char *repeating,
                      gboolean *ok)
{
  static const FxsJsonHandler handler = { trace_begin, trace_value, trace_end, count_peek };
  /* repeats do not depend on peek() */
  static const FxsJsonHandler without_peek = { trace_begin, trace_value, trace_end, NULL };
  Calls c = { g_string_new (NULL), 0, positions, g_array_new (FALSE, FALSE, sizeof (guint64)) };
  FxsJsonReader *r = fxs_json_reader_new ("t.json", repeating ? &without_peek : &handler, &c);
  if (repeating && *repeating)
    fxs_json_reader_set_repeating_member (r, 1, repeating);
  else if (repeating)
    fxs_json_reader_set_repeating_items (r, 1);
  if (how == FAST)
    *ok = fxs_json_reader_parse_fast (r, json, strlen (json));
  else if (how == WINDOWED)
    *ok = fxs_json_reader_parse_fast_windowed (r, json, strlen (json));
  else
    {
      fxs_json_reader_set_threaded (r, FALSE);
      *ok = fxs_json_reader_parse_data (r, json, strlen (json), NULL);
    }
  fxs_json_reader_free (r);
  return c;
}

static Calls
read_tracing (const char *json, int how, gboolean positions, gboolean *ok)
{
  return read_tracing_repeats (json, how, positions, NULL, ok);
}

static void
calls_free (Calls *c)
{
  g_string_free (c->trace, TRUE);
  g_array_unref (c->repeat_ids);
}

static void
test_fast_calls_like_the_general_path (void)
{
  /* the same callbacks with the same values, peek() the same number of
   * times; through windows of every size from 1 byte on, the same
   * callbacks at the same places as without, peek() at least as often */
  static const char *const docs[] = {
    "[{\"a\": 1, \"b\": [2], \"c\": \"d\"}, 3, [4, {\"e\": null}], {}]",
    "{\"k\": [{\"x\": true}], \"m\": {\"n\": 1}}",
    "7",
    "  -12345.5e+10  ",
    "[]",
    "{\"long\": 1234567890123, \"s\": \"a string that runs on\", \"f\": false,\n"
    "  \"arr\"  :  [ 12345678 ,  \"esc\\u00e9\\n\" , {\"deep\": [[1, 2], {\"z\": 0.125}]} ] ,\n"
    "  \"last\": 98765}   ",
  };
  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      gboolean ok_general, ok_fast, ok;
      Calls g = read_tracing (docs[i], GENERAL, FALSE, &ok_general);
      Calls f = read_tracing (docs[i], FAST, FALSE, &ok_fast);
      Calls at = read_tracing (docs[i], FAST, TRUE, &ok);
      CU_ASSERT_TRUE (ok_general);
      CU_ASSERT_TRUE (ok_fast);
      CU_ASSERT_STRING_EQUAL (f.trace->str, g.trace->str);
      CU_ASSERT_EQUAL (f.peeks, g.peeks);
      for (gsize window = 1; window <= strlen (docs[i]) + 2; window++)
        {
          gboolean ok_windowed;
          fxs_json_reader_set_fast_window (window);
          Calls w = read_tracing (docs[i], WINDOWED, TRUE, &ok_windowed);
          fxs_json_reader_set_fast_window (0);
          CU_ASSERT_TRUE (ok_windowed);
          CU_ASSERT_STRING_EQUAL (w.trace->str, at.trace->str);
          CU_ASSERT_TRUE (w.peeks >= at.peeks);
          if (strcmp (w.trace->str, at.trace->str) != 0)
            fprintf (stderr, "\n  window %zu:\n%s\n  in memory:\n%s", window, w.trace->str,
                     at.trace->str);
          calls_free (&w);
        }
      calls_free (&g);
      calls_free (&f);
      calls_free (&at);
    }
}

static void check_repeats (const char *doc, const char *repeating, const int *expect,
                           guint n_expect);

static void
test_fast_repeating_member (void)
{
  /* member "m" of the objects in the top-level array repeats: a text met
   * lately gives the tree read before (the same values as read anew) and
   * the same identifier; other texts (whitespace included), other members
   * and scalars give others; the general path gives none. */
  static const char doc[] =
    "[{\"m\": {\"a\": [1, 2]}, \"k\": 0}, {\"m\": {\"a\": [1, 2]}}, {\"m\": {\"a\": 2}},\n"
    " {\"k\": {\"a\": [1, 2]}}, {\"m\": {\"a\": [1, 2]}}, {\"m\": {\"a\":[1, 2]}},\n"
    " {\"m\": {\"a\": [1, 2]}}, {\"m\": 5}, {\"m\": {\"a\": 22}}, {\"m\": {\"a\": 2}}]";
  /* a, a, b, none, a, c (other blanks), a, none (a scalar), d, b */
  static const int expect[] = { 1, 1, 2, 0, 1, 3, 1, 0, 4, 2 };
  check_repeats (doc, "m", expect, G_N_ELEMENTS (expect));
}

static void
test_fast_repeating_items (void)
{
  /* the items of the top-level array repeat (not those of the arrays in
   * it, nor scalars): the same, item by item; {"a": 2} comes again after
   * nine other texts, more than are remembered */
  static const char doc[] =
    "[{\"a\": [1, 2]}, {\"a\": [1, 2]}, {\"a\": 2}, [{\"b\": 1}], {\"a\": [1, 2]},\n"
    " {\"a\":[1, 2]}, 7, \"s\", [{\"b\": 1}], {\"a\": 3}, {\"a\": 4}, {\"a\": 5}, {\"a\": 6},\n"
    " {\"a\": 7}, {\"a\": 8}, {\"a\": 9}, {\"a\": 10}, {\"a\": 2}, {\"a\": 22}]";
  /* arrays are streamed by the trace handler: no value() for them */
  static const int expect[] = { 1, 1, 2, 0, 1, 3, 0, 0, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
  check_repeats (doc, "", expect, G_N_ELEMENTS (expect));
}

/* Reads @doc with @repeating (read_tracing_repeats()) every way: the same
 * values as the general path; identifiers, numbered by first appearance,
 * as @expect has them (0: none), in memory and through windows of every
 * size (a repeat is looked for again when a bigger window holds it). */
static void
check_repeats (const char *doc, const char *repeating, const int *expect, guint n_expect)
{
  gsize size = strlen (doc);
  gboolean ok;
  Calls g = read_tracing_repeats (doc, GENERAL, FALSE, repeating, &ok);
  CU_ASSERT_TRUE (ok);
  for (int how = FAST; how <= WINDOWED; how++)
    for (gsize window = 1; window <= (how == FAST ? 1 : size + 2); window++)
      {
        fxs_json_reader_set_fast_window (window);
        Calls f = read_tracing_repeats (doc, how, FALSE, repeating, &ok);
        fxs_json_reader_set_fast_window (0);
        CU_ASSERT_TRUE (ok);
        CU_ASSERT_STRING_EQUAL (f.trace->str, g.trace->str);
        CU_ASSERT_EQUAL_FATAL (f.repeat_ids->len, n_expect);
        /* identifiers by first appearance: equal where the texts are */
        guint64 seen[32] = { 0 };
        int n_seen = 0;
        for (guint i = 0; i < f.repeat_ids->len; i++)
          {
            guint64 id = g_array_index (f.repeat_ids, guint64, i);
            int label = 0;
            for (int k = 1; k <= n_seen && id; k++)
              if (seen[k] == id)
                label = k;
            if (id && !label && n_seen < 31)
              seen[label = ++n_seen] = id;
            CU_ASSERT_EQUAL (label, expect[i]);
          }
        calls_free (&f);
      }
  for (guint i = 0; i < g.repeat_ids->len; i++)
    CU_ASSERT_EQUAL (g_array_index (g.repeat_ids, guint64, i), 0);
  calls_free (&g);
}

static void
register_tests (void)
{
  static const FxsTestCase cases[] = {
    FXS_TEST (test_fast_reads_graph_files),
    FXS_TEST (test_fast_reads_values),
    FXS_TEST (test_fast_reads_strings_of_every_length),
    FXS_TEST (test_fast_reads_escapes),
    FXS_TEST (test_fast_gives_up_on_invalid_json),
    FXS_TEST (test_fast_gives_up_on_graph_errors),
    FXS_TEST (test_fast_depth_limit),
    FXS_TEST (test_fast_reads_big_files_in_a_small_window),
    FXS_TEST (test_fast_window_grows_for_big_members),
    FXS_TEST (test_fast_window_errors_far_in),
    FXS_TEST (test_fast_calls_like_the_general_path),
    FXS_TEST (test_fast_repeating_member),
    FXS_TEST (test_fast_repeating_items),
    FXS_TEST (test_fast_repeated_metadata),
    FXS_TEST (test_fast_repeated_attributes),
    { NULL, NULL },
  };
  fxs_test_add_suite ("fast path", cases);
}

FXS_TEST_MAIN (register_tests)
