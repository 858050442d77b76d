"""libfxsplit.so exports exactly the functions the public headers declare.

Usage: check-exports.py LIBFXSPLIT.SO HEADER...

Every function declared at the start of a line in the headers (a line that
names `fxs_something (`) must carry FXS_API, and the set of those names must
equal the set of symbols `nm -D --defined-only` lists for the library.  Any
difference is printed, one name a line, and fails the test."""
import re
import subprocess
import sys

DECLARATION = re.compile(r"^(?!typedef\b|#)[A-Za-z].*?\b(fxs_[a-z0-9_]+)\s*\(")


def declared(headers):
    names, unmarked = set(), []
    for header in headers:
        with open(header, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = DECLARATION.match(line)
                if not m:
                    continue
                names.add(m.group(1))
                if not line.startswith("FXS_API "):
                    unmarked.append(f"{header}:{number}: {m.group(1)} is declared without FXS_API")
    return names, unmarked


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    library, headers = sys.argv[1], sys.argv[2:]
    names, problems = declared(headers)
    symbols = exported(library)
    problems += [f"{s}: exported by {library} but declared by no public header"
                 for s in sorted(symbols - names)]
    problems += [f"{s}: declared in a public header but not exported by {library}"
                 for s in sorted(names - symbols)]
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(symbols)} exported functions, as the {len(headers)} public headers declare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
