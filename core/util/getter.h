/* Accessors written once: the getters of the graph model, split results,
 * options, plugins and pipelines. */
#ifndef FXS_GETTER_H
#define FXS_GETTER_H

#include <glib.h>

/* A getter @fn of an @Obj (named @o) that returns @expr, @fallback for NULL. */
#define FXS_GETTER(Ret, fn, Obj, o, expr, fallback)                         \
  Ret                                                                       \
  fn (const Obj *o)                                                         \
  {                                                                         \
    g_return_val_if_fail (o != NULL, fallback);                             \
    return expr;                                                            \
  }

#endif
