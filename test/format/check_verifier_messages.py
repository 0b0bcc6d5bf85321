#!/usr/bin/env python3
"""Checks that every diagnostic of the tile dialect has a negative test.

The project's rule is that every op has a verifier and every verifier
message has a negative test: a message no test triggers can be garbled,
fire on valid IR, or be dead behind an earlier check, and nobody notices.
This script makes the second half of the rule mechanical.

It reads the diagnostic sites in lib/Dialect/Tile/IR/*.cpp (op, type and
attribute verifiers, parsers, the dialect's attribute verifiers): every
`emitOpError(...)`, `emitError(...)` and `emitOptionalError(...)` call, with
the `<< ...` chain that follows it, up to the end of the expression. A site
is a template: string literals (adjacent ones joined, as C++ joins them)
and holes, the values streamed in. A site without any literal forwards a
message built elsewhere (`op.emitOpError(message)`) and is not one itself.

Helpers that take part of the message from their caller are expanded: when
a hole is a bare parameter of the function, lambda or macro the site is in
(`what` in `emitOpError() << what << " needs ..."`), and the calls of that
callable pass string literals there (directly, or through a parameter of
their own caller), the site becomes one message per literal passed, each
reported at the emit call with the call that supplies the text. Only the
first such hole of a site is expanded; the others stay holes.

Each message must be quoted by the text of an `expected-error` (with any
`@+N`, `@below` or `-re`) in a test under test/. Such texts quote the
diagnostic as printed: the values filled in, often the op's `'tile.x' op `
before it, and sometimes only its first part. The matching rule:

  * The message's key is the first literal run of the emit call itself
    (not a caller's text) of at least MIN_KEY characters, else its longest
    run, whitespace trimmed. The test's text must contain the key's first
    QUOTE characters (all of a shorter key).
  * Around them, the text must agree with the rest of the template:
    literals literally, holes as any text (an empty one included). It may
    start inside a literal, or before the message: there, it may hold
    nothing else, or end with `op ` for an `emitOpError` (a leading hole
    takes whatever precedes it). It may stop inside or right after a
    literal, but not inside a hole that more literal text follows (a hole
    would otherwise swallow any tail), and not before it has quoted all of
    the text a caller supplies (so a test of one caller's message does not
    cover another's).
  * A text that quotes some messages whole covers only those; one that
    quotes none whole covers every message it quotes part of.
  * Whitespace runs compare as one space; in `expected-error-re` texts
    each `{{regex}}` part ends a piece, and each piece is matched alone.

Messages with the same literals at different sites (a shared "must be
inside a 'tile.kernel'") are covered together: the text cannot say which
site printed it.

Messages that textual IR cannot reach are listed in ALLOWLIST, each with
the reason; an entry that matches no uncovered message is reported too,
so the list cannot go stale.

usage: check_verifier_messages.py [--root DIR] [--verbose]

  --root DIR   the source tree (default: two folders above this script)
  --verbose    also list the covered and allowlisted messages

Prints each uncovered message as FILE:LINE: message (holes as <expr>;
for an expanded message, the calls that supply its text follow LINE),
then `N messages, M covered, K not (A allowlisted ...)`, N = M + K + A;
exits 1 when any message is not covered or an allowlist entry is stale.
"""
import argparse
import pathlib
import re
import sys

SOURCES = "lib/Dialect/Tile/IR"
TESTS = "test"
EMITTERS = {"emitOpError", "emitError", "emitOptionalError"}
# A literal this long identifies a message; shorter ones ("runs ", "has ")
# occur in too many texts to anchor a match.
MIN_KEY = 12
# A test must quote this much of the key, or all of a shorter one: a
# text that ends where a message begins ("... a semaphore array") does
# not quote that message ("semaphore array must hold ...").
QUOTE = 24

# (file, start of the message as printed, reason): messages textual IR
# cannot trigger.
ALLOWLIST = [
    ("MemoryOps.cpp", "destination shape <",
     "tile.load_async and tile.copy read from a !tile.gl (ODS operand type): "
     "the shared-memory branch of verifyTransfer never sees them"),
    ("MemoryOps.cpp", "source shape <",
     "tile.store_async writes to a !tile.gl (ODS operand type): the "
     "shared-memory branch of verifyTransfer never sees it"),
    ("TileTypes.cpp", "global view dimensions must be at most",
     "GlobalType::verify passes verifyShape no maximum dimension"),
]

KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
            "decltype", "alignof", "static_assert"}
PUNCT = ["<<", "->", "::", "==", "!=", "<=", ">=", "&&", "||", "++", "--"]


# --------------------------------------------------------------------------
# C++ tokens
# --------------------------------------------------------------------------

class Token:
    """`text` is a literal's value; `offset` and `end` span its source."""
    __slots__ = ("kind", "text", "offset", "end", "line")

    def __init__(self, kind, text, offset, end, line):
        self.kind, self.text, self.line = kind, text, line
        self.offset, self.end = offset, end


ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", "'": "'", '"': '"', "0": "\0"}


def unescape(body):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)),
                  body)


def tokenize(text):
    """Tokens of `text` without comments, backslash-newlines and
    preprocessor lines other than `#define`; string literals unescaped."""
    tokens = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace() or (c == "\\" and text.startswith("\\\n", i)):
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == "#" and not text[text.rfind("\n", 0, i) + 1:i].strip():
            # A directive: keep `#define NAME(`, skip the others.
            m = re.compile(r"#\s*define\b").match(text, i)
            if m:
                tokens.append(Token("punct", "#define", i, m.end(), line))
                i = m.end()
            else:
                j = text.find("\n", i)
                i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            kind = "str" if c == '"' else "chr"
            tokens.append(Token(kind, unescape(text[i + 1:j]), i, j + 1,
                                line))
            i = j + 1
        elif c.isalpha() or c == "_":
            m = re.compile(r"\w+").match(text, i)
            tokens.append(Token("id", m.group(), i, m.end(), line))
            i = m.end()
        elif c.isdigit():
            m = re.compile(r"[\w.']+").match(text, i)
            tokens.append(Token("num", m.group(), i, m.end(), line))
            i = m.end()
        else:
            p = next((p for p in PUNCT if text.startswith(p, i)), c)
            tokens.append(Token("punct", p, i, i + len(p), line))
            i += len(p)
    return tokens


OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {v: k for k, v in OPEN.items()}


def _bracket_partner(tokens, start, step):
    """Index of the bracket that pairs with the one at `start`, searching
    forward (step 1, from an opening bracket) or back (step -1, from a
    closing one)."""
    inward, outward = (OPEN, CLOSE) if step == 1 else (CLOSE, OPEN)
    depth = 0
    stop = len(tokens) if step == 1 else -1
    for j in range(start, stop, step):
        t = tokens[j].text
        if tokens[j].kind != "punct":
            continue
        if t in inward:
            depth += 1
        elif t in outward:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1 if step == 1 else 0


def matching(tokens, i):
    """Index of the bracket closing the one at `i`."""
    return _bracket_partner(tokens, i, 1)


def matching_back(tokens, j):
    """Index of the bracket opening the one at `j`."""
    return _bracket_partner(tokens, j, -1)


def split_args(tokens, open_index):
    """The argument token lists of the call whose `(` is at `open_index`,
    and the index of its `)`."""
    close = matching(tokens, open_index)
    args, current, depth = [], [], 0
    for t in tokens[open_index + 1:close]:
        if t.kind == "punct" and t.text in OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in CLOSE:
            depth -= 1
        if depth == 0 and t.kind == "punct" and t.text == ",":
            args.append(current)
            current = []
        else:
            current.append(t)
    if current or args:
        args.append(current)
    return args, close


# --------------------------------------------------------------------------
# Callables: functions, named lambdas and function-like macros
# --------------------------------------------------------------------------

class Callable:
    def __init__(self, name, params, header, start, end, kind):
        self.name, self.params, self.header = name, params, header
        self.start, self.end, self.kind = start, end, kind  # token span
        self.scope = None  # a lambda's calls: the body it is defined in


def param_names(arg_lists):
    names = []
    for arg in arg_lists:
        decl = arg
        for k, t in enumerate(arg):
            if t.text == "=":
                decl = arg[:k]
                break
        ids = [t.text for t in decl if t.kind == "id"]
        names.append(ids[-1] if ids else None)
    return names


def macro_end(tokens, b, text):
    """Index past the last token of the macro whose `#define` is token
    `b`: its lines run on while they end in a backslash."""
    j = tokens[b].offset
    while j < len(text) and not (text[j] == "\n" and text[j - 1] != "\\"):
        j += 1
    k = b
    while k < len(tokens) and tokens[k].offset < j:
        k += 1
    return k


def callables(tokens, text):
    found = []
    for b, tok in enumerate(tokens):
        if tok.kind == "punct" and tok.text == "#define":
            if (b + 2 < len(tokens) and tokens[b + 2].text == "("
                    and tokens[b + 2].offset == tokens[b + 1].end):
                args, close = split_args(tokens, b + 2)
                found.append(Callable(tokens[b + 1].text, param_names(args),
                                      b + 1, close + 1,
                                      macro_end(tokens, b, text), "macro"))
            continue
        if tok.text != "{" or tok.kind != "punct":
            continue
        # A body: back over `const`, `mutable` or a trailing return type
        # to the `)` of the parameters.
        j = next((k for k in range(b - 1, max(b - 12, 0), -1)
                  if tokens[k].text in (")", "{", "}", ";", "(", "=", ",")),
                 None)
        if j is None or tokens[j].text != ")":
            continue
        between = [t.text for t in tokens[j + 1:b]]
        if between and between[0] != "->" and not set(between) <= {
                "const", "mutable", "override", "noexcept", "final"}:
            continue
        p = matching_back(tokens, j)
        if p == 0:
            continue
        params = param_names(split_args(tokens, p)[0])
        before, end = tokens[p - 1], matching(tokens, b)
        if before.text == "]":  # `auto name = [...](...) {`
            q = matching_back(tokens, p - 1)
            if q >= 2 and tokens[q - 1].text == "=" \
                    and tokens[q - 2].kind == "id":
                found.append(Callable(tokens[q - 2].text, params, q - 2, b,
                                      end, "lambda"))
        elif before.kind == "id" and before.text not in KEYWORDS:
            found.append(Callable(before.text, params, p - 1, b, end,
                                  "function"))
    for c in found:
        if c.kind == "lambda":
            around = [o for o in found if o.start <= c.header < o.end]
            c.scope = min(around, key=lambda o: o.end - o.start,
                          default=None)
    return found


# --------------------------------------------------------------------------
# Message templates
# --------------------------------------------------------------------------

class Lit:
    """Literal text; `required` when a caller supplies it: a test must quote
    all of it to cover that caller's message."""

    def __init__(self, text, required=False):
        self.text, self.required = text, required


class Hole:
    """A value streamed into the message; `text` shows its expression."""

    def __init__(self, tokens, source):
        self.tokens = tokens
        span = source[tokens[0].offset:tokens[-1].end]
        self.text = "<" + normalize(span) + ">"


def piece(tokens, source):
    """The literal (adjacent literals joined) or hole that `tokens`, one
    argument or `<<` operand, put in a message."""
    if all(t.kind == "str" for t in tokens):
        return Lit("".join(t.text for t in tokens))
    return Hole(tokens, source)


def merge(pieces):
    out = []
    for p in pieces:
        if isinstance(p, Lit) and out and isinstance(out[-1], Lit) \
                and not p.required and not out[-1].required:
            out[-1] = Lit(out[-1].text + p.text)
        else:
            out.append(p)
    return out


STOPS = {";", ")", ",", "}", "]", "?", ":"}


def stream_operands(tokens, i):
    """The operands of a `<< a << b` chain starting at token `i`."""
    operands = []
    while i < len(tokens) and tokens[i].text == "<<":
        j, depth, operand = i + 1, 0, []
        while j < len(tokens):
            t = tokens[j]
            if t.kind == "punct" and t.text in OPEN:
                depth += 1
            elif t.kind == "punct" and t.text in CLOSE:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and t.kind == "punct" and (
                    t.text in STOPS or t.text == "<<"):
                break
            operand.append(t)
            j += 1
        operands.append(operand)
        i = j
    return operands


class Site:
    def __init__(self, path, line, pieces, op_error, via=(), token=None):
        self.path, self.line, self.pieces = path, line, merge(pieces)
        self.op_error = op_error  # the diagnostic starts "'<op>' op "
        self.via, self.token = list(via), token

    @property
    def text(self):
        return "".join(p.text for p in self.pieces)

    def where(self):
        where = f"{self.path}:{self.line}"
        if self.via:
            where += " [text from " + ", ".join(
                f"{pathlib.Path(p).name}:{n}" for p, n in self.via) + "]"
        return where


class Source:
    def __init__(self, path, rel):
        self.rel = rel
        self.text = path.read_text(encoding="utf-8")
        self.tokens = tokenize(self.text)
        self.callables = callables(self.tokens, self.text)

    def enclosing(self, index, name):
        """The innermost callable around token `index` with a parameter
        `name`, and the parameter's position."""
        around = [c for c in self.callables
                  if c.start <= index < c.end and name in c.params]
        if not around:
            return None, None
        c = min(around, key=lambda c: c.end - c.start)
        return c, c.params.index(name)


def raw_sites(source):
    tokens = source.tokens
    for i, tok in enumerate(tokens):
        if tok.kind != "id" or tok.text not in EMITTERS:
            continue
        if i + 1 >= len(tokens) or tokens[i + 1].text != "(":
            continue
        args, close = split_args(tokens, i + 1)
        if tok.text == "emitOptionalError" or len(args) > 1:
            args = args[1:]  # the location
        operands = [o for o in args + stream_operands(tokens, close + 1) if o]
        # Without any string literal, the call forwards a message built
        # elsewhere; one whose literals are all inside expressions (a
        # `?:`) is a message this script cannot read, reported uncovered.
        if any(t.kind == "str" for o in operands for t in o):
            yield Site(source.rel, tok.line,
                       [piece(o, source.text) for o in operands],
                       tok.text == "emitOpError", token=i)


def calls_of(sources, owner, callable_):
    """(source, token index of the name, argument lists) of each call."""
    for source in sources:
        if callable_.kind == "lambda" and source is not owner:
            continue
        tokens = source.tokens
        lo, hi = 0, len(tokens)
        if callable_.kind == "lambda" and callable_.scope is not None:
            lo, hi = callable_.scope.start, callable_.scope.end
        for i in range(lo, min(hi, len(tokens) - 1)):
            t = tokens[i]
            if t.kind != "id" or t.text != callable_.name \
                    or tokens[i + 1].text != "(":
                continue
            if any(c.header == i for c in source.callables):
                continue  # a definition
            if i > 0 and tokens[i - 1].text in (".", "->"):
                continue  # a member of something else
            args, _ = split_args(tokens, i + 1)
            yield source, i, args


def literal_values(sources, owner, callable_, index, depth=0):
    """(text, [(file, line)...]) for each string literal the calls of
    `callable_` pass as argument `index`, through parameters of their own
    callers."""
    if depth > 4:
        return []
    values = []
    for source, i, args in calls_of(sources, owner, callable_):
        if index >= len(args) or not args[index]:
            continue
        arg = args[index]
        where = (source.rel, source.tokens[i].line)
        if all(t.kind == "str" for t in arg):
            values.append(("".join(t.text for t in arg), [where]))
        elif len(arg) == 1 and arg[0].kind == "id":
            outer, k = source.enclosing(i, arg[0].text)
            if outer is not None:
                for text, via in literal_values(sources, source, outer, k,
                                                depth + 1):
                    values.append((text, [where] + via))
    return values


def expand(sources, source, site):
    """`site` with its first caller-supplied hole filled in, once per
    literal the callers pass; `[site]` when it has none."""
    for n, p in enumerate(site.pieces):
        if not isinstance(p, Hole) or len(p.tokens) != 1 \
                or p.tokens[0].kind != "id":
            continue
        owner, index = source.enclosing(site.token, p.tokens[0].text)
        if owner is None:
            continue
        values = literal_values(sources, source, owner, index)
        if not values:
            continue
        seen, out = set(), []
        for text, via in values:
            key = (text, tuple(via))
            if key in seen:
                continue
            seen.add(key)
            pieces = site.pieces[:n] + [Lit(text, True)] + site.pieces[n + 1:]
            out.append(Site(site.path, site.line, pieces, site.op_error, via,
                            site.token))
        return out
    return [site]


# --------------------------------------------------------------------------
# Tests and matching
# --------------------------------------------------------------------------

EXPECTED = re.compile(r"expected-error(-re)?\s*(?:@\S+\s*)?\{\{(.*)\}\}")


def normalize(text):
    return re.sub(r"\s+", " ", text)


def expected_texts(root):
    """The literal pieces of every expected-error text under test/."""
    pieces = []
    for path in sorted((root / TESTS).rglob("*")):
        if not path.is_file() or path.suffix not in (".mlir", ".test"):
            continue
        for line in path.read_text(encoding="utf-8",
                                   errors="replace").splitlines():
            m = EXPECTED.search(line)
            if not m:
                continue
            body = m.group(2)
            parts = re.split(r"\{\{.*?\}\}", body) if m.group(1) else [body]
            pieces += [normalize(p) for p in parts if p.strip()]
    return pieces


def key_index(pieces):
    """The piece a test must quote: the first literal of the emit site of
    at least MIN_KEY characters, else its longest literal."""
    lits = [(n, p) for n, p in enumerate(pieces) if isinstance(p, Lit)]
    own = [(n, p) for n, p in lits if not p.required] or lits
    for n, p in own:
        if len(p.text.strip()) >= MIN_KEY:
            return n
    return max(own, key=lambda np: len(np[1].text.strip()))[0]


NO, PART, WHOLE = 0, 1, 2  # how much of a message a test quotes


def agrees(pieces, text, backwards, before_ok=None):
    """How `text` reads as the start of `pieces` (holes any text): WHOLE
    when it reads all of them, PART when it ends inside or right after a
    literal after the required pieces, else NO. Backwards, the text left
    when the pieces run out must satisfy `before_ok`."""
    need = max((n for n, p in enumerate(pieces)
                if isinstance(p, Lit) and p.required), default=-1)
    memo = {}

    def go(i, pos, after_lit):
        if (i, pos, after_lit) in memo:
            return memo[i, pos, after_lit]
        stop = PART if pos == len(text) and after_lit and i > need else NO
        if i == len(pieces):
            if backwards:
                ok = WHOLE if before_ok(text[pos:][::-1]) else NO
            else:
                ok = WHOLE if pos == len(text) else NO
        elif isinstance(pieces[i], Hole):
            # A hole may hold nothing (an empty string from a `?:`).
            ok = max([stop] + [go(i + 1, q, False)
                               for q in range(pos, len(text) + 1)])
        elif pos == len(text):
            ok = stop
        else:
            lit, rest = pieces[i].text, text[pos:]
            if rest.startswith(lit):
                ok = go(i + 1, pos + len(lit), True)
            else:
                ok = PART if i > need and lit.startswith(rest) else NO
        memo[i, pos, after_lit] = ok
        return ok

    return go(0, 0, True)


def covers(site, text):
    """How much of `site`'s message the expected-error text `text` quotes:
    NO, PART or WHOLE."""
    pieces = [Lit(normalize(p.text), p.required) if isinstance(p, Lit) else p
              for p in site.pieces]
    if not any(isinstance(p, Lit) for p in pieces):
        return NO
    k = key_index(pieces)
    whole = pieces[k].text
    lead = whole[:len(whole) - len(whole.lstrip())]
    head = whole.strip()[:QUOTE]
    rest = whole[len(lead) + len(head):]
    after = ([Lit(rest)] if rest else []) + pieces[k + 1:]
    before = [Lit(p.text[::-1], p.required) if isinstance(p, Lit) else p
              for p in reversed(pieces[:k] + ([Lit(lead)] if lead else []))]
    # What may precede a message: nothing, or the op an op error names.
    if site.op_error:
        def before_ok(prefix):
            return prefix == "" or prefix.endswith("op ")
    else:
        def before_ok(prefix):
            return prefix == ""
    best = NO
    start = text.find(head)
    while start >= 0 and best < WHOLE:
        best = max(best, min(
            agrees(after, text[start + len(head):], False),
            agrees(before, text[:start][::-1], True, before_ok)))
        start = text.find(head, start + 1)
    return best


def covered_sites(sites, texts):
    """The sites some text covers. A text that quotes messages whole covers
    only those; one that quotes none whole covers each it quotes part of."""
    covered = set()
    for text in texts:
        found = {NO: [], PART: [], WHOLE: []}
        for n, site in enumerate(sites):
            found[covers(site, text)].append(n)
        covered.update(found[WHOLE] or found[PART])
    return covered


# --------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(
        description="Checks that every tile dialect diagnostic has a "
        "negative test.")
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()

    sources = [Source(p, str(p.relative_to(root)))
               for p in sorted((root / SOURCES).glob("*.cpp"))]
    sites = []
    for source in sources:
        for site in raw_sites(source):
            sites += expand(sources, source, site)
    # One message per emit call and text, whichever callers supply it.
    unique = {}
    for site in sites:
        same = unique.setdefault((site.path, site.line, site.text), site)
        if same is not site:
            same.via += site.via
    sites = list(unique.values())
    texts = expected_texts(root)

    hits = covered_sites(sites, texts)
    used = set()
    covered = allowed = 0
    uncovered = []
    for n, site in enumerate(sites):
        hit = n in hits
        entry = next((e for e in ALLOWLIST if site.path.endswith(e[0])
                      and site.text.startswith(e[1])), None)
        if entry and not hit:
            used.add(entry)
            allowed += 1
            if args.verbose:
                print(f"{site.where()}: allowlisted: {site.text} ({entry[2]})")
        elif hit:
            covered += 1
            if args.verbose:
                print(f"{site.where()}: covered: {site.text}")
        else:
            uncovered.append(site)
    for site in uncovered:
        print(f"{site.where()}: {site.text}")
    stale = [e for e in ALLOWLIST if e not in used]
    for e in stale:
        print(f"{__file__}: allowlist entry matches no uncovered message: "
              f"{e[0]}: {e[1]}")
    print(f"{len(sites)} messages, {covered} covered, {len(uncovered)} not"
          f" ({allowed} allowlisted as unreachable from IR)")
    return 1 if uncovered or stale else 0


if __name__ == "__main__":
    sys.exit(main())
