/* A streaming JSON re-indenter: one pass, no parse tree. */
#include "json-indent.h"

static void
newline (FILE *out, guint indent, guint depth)
{
  putc ('\n', out);
  for (guint i = 0; i < indent * depth; i++)
    putc (' ', out);
}

/* The index of the next character after @i that is not whitespace. */
static gsize
next_token (const char *json, gsize length, gsize i)
{
  for (i++; i < length; i++)
    if (!g_ascii_isspace (json[i]))
      break;
  return i;
}

void
fxs_json_write_indented (const char *json, gsize length, guint indent, FILE *out)
{
  guint depth = 0;
  gboolean in_string = FALSE, escaped = FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = json[i];
      if (in_string)
        {
          putc (c, out);
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      switch (c)
        {
        case '"':
          in_string = TRUE;
          putc (c, out);
          break;
        case '{':
        case '[':
          {
            gsize next = next_token (json, length, i);
            putc (c, out);
            if (next < length && json[next] == (c == '{' ? '}' : ']'))
              {
                /* an empty container stays on its line */
                putc (json[next], out);
                i = next;
                break;
              }
            depth++;
            newline (out, indent, depth);
            break;
          }
        case '}':
        case ']':
          depth--;
          newline (out, indent, depth);
          putc (c, out);
          break;
        case ',':
          putc (c, out);
          newline (out, indent, depth);
          break;
        case ':':
          fputs (": ", out);
          break;
        case ' ':
        case '\t':
        case '\n':
        case '\r':
          break;
        default:
          putc (c, out);
        }
    }
  putc ('\n', out);
}
