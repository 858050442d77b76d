/* torch.fx node naming, as torch 1.13 does it (torch/fx/graph.py):
 * _target_to_str, _snake_case and _Namespace.create_name.
 *
 * Every node the engine creates gets its name here, so that the generated
 * Python code of a split result matches torch.fx's byte for byte. */
#ifndef FXS_NAMES_H
#define FXS_NAMES_H

#include <glib.h>
#include <fxsplit/graph.h>
#include "util/arena.h"
#include "util/table.h"

typedef struct FxsNamespace FxsNamespace;

typedef enum {
  FXS_NAME_PLAIN,      /* no "_<digits>" suffix */
  FXS_NAME_NUMBERED,   /* "<base>_<n>", n < 2^64 */
  FXS_NAME_BIG,        /* "<base>_<n>", n beyond 64 bits */
} FxsNameForm;

/* A create_name candidate cleaned and split up once, for a candidate asked
 * for many times (the engine's name for a target): naming a node from it
 * skips the cleaning, the hashing, the keyword check and, within one
 * namespace, the base lookup. */
typedef struct {
  const char *text;    /* cleaned: only [0-9A-Za-z_], not empty */
  guint32 len;
  guint32 base_len;    /* text[0..base_len) is the base */
  guint32 hash;        /* of the base */
  guint8 form;         /* FxsNameForm */
  guint64 number;      /* FXS_NAME_NUMBERED */
  const char *digits;  /* FXS_NAME_BIG: the number, in @text */
  guint64 hint_epoch;  /* the namespace state hint_base belongs to */
  guint32 hint_base;
} FxsNameCandidate;

/* A namespace whose names are stored in @graph's strings (they live as
 * long as the graph).  Free with fxs_namespace_free. */
FxsNamespace *fxs_namespace_new (FxsGraph *graph);
void          fxs_namespace_free (FxsNamespace *ns);

/* _Namespace.create_name(candidate, None): illegal characters become "_",
 * a leading digit gets a "_" prefix, a "_<digits>" suffix is split off, and
 * the first free "<base>_<n>" is taken from there on, skipping keywords,
 * builtins and torch.fx's custom builtins.  An empty candidate becomes
 * "_unnamed" (torch 1.13 fails there; later versions do this).  Returns the
 * new name, owned by the graph. */
const char   *fxs_namespace_create_name (FxsNamespace *ns, const char *candidate);

/* Empties @ns for a new graph, whose arena then holds the names, keeping
 * its memory (cheaper than a new one per graph when there are many small
 * graphs). */
void          fxs_namespace_reset (FxsNamespace *ns, FxsGraph *graph);

/* Prepares @c for @candidate; its text is stored in @arena, which must
 * live as long as the names made from it. */
void fxs_name_candidate_init (FxsNameCandidate *c, const char *candidate, FxsArena *arena);

/* fxs_name_candidate_init() of fxs_node_name_candidate (@op, @target),
 * made in @scratch.  When @target (or its end, a function's name) is a
 * clean, lower-case identifier already, the candidate points into it
 * instead of a copy: @target must then live as long as the names made
 * from it. */
void fxs_name_candidate_init_for_node (FxsNameCandidate *c, FxsOp op, const char *target,
                                       GString *scratch, FxsArena *arena);

/* fxs_namespace_create_name() of a prepared candidate, which remembers
 * where its base is in @ns.  A plain name is the candidate's text itself,
 * and @ns keeps pointing into it: the text must live as long as the
 * namespace's graph. */
const char   *fxs_namespace_create_name_from (FxsNamespace *ns, FxsNameCandidate *c);

/* The name torch.fx derives for a node with @op and @target when no name
 * is given, Graph._target_to_str's, appended to @out: for call_function,
 * _snake_case of the function's __name__ (the last component of the
 * qualified name); otherwise of the target string without "__" magic
 * affixes. */
void fxs_node_name_candidate (FxsOp op, const char *target, GString *out);

/* TRUE when torch.fx never gives out @name (a keyword, a builtin, or one
 * of inf, nan, NoneType, torch, device, fx_pytree, pytree). */
gboolean fxs_name_is_reserved (const char *name);

#endif
