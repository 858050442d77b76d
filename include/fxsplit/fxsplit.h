/* fxsplit: the whole public library API. */
#ifndef FXSPLIT_H
#define FXSPLIT_H

#include <fxsplit/error.h>
#include <fxsplit/version.h>
#include <fxsplit/value.h>
#include <fxsplit/graph.h>
#include <fxsplit/io.h>
#include <fxsplit/split.h>
#include <fxsplit/verify.h>
#include <fxsplit/cost.h>
#include <fxsplit/text-file.h>
#include <fxsplit/pipeline.h>

#endif
