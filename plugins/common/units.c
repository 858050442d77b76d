/* Human-readable numbers (see units.h). */
#include "units.h"

#include <string.h>

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

gboolean
units_parse_bytes (const char *text, gint64 *bytes)
{
  static const struct { const char *name; double factor; } units[] = {
    { "", 1 }, { "B", 1 },
    { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 }, { "TB", 1e12 },
    { "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
    { "TiB", 1099511627776.0 },
  };
  if (!text)
    return FALSE;
  while (g_ascii_isspace (*text))
    text++;
  /* Digits and one point only: no sign, exponent, hex, inf or nan. */
  const char *p = text;
  gboolean digits = FALSE;
  while (g_ascii_isdigit (*p))
    p++, digits = TRUE;
  if (*p == '.')
    for (p++; g_ascii_isdigit (*p); p++)
      digits = TRUE;
  if (!digits)
    return FALSE;
  char *number = g_strndup (text, (gsize) (p - text));
  double value = g_ascii_strtod (number, NULL);
  g_free (number);
  while (g_ascii_isspace (*p))
    p++;
  gsize len = strlen (p);
  while (len > 0 && g_ascii_isspace (p[len - 1]))
    len--;
  for (guint u = 0; u < G_N_ELEMENTS (units); u++)
    if (strlen (units[u].name) == len && strncmp (p, units[u].name, len) == 0)
      {
        double b = value * units[u].factor;
        if (!(b <= 4611686018427387904.0))  /* 2^62 */
          return FALSE;
        *bytes = (gint64) b;
        return TRUE;
      }
  return FALSE;
}
