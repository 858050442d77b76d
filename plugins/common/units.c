/* Human-readable numbers (see units.h). */
#include "units.h"

void
units_append_bytes (GString *out, gint64 bytes)
{
  static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  if (bytes < 1024)
    {
      g_string_append_printf (out, "%" G_GINT64_FORMAT " B", bytes);
      return;
    }
  double v = (double) bytes / 1024;
  guint u = 0;
  while (v >= 1024 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024;
      u++;
    }
  g_string_append_printf (out, "%.1f %s", v, units[u]);
}

void
units_append_count (GString *out, gint64 n)
{
  char digits[32];
  /* Via the unsigned magnitude, so that G_MININT64 prints too. */
  guint64 magnitude = n < 0 ? (guint64) 0 - (guint64) n : (guint64) n;
  int len = g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, magnitude);
  if (n < 0)
    g_string_append_c (out, '-');
  for (int i = 0; i < len; i++)
    {
      if (i > 0 && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
}

static void
append_flops (GString *out, gint64 flops)
{
  static const char *const prefixes[] = { "", "k", "M", "G", "T", "P", "E" };
  double v = (double) flops;
  guint p = 0;
  while (v >= 999.5 && p + 1 < G_N_ELEMENTS (prefixes))
    {
      v /= 1000;
      p++;
    }
  if (p == 0)
    g_string_append_printf (out, "%" G_GINT64_FORMAT " FLOP", flops);
  else
    g_string_append_printf (out, "%.*f %sFLOP", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v,
                            prefixes[p]);
}

void
units_append_cost (GString *out, FxsCostKind kind, gint64 cost)
{
  switch (kind)
    {
    case FXS_COST_PARAM_BYTES:
    case FXS_COST_OUTPUT_BYTES:
      units_append_bytes (out, cost);
      break;
    case FXS_COST_FLOPS:
      append_flops (out, cost);
      break;
    case FXS_COST_NODES:
    default:
      units_append_count (out, cost);
      break;
    }
}

void
units_append_share (GString *out, gint64 part, gint64 total)
{
  if (total <= 0)
    g_string_append_c (out, '-');
  else
    g_string_append_printf (out, "%.1f%%", 100.0 * (double) part / (double) total);
}
