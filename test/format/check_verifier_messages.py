#!/usr/bin/env python3
"""Checks that every diagnostic of the tile dialect, its passes and its
lowerings is quoted by a test.

The project's rules are that every verifier message has a negative test,
and that every pass has tests of the cases it must leave alone, each left
alone with a remark that says why: a message no test triggers can be
garbled, fire on valid input, or be dead behind an earlier check, and
nobody notices. This script makes the quoting half of those rules
mechanical.

Sites. It reads every `emitOpError(...)`, `emitError(...)` and
`emitOptionalError(...)` (errors), `emitRemark(...)` (remarks) and
`emitWarning(...)` (warnings) call, with the `<< ...` chain that follows
it, in lib/Dialect/Tile/IR/*.cpp (area IR: verifiers, parsers),
lib/Dialect/Tile/Transforms/*.cpp (Transforms: the passes) and
lib/Conversion/**/*.cpp (Conversion: the lowerings). A site is a template:
string literals (adjacent ones joined, as C++ joins them) and holes, the
values streamed in. A diagnostic kept in a variable that later statements
stream into (`auto diag = op.emitError() << ...; diag << ...`) ends in a
hole. A wrapper named like an emitter (`auto emitOpError = [&](const Twine
&message) { return op.emitOpError(message); }`) is not a site: its calls
are.

Reasons. Much of a message is often built elsewhere: a helper's parameter
(`emitOpError() << what << " needs ..."`), or a reason that a function
returns (`if (std::string why = planLoop(...); !why.empty())
loop.emitRemark("not pipelined: ") << why`). The first hole of a site
whose values have text (a name, or a call) is followed to its values, and
the site becomes one message per value; the other holes stay holes.
Values, each a template of its own (`"'" + name + "' has ..."`: a hole
between two literals):

  * a string literal, also in `std::string(...)`, `StringRef(...)` or
    `Twine(...)`;
  * a parameter: what the calls of its function, lambda or macro pass
    there (followed through the callers' own parameters and variables);
  * a variable: its initializer and every assignment to it in its scope,
    class members included, and for a std::string (or SmallString) what a
    function it is passed to by non-const reference assigns there; text
    streamed or added onto it (`raw_string_ostream(why) << ...`, `+=`)
    adds a hole at its end;
  * a call of a function of the scanned files: the values of its
    `return`s (not those of lambdas inside it); a call of a function
    parameter (a `function_ref` reason): the returns of the functions the
    callers pass there; `Helper(...).run()`: `run` of that class of the
    file;
  * `a ? b : c` as a whole value (returned, assigned, passed): the values
    of both branches; `a + b + ...`: its operands in turn, the first one
    with text followed, the others holes. Empty values (`return "";`)
    are no message.

A literal from a reason must be quoted whole (see below), so a test of
one reason does not cover another. A value this script cannot follow
(see the limitations) stays a hole: where the site has other values,
that message is covered only by a text that quotes none of them.

Tests. A message is covered by a quote of a diagnostic of its severity
in a test under test/: the text of an `expected-error`, `expected-remark`
or `expected-warning` (with any `@+N`, `@below` or `-re`) in a test that
a RUN line runs with -verify-diagnostics; or what follows `error: `,
`remark: ` or `warning: ` in a FileCheck check line (`// PREFIX:`,
`-NEXT`, `-SAME`, `-DAG`, `-LABEL` or `-COUNT-N`, not `-NOT`) whose prefix
a RUN line passes to a FileCheck that reads this file (`%s`). Such texts
quote the diagnostic as printed: the values filled in, often the op's
`'tile.x' op ` before it, and sometimes only its first part. The matching
rule:

  * The message's key is the first literal run of the emit call itself
    (not a caller's or a reason's text) of at least MIN_KEY characters,
    else its longest run, whitespace trimmed. The test's text must
    contain the key's first QUOTE characters (all of a shorter key).
  * Around them, the text must agree with the rest of the template:
    literals literally, holes as any text (an empty one included). It may
    start inside a literal, or before the message: there, it may hold
    nothing else, or end with `op ` for an `emitOpError` (a leading hole
    takes whatever precedes it). It may stop inside or right after a
    literal (inside one that follows a hole only with some non-blank text
    of it), but not inside a hole that more literal text follows (a hole
    would otherwise swallow any tail), and not before it has quoted all
    of the text a caller or a reason supplies.
  * A text that quotes some messages whole covers only those; one that
    quotes none whole covers every message it quotes part of.
  * Whitespace runs compare as one space; regex parts (`{{...}}` in
    `-re` texts and check lines, `[[...]]` in check lines) end a piece,
    each piece is matched alone, and pieces are trimmed.

Messages with the same literals at different sites (a shared "must be
inside a 'tile.kernel'", the `not pipelined: ` reasons of two loops) are
covered together: the text cannot say which site printed it.

Limitations. The reading is textual and flow-insensitive: every value
that reaches a hole counts, whatever the conditions around it (a reason
replaced before the emit, or one an earlier check excludes, is a message
of its own, for a test or the allowlist). Functions are found by name
(overloads and same-named functions of other files alike, the calling
file's first); other member calls, interface methods, functions outside
the scanned files (templates in headers), structured bindings, and a
`?:` inside a larger expression or streamed into the message stay holes.
A diagnostic continued in later statements ends in a hole, so its
continuations are not checked. Quotes are text: a quote says which message
it prints, not which site printed it, and a check line is not tied to the
RUN line whose output it checks.

Messages that no input (IR or pass option) can trigger are listed in
ALLOWLIST, each with the reason; an entry that matches no uncovered
message is reported too, so the list cannot go stale.

usage: check_verifier_messages.py [--root DIR] [--verbose]

  --root DIR   the source tree (default: two folders above this script)
  --verbose    also list the covered and allowlisted messages

Prints each uncovered message as FILE:LINE: severity: message (holes as
<expr>; for text from a caller or a reason, where it comes from follows
LINE), then per area its emit calls and messages, and
`N messages, M covered, K not (A allowlisted ...)`, N = M + K + A; exits 1
when any message is not covered or an allowlist entry is stale.
"""
import argparse
import pathlib
import re
import sys

# (area, folder, pattern): the files whose diagnostics are checked; the
# text of a reason may come from any of them.
SOURCES = [
    ("IR", "lib/Dialect/Tile/IR", "*.cpp"),
    ("Transforms", "lib/Dialect/Tile/Transforms", "*.cpp"),
    ("Conversion", "lib/Conversion", "**/*.cpp"),
]
TESTS = "test"
# Each emitter and the severity its diagnostic prints.
EMITTERS = {"emitOpError": "error", "emitError": "error",
            "emitOptionalError": "error", "emitRemark": "remark",
            "emitWarning": "warning"}
# A literal this long identifies a message; shorter ones ("runs ", "has ")
# occur in too many texts to anchor a match.
MIN_KEY = 12
# A test must quote this much of the key, or all of a shorter one: a
# text that ends where a message begins ("... a semaphore array") does
# not quote that message ("semaphore array must hold ...").
QUOTE = 24
# How many calls, returns and assignments a reason is followed through.
MAX_DEPTH = 8

# (file, start of the message as printed, reason): messages that no input
# (IR or pass option) can trigger, the values that the flow-insensitive
# reading finds where the code never prints them among them.
ALLOWLIST = [
    ("MemoryOps.cpp", "destination shape <",
     "tile.load_async and tile.copy read from a !tile.gl (ODS operand type): "
     "the shared-memory branch of verifyTransfer never sees them"),
    ("MemoryOps.cpp", "source shape <",
     "tile.store_async writes to a !tile.gl (ODS operand type): the "
     "shared-memory branch of verifyTransfer never sees it"),
    ("TileTypes.cpp", "global view dimensions must be at most",
     "GlobalType::verify passes verifyShape no maximum dimension"),
    ("StructureOps.cpp", "result layout <type.getLayout()> does not fit the "
     "block's <kernel.getNumWarps()> warps: the layout is open",
     "verifyRegisterValue returns early when the layout is open"),
    ("AssignLayouts.cpp", "register layouts left open: it does not fit",
     "every buildFragmentMap failure sets its reason"),
    ("AssignLayouts.cpp", "register layouts left open: the layout is open",
     "checkFits gets the type with its chosen layout"),
    ("Pipeline.cpp", "not pipelined: <why>",
     "what getCheckedType and getFragmentMap write into `why` is replaced "
     "by 'the staged tile does not fit: ...' before any remark"),
    ("Pipeline.cpp", "not pipelined: the layout is open",
     "the staged tile always has its #tile.chunks layout"),
    ("PrintLayouts.cpp", "no fragment map: ",
     "it skips open layouts, and the kernel verifier builds the same map "
     "for every result"),
    ("Kernel.cpp", "cannot be lowered: the layout is open",
     "an open layout is reported as 'result layout is left open' first"),
    ("Kernel.cpp", "cannot be lowered: <why>",
     "the type and kernel verifiers build the same fragment maps"),
    ("Kernel.cpp", "has a <(index",
     "every layout's lane and warp modes move along one axis"),
    ("Kernel.cpp", "has a lane mode whose size is not a power of two",
     "every layout's lane modes are powers of two (4, 8, 16, 32, 64 or a "
     "#tile.chunks row that divides the warp)"),
    ("Kernel.cpp", "has modes that do not tile the scanned axis",
     "every layout tiles each axis with whole repetitions of its atom"),
    ("Kernel.cpp", "is not lowered to NVVM yet",
     "every tile op has a case in unsupportedReason before this fallback, "
     "which names an op added to the dialect without a lowering"),
    ("Exchange.cpp", "needs <bytes> bytes of shared memory; ",
     "on NVIDIA the kernel verifier rejects these bytes first; only the "
     "exchanges' scratch (the message above) adds to them"),
]

KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
            "decltype", "alignof", "static_assert"}
# Words that may stand before a name without declaring it.
NOT_TYPES = KEYWORDS | {"else", "case", "throw", "new", "delete", "goto",
                        "co_return", "co_yield", "co_await", "operator",
                        "using", "namespace", "typename", "template"}
PUNCT = ["<<", "->", "::", "==", "!=", "<=", ">=", "&&", "||", "++", "--"]
# Calls that take a string without writing it.
READERS = {"StringRef", "Twine", "string", "str", "empty", "starts_with",
           "ends_with", "contains", "size"}


# --------------------------------------------------------------------------
# C++ tokens
# --------------------------------------------------------------------------

class Token:
    """`text` is a literal's value; `offset` and `end` span its source;
    `index` is its place in its file's token list."""
    __slots__ = ("kind", "text", "offset", "end", "line", "index")

    def __init__(self, kind, text, offset, end, line):
        self.kind, self.text, self.line = kind, text, line
        self.offset, self.end = offset, end
        self.index = None


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
    for k, t in enumerate(tokens):
        t.index = k
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


def is_punct(token, *texts):
    return token.kind == "punct" and token.text in texts


def split_args(tokens, open_index):
    """The argument token lists of the call whose `(` is at `open_index`,
    and the index of its `)`."""
    close = matching(tokens, open_index)
    args, current, depth = [], [], 0
    for t in tokens[open_index + 1:close]:
        if is_punct(t, *OPEN):
            depth += 1
        elif is_punct(t, *CLOSE):
            depth -= 1
        if depth == 0 and is_punct(t, ","):
            args.append(current)
            current = []
        else:
            current.append(t)
    if current or args:
        args.append(current)
    return args, close


def expression_end(tokens, i):
    """Index past the expression that starts at token `i`: up to a `;` or
    `,` outside brackets, or a bracket it does not open."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if is_punct(t, *OPEN):
            depth += 1
        elif is_punct(t, *CLOSE):
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0 and is_punct(t, ";", ","):
            return j
    return len(tokens)


# --------------------------------------------------------------------------
# Callables: functions, lambdas and function-like macros
# --------------------------------------------------------------------------

class Callable:
    """`kind`: function, lambda (named by `auto name = [...]`), anonymous
    (a lambda written in place) or macro. `outs[k]`: parameter k is a
    non-const reference, which the callable may write."""

    def __init__(self, name, params, outs, header, start, end, kind):
        self.name, self.params, self.outs = name, params, outs
        self.header, self.start, self.end = header, start, end  # tokens
        self.kind = kind
        self.scope = None  # a lambda's calls: the body it is defined in


def param_info(arg_lists):
    names, outs = [], []
    for arg in arg_lists:
        decl = arg
        for k, t in enumerate(arg):
            if t.text == "=":
                decl = arg[:k]
                break
        ids = [t.text for t in decl if t.kind == "id"]
        names.append(ids[-1] if ids else None)
        outs.append(any(is_punct(t, "&") for t in decl)
                    and "const" not in ids)
    return names, outs


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


def lambda_at(tokens, q, p, b, end, params, outs):
    """The lambda whose `[` is token `q`, body `{` token `b`: named when it
    initializes `auto name =`."""
    if q >= 2 and tokens[q - 1].text == "=" and tokens[q - 2].kind == "id":
        return Callable(tokens[q - 2].text, params, outs, q - 2, b, end,
                        "lambda")
    return Callable(None, params, outs, q, b, end, "anonymous")


def callables(tokens, text):
    found = []
    for b, tok in enumerate(tokens):
        if tok.kind == "punct" and tok.text == "#define":
            if (b + 2 < len(tokens) and tokens[b + 2].text == "("
                    and tokens[b + 2].offset == tokens[b + 1].end):
                args, close = split_args(tokens, b + 2)
                params, outs = param_info(args)
                found.append(Callable(tokens[b + 1].text, params, outs,
                                      b + 1, close + 1,
                                      macro_end(tokens, b, text), "macro"))
            continue
        if not is_punct(tok, "{") or b == 0:
            continue
        end = matching(tokens, b)
        if is_punct(tokens[b - 1], "]"):  # `[&] { ... }`
            q = matching_back(tokens, b - 1)
            if q > 0 and tokens[q - 1].text in ("(", ",", "=", "return",
                                                "{", ";", "}"):
                found.append(lambda_at(tokens, q, b, b, end, [], []))
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
        params, outs = param_info(split_args(tokens, p)[0])
        before = tokens[p - 1]
        if before.text == "]":
            q = matching_back(tokens, p - 1)
            found.append(lambda_at(tokens, q, p, b, end, params, outs))
        elif before.kind == "id" and before.text not in KEYWORDS:
            found.append(Callable(before.text, params, outs, p - 1, b, end,
                                  "function"))
    for c in found:
        if c.kind in ("lambda", "anonymous"):
            around = [o for o in found if o is not c and o.start <= c.header
                      and c.end <= o.end]
            c.scope = min(around, key=lambda o: o.end - o.start,
                          default=None)
    return found


# --------------------------------------------------------------------------
# Message templates
# --------------------------------------------------------------------------

def normalize(text):
    return re.sub(r"\s+", " ", text)


class Lit:
    """Literal text. `required` when it comes from outside the emit call (a
    caller's argument, a reason a helper returns): a test must quote all of
    it to cover that message. `where`: (file, line) of that text."""

    def __init__(self, text, required=False, where=None):
        self.text, self.required, self.where = text, required, where


class Hole:
    """A value streamed into the message; `text` shows its expression."""

    def __init__(self, tokens, source):
        self.tokens, self.source = tokens, source
        span = source.text[tokens[0].offset:tokens[-1].end] if tokens else ""
        self.text = "<" + normalize(span) + ">"


class Value:
    """One text an expression may have: literals and holes. `unknown`: the
    whole value is a hole that this script could not follow."""

    def __init__(self, pieces, unknown=False):
        self.pieces, self.unknown = pieces, unknown

    def textual(self):
        return any(isinstance(p, Lit) and p.text for p in self.pieces)

    def empty(self):
        return all(isinstance(p, Lit) and not p.text for p in self.pieces)


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
    def __init__(self, source, line, pieces, kind, op_error, area,
                 unknown=False):
        self.path, self.line, self.pieces = source.rel, line, merge(pieces)
        self.kind, self.op_error, self.area = kind, op_error, area
        # Its text stands for a value this script could not follow, where
        # other values of the same emit call were followed.
        self.unknown = unknown
        self.via = sorted({p.where for p in self.pieces
                           if isinstance(p, Lit) and p.where
                           and p.where != (source.rel, line)})

    @property
    def text(self):
        return "".join(p.text for p in self.pieces)

    def where(self):
        where = f"{self.path}:{self.line}"
        if self.via:
            where += " [text from " + ", ".join(
                f"{pathlib.Path(p).name}:{n}" for p, n in self.via) + "]"
        return where


# --------------------------------------------------------------------------
# Sources: declarations, assignments and the values of expressions
# --------------------------------------------------------------------------

class Source:
    """A scanned file: its tokens, callables and declarations."""

    def __init__(self, path, rel, area):
        self.rel, self.area = rel, area
        self.text = path.read_text(encoding="utf-8")
        self.tokens = tokenize(self.text)
        self.callables = callables(self.tokens, self.text)
        self._decls = {}

    def enclosing(self, index, name):
        """The innermost callable around token `index` with a parameter
        `name`, and the parameter's position."""
        around = [c for c in self.callables
                  if c.start <= index < c.end and name in c.params]
        if not around:
            return None, None
        c = min(around, key=lambda c: c.end - c.start)
        return c, c.params.index(name)

    def owner(self, index):
        """The innermost callable whose body holds token `index`."""
        around = [c for c in self.callables if c.start <= index < c.end]
        return min(around, key=lambda c: c.end - c.start, default=None)

    def class_body(self, b):
        """Whether the `{` at token `b` opens a class or struct."""
        k = b - 1
        while k >= 0 and not is_punct(self.tokens[k], ";", "{", "}", "(",
                                      ")"):
            if self.tokens[k].text in ("class", "struct", "union"):
                return True
            k -= 1
        return False

    def decl_scope(self, d):
        """(first, last token, member) of the scope of the name declared at
        token `d`: its block, its function's body for a parameter, its
        statement for one in an `if (...)` or `for (...)`."""
        tokens, depth = self.tokens, 0
        for k in range(d - 1, -1, -1):
            t = tokens[k]
            if is_punct(t, *CLOSE):
                depth += 1
            elif is_punct(t, *OPEN):
                if depth:
                    depth -= 1
                    continue
                if t.text == "{":
                    return k, matching(tokens, k), self.class_body(k)
                close = matching(tokens, k)
                j = close + 1
                while j < len(tokens) and not is_punct(tokens[j], "{", ";"):
                    j += 1
                if j < len(tokens) and tokens[j].text == "{":
                    return k, matching(tokens, j), False
                return k, j, False
        return 0, len(tokens), False

    def declarations(self, name):
        if name not in self._decls:
            found = []
            tokens = self.tokens
            for d, t in enumerate(tokens):
                if t.kind != "id" or t.text != name or d == 0 \
                        or d + 1 >= len(tokens):
                    continue
                prev, nxt = tokens[d - 1], tokens[d + 1]
                if nxt.text not in ("=", ";", ",", ")", "(", "{", "[", ":"):
                    continue
                if prev.kind == "id":
                    typed = prev.text not in NOT_TYPES
                elif is_punct(prev, "&", "*", "&&", ">"):
                    typed = d >= 2 and (tokens[d - 2].kind == "id" or
                                        is_punct(tokens[d - 2], ">", "*"))
                else:
                    typed = False
                if typed:
                    found.append((d,) + self.decl_scope(d))
            self._decls[name] = found
        return self._decls[name]

    def decl_of(self, name, use):
        """Token index of the declaration of `name` seen at token `use`."""
        seen = [(last - first, -d, d) for d, first, last, member
                in self.declarations(name)
                if first <= use <= last and (d <= use or member)]
        return min(seen)[2] if seen else None


class Evaluator:
    """Follows reasons to their text: a name to its declaration's
    assignments (or, for a parameter, to what the callers pass), a call to
    what the callee returns."""

    def __init__(self, sources):
        self.sources = sources
        self.active = set()

    def functions(self, name, source):
        """The functions named `name`, those of `source` when it has any."""
        same = [(source, c) for c in source.callables
                if c.name == name and c.kind == "function"]
        if same:
            return same
        return [(s, c) for s in self.sources for c in s.callables
                if c.name == name and c.kind == "function"]

    def lambda_named(self, name, source, index):
        found = [c for c in source.callables if c.kind == "lambda"
                 and c.name == name and c.scope is not None
                 and c.scope.start <= index < c.scope.end]
        return [(source, c) for c in found]

    # ----- whole values: returned, assigned, passed --------------------

    def expr(self, source, toks, depth):
        """The values of the expression `toks` (whole: a `?:` at its top
        gives the values of both branches)."""
        while len(toks) > 1 and is_punct(toks[0], "(") \
                and matching(toks, 0) == len(toks) - 1:
            toks = toks[1:-1]
        if not toks:
            return []
        if depth > MAX_DEPTH:
            return [Value([Hole(toks, source)], unknown=True)]
        depth_, question = 0, None
        for k, t in enumerate(toks):
            if is_punct(t, *OPEN):
                depth_ += 1
            elif is_punct(t, *CLOSE):
                depth_ -= 1
            elif depth_ == 0 and is_punct(t, "?"):
                question = k
                break
        if question is not None:
            nest, colon = 0, None
            depth_ = 0
            for k in range(question + 1, len(toks)):
                t = toks[k]
                if is_punct(t, *OPEN):
                    depth_ += 1
                elif is_punct(t, *CLOSE):
                    depth_ -= 1
                elif depth_ == 0 and is_punct(t, "?"):
                    nest += 1
                elif depth_ == 0 and is_punct(t, ":"):
                    if nest == 0:
                        colon = k
                        break
                    nest -= 1
            if colon is not None:
                return (self.expr(source, toks[question + 1:colon], depth)
                        + self.expr(source, toks[colon + 1:], depth))
        return self.concat(source, toks, depth)

    def concat(self, source, toks, depth):
        """The values of `a + b + ...`: each literal as it is, the first
        operand that has text followed to its values, the rest holes."""
        operands, current, depth_ = [], [], 0
        for k, t in enumerate(toks):
            if is_punct(t, *OPEN):
                depth_ += 1
            elif is_punct(t, *CLOSE):
                depth_ -= 1
            if depth_ == 0 and is_punct(t, "+") and current and (
                    current[-1].kind in ("id", "str", "num", "chr")
                    or is_punct(current[-1], ")", "]")):
                operands.append(current)
                current = []
            else:
                current.append(t)
        operands.append(current)
        if len(operands) == 1:
            return self.operand(source, toks, depth)
        values = [Value([])]
        expanded = False
        for operand in operands:
            literal = self.literal(source, operand)
            if literal is not None:
                options = [Value([literal])]
            else:
                options = [] if expanded else [
                    v for v in self.operand(source, operand, depth)]
                if any(v.textual() for v in options):
                    expanded = True
                else:
                    options = [Value([Hole(operand, source)])]
            values = [Value(v.pieces + o.pieces)
                      for v in values for o in options]
        return values

    def literal(self, source, toks):
        """The Lit of `toks` if they are string literals, or a literal in
        `std::string(...)`, `StringRef(...)` or `Twine(...)`."""
        inner = toks
        names = [t.text for t in toks[:3]]
        for wrapper in (["std", "::", "string"], ["StringRef"], ["Twine"]):
            n = len(wrapper)
            if names[:n] == wrapper and len(toks) > n + 1 \
                    and is_punct(toks[n], "(") \
                    and matching(toks, n) == len(toks) - 1:
                inner = toks[n + 1:-1]
        if inner and all(t.kind == "str" for t in inner):
            return Lit("".join(t.text for t in inner), True,
                       (source.rel, inner[0].line))
        return None

    def operand(self, source, toks, depth):
        """The values of one operand: a literal, a name, or a call of a
        function (or function parameter) this script can read; else a
        hole."""
        literal = self.literal(source, toks)
        if literal is not None:
            return [Value([literal])]
        unknown = [Value([Hole(toks, source)], unknown=True)]
        if depth > MAX_DEPTH or not toks:
            return unknown
        if len(toks) == 1 and toks[0].kind == "id":
            return self.name(source, toks[0].index, depth)
        # `a::b::f(...)`, `f<T>(...)`
        k = 0
        while k + 2 < len(toks) and toks[k].kind == "id" \
                and toks[k + 1].text == "::":
            k += 2
        if toks[k].kind == "id" and k + 1 < len(toks):
            j = k + 1
            if is_punct(toks[j], "<"):
                while j < len(toks) and not is_punct(toks[j], ">"):
                    j += 1
                j += 1
            if j < len(toks) and is_punct(toks[j], "(") \
                    and matching(toks, j) == len(toks) - 1:
                if k and toks[0].text == "std":
                    return unknown
                return self.call(source, toks[k].index, depth)
        # `Helper(...).method()`: a method of a class of this file on a
        # temporary.
        if len(toks) >= 6 and toks[0].kind == "id" \
                and is_punct(toks[1], "("):
            close = matching(toks, 1)
            if close + 4 == len(toks) - 1 and is_punct(toks[close + 1], ".") \
                    and toks[close + 2].kind == "id" \
                    and is_punct(toks[close + 3], "(") and re.search(
                        r"\b(class|struct)\s+" + re.escape(toks[0].text)
                        + r"\b", source.text):
                return self.returns_of(
                    [(source, c) for c in source.callables
                     if c.name == toks[close + 2].text
                     and c.kind == "function"], depth)
        return unknown

    def name(self, source, index, depth):
        """The values of the name at token `index`."""
        name = source.tokens[index].text
        unknown = [Value([Hole([source.tokens[index]], source)],
                         unknown=True)]
        d = source.decl_of(name, index)
        owner, k = source.enclosing(index, name)
        if owner is not None and d is not None \
                and not owner.header < d < owner.start:
            owner = None  # a local that hides the parameter
        if owner is not None:
            values = self.passed(source, owner, k, depth)
            if d is not None:
                values += self.assigned(source, name, d, depth)[0]
            return values or unknown
        if d is None:
            return unknown
        values, appended, sources = self.assigned(source, name, d, depth)
        # No source at all: a value this script cannot see. Sources without
        # values: only empty strings, or a recursion already followed.
        if not values and (appended or not sources):
            values = unknown
        if appended:
            values = [Value(v.pieces + [Hole([source.tokens[index]],
                                             source)], v.unknown)
                      for v in values]
        return values

    def passed(self, source, owner, k, depth):
        """The values the calls of `owner` pass as its parameter `k`."""
        key = ("passed", source.rel, owner.header, k)
        if key in self.active or owner.kind == "anonymous":
            return []
        self.active.add(key)
        values = []
        for caller, i, args in self.calls_of(source, owner):
            if k < len(args) and args[k]:
                values += self.expr(caller, args[k], depth + 1)
        self.active.discard(key)
        return values

    def calls_of(self, owner_source, callable_):
        """(source, token index of the name, argument lists) of each call."""
        for source in self.sources:
            if callable_.kind == "lambda" and source is not owner_source:
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

    def assigned(self, source, name, d, depth):
        """(values, appended) of the variable declared at token `d`: what
        its initializer and assignments give it, and what the callables it
        is passed to by reference write; `appended` when text is streamed
        or added onto it."""
        key = ("assigned", source.rel, d)
        if key in self.active:
            return [], False, 1
        self.active.add(key)
        tokens = source.tokens
        _, first, last, _ = next(x for x in source.declarations(name)
                                 if x[0] == d)
        values, appended, sources = [], False, 0
        # Only a std::string (or SmallString) is written through a
        # reference; a StringRef or Twine is passed by value.
        k = d - 1
        while k > 0 and not is_punct(tokens[k], "(", ",", ";", "{", "}"):
            k -= 1
        declared = {t.text for t in tokens[k + 1:d]}
        writable = bool(declared & {"string", "SmallString"}) \
            and "const" not in declared
        for j in range(max(first, 0), min(last + 1, len(tokens) - 1)):
            t = tokens[j]
            if t.kind != "id" or t.text != name \
                    or is_punct(tokens[j - 1], ".", "->", "::") \
                    or source.decl_of(name, j) != d:
                continue
            nxt = tokens[j + 1]
            if is_punct(nxt, "="):
                sources += 1
                rhs = tokens[j + 2:expression_end(tokens, j + 2)]
                values += [v for v in self.expr(source, rhs, depth + 1)
                           if not v.empty()]
            elif is_punct(nxt, "+") and tokens[j + 2].text == "=":
                appended = True
            elif writable and is_punct(tokens[j - 1], "(", ",") \
                    and is_punct(nxt, ")", ","):
                written, app = self.written(source, j, depth)
                values += written
                appended |= app
                sources += 1
        self.active.discard(key)
        return values, appended, sources

    def written(self, source, j, depth):
        """(values, appended) that the call taking the name at token `j` as
        an argument may write into it."""
        tokens = source.tokens
        depth_, p = 0, None
        for k in range(j - 1, -1, -1):
            if is_punct(tokens[k], *CLOSE):
                depth_ += 1
            elif is_punct(tokens[k], *OPEN):
                if depth_ == 0:
                    p = k
                    break
                depth_ -= 1
        if p is None or tokens[p].text != "(" or p == 0:
            return [], False
        c = p - 1
        if is_punct(tokens[c], ">"):  # `f<T>(...)`
            while c > 0 and not is_punct(tokens[c], "<"):
                c -= 1
            c -= 1
        callee = tokens[c]
        if callee.kind != "id":
            return [], False
        if callee.text == "raw_string_ostream" or (
                c > 0 and tokens[c - 1].text == "raw_string_ostream"):
            return [], True
        if callee.text in READERS:
            return [], False
        unknown = [Value([Hole([tokens[j]], source)], unknown=True)]
        if is_punct(tokens[c - 1], ".", "->"):
            return unknown, False
        index = sum(1 for t in tokens[p + 1:j] if is_punct(t, ",")
                    and self._depth(tokens, p, t.index) == 0)
        targets = self.functions(callee.text, source)
        if not targets:
            return unknown, False
        values, appended = [], False
        for s, f in targets:
            if index >= len(f.outs) or not f.outs[index]:
                continue
            param = next((t.index for t in s.tokens[f.header:f.start]
                          if t.kind == "id" and t.text == f.params[index]),
                         None)
            if param is None:
                continue
            v, a, _ = self.assigned(s, f.params[index], param, depth + 1)
            values += v
            appended |= a
        return values, appended

    @staticmethod
    def _depth(tokens, p, k):
        depth = 0
        for t in tokens[p + 1:k]:
            if is_punct(t, *OPEN):
                depth += 1
            elif is_punct(t, *CLOSE):
                depth -= 1
        return depth

    def call(self, source, index, depth):
        """The values a call of the name at token `index` returns."""
        name = source.tokens[index].text
        owner, k = source.enclosing(index, name)
        if owner is not None:  # a function passed in: what the callers pass
            return self.function_values(source, owner, k, depth)
        targets = self.lambda_named(name, source, index) or \
            self.functions(name, source)
        if not targets:
            return [Value([Hole(source.tokens[index:index + 1], source)],
                          unknown=True)]
        return self.returns_of(targets, depth)

    def function_values(self, source, owner, k, depth):
        """What the functions the callers of `owner` pass as its parameter
        `k` return."""
        key = ("function", source.rel, owner.header, k)
        if key in self.active or owner.kind == "anonymous":
            return []
        self.active.add(key)
        values = []
        for caller, i, args in self.calls_of(source, owner):
            if k >= len(args) or not args[k]:
                continue
            arg = args[k]
            if len(arg) == 1 and arg[0].kind == "id":
                outer, m = caller.enclosing(i, arg[0].text)
                if outer is not None:
                    values += self.function_values(caller, outer, m,
                                                   depth + 1)
                else:
                    values += self.returns_of(
                        self.functions(arg[0].text, caller), depth + 1)
            elif is_punct(arg[0], "["):
                values += self.returns_of(
                    [(caller, c) for c in caller.callables
                     if c.kind == "anonymous"
                     and arg[0].offset <= caller.tokens[c.start].offset
                     <= arg[-1].offset], depth + 1)
        self.active.discard(key)
        return values

    def returns_of(self, targets, depth):
        """The non-empty values the callables `targets` return."""
        values = []
        for source, c in targets:
            key = ("returns", source.rel, c.header)
            if key in self.active:
                continue
            self.active.add(key)
            tokens = source.tokens
            for i in range(c.start, c.end):
                if tokens[i].text != "return" or tokens[i].kind != "id" \
                        or source.owner(i) is not c:
                    continue
                expr = tokens[i + 1:expression_end(tokens, i + 1)]
                values += [v for v in self.expr(source, expr, depth + 1)
                           if not v.empty()]
            self.active.discard(key)
        return values


# --------------------------------------------------------------------------
# Diagnostic sites
# --------------------------------------------------------------------------

def continued(source, i):
    """Whether the diagnostic that the emit call at token `i` starts is
    kept in a variable (`auto diag = op.emitError() << ...`) that later
    statements stream more text into."""
    tokens = source.tokens
    k = i
    while k > 0 and is_punct(tokens[k - 1], ".", "->"):
        k -= 2
        while k > 0 and is_punct(tokens[k], ")", "]"):
            k = matching_back(tokens, k) - 1
        while k > 1 and is_punct(tokens[k - 1], ".", "->", "::") \
                and tokens[k - 2].kind == "id":
            k -= 2
    if k < 2 or tokens[k - 1].text != "=" or tokens[k - 2].kind != "id":
        return False
    name = tokens[k - 2].text
    owner = source.owner(i)
    end = owner.end if owner else len(tokens)
    stmt = expression_end(tokens, i)
    return any(tokens[j].text == name and tokens[j + 1].text == "<<"
               for j in range(stmt, end - 1))


def sites_of(source, evaluator):
    """The messages of each emit call of `source`."""
    tokens = source.tokens
    for i, tok in enumerate(tokens):
        if tok.kind != "id" or tok.text not in EMITTERS:
            continue
        if i + 1 >= len(tokens) or tokens[i + 1].text != "(" \
                or any(c.header == i for c in source.callables):
            continue
        args, close = split_args(tokens, i + 1)
        if tok.text == "emitOptionalError" or len(args) > 1:
            args = args[1:]  # the location
        operands = [o for o in args + stream_operands(tokens, close + 1) if o]
        pieces = []
        for o in operands:
            if all(t.kind == "str" for t in o):
                pieces.append(Lit("".join(t.text for t in o)))
            else:
                pieces.append(Hole(o, source))
        if continued(source, i):
            pieces.append(Hole([tok], source))
        # A wrapper named like an emitter (`auto emitOpError = [&](const
        # Twine &message) { return op.emitOpError(message); }`) forwards
        # its callers' messages, which are sites of their own.
        owner = source.owner(i)
        if owner is not None and owner.name in EMITTERS and not any(
                isinstance(p, Lit) for p in pieces):
            continue
        for variant, unknown in expand(source, pieces, evaluator):
            if any(isinstance(p, Lit) and p.text.strip() for p in variant):
                yield Site(source, tok.line, variant, EMITTERS[tok.text],
                           tok.text == "emitOpError", source.area, unknown)


def expand(source, pieces, evaluator):
    """`pieces` with its first hole that has text followed to its values:
    (pieces, unknown) per value, `unknown` for a value this script could
    not follow; `[(pieces, False)]` when no hole has text."""
    for n, p in enumerate(pieces):
        if not isinstance(p, Hole):
            continue
        values = evaluator.operand(source, p.tokens, 0)
        if not any(v.textual() for v in values):
            continue
        seen, out = set(), []
        for v in values:
            if v.empty():
                continue
            variant = pieces[:n] + v.pieces + pieces[n + 1:]
            key = tuple((type(q), q.text) for q in variant)
            if key not in seen:
                seen.add(key)
                out.append((variant, v.unknown))
        return out
    return [(pieces, False)]


# --------------------------------------------------------------------------
# Tests and matching
# --------------------------------------------------------------------------

EXPECTED = re.compile(r"expected-(error|remark|warning)(-re)?\s*"
                      r"(?:@\S+\s*)?\{\{(.*)\}\}")
CHECK = re.compile(r"^\s*(?://|#|;)\s*([A-Za-z][\w-]*?)"
                   r"(-NEXT|-SAME|-DAG|-LABEL|-COUNT-\d+)?:(.*)$")
SEVERITY = re.compile(r"\b(error|remark|warning): ")
FILECHECK = re.compile(r"\bFileCheck\b([^|;&]*)")
PREFIXES = re.compile(r"--?check-prefix(?:es)?[= ]([\w,-]+)")


def run_lines(lines):
    """The RUN lines of a test, continuations joined."""
    runs, current = [], None
    for line in lines:
        m = re.search(r"RUN:(.*)$", line)
        if not m:
            current = None
            continue
        text = m.group(1)
        if current is not None:
            runs[-1] += " " + text
        else:
            runs.append(text)
        current = text.rstrip().endswith("\\") or None
        if current:
            runs[-1] = runs[-1].rstrip()[:-1]
    return runs


def test_texts(root):
    """(severity, text) of each quote of a diagnostic under test/: the
    expected-* texts of tests run with -verify-diagnostics, and what
    follows `error: `, `remark: ` or `warning: ` in the check lines of a
    prefix that a RUN line gives FileCheck (CHECK-NOT lines excepted).
    Regex parts (`{{...}}`, and FileCheck's `[[...]]`) split a text into
    pieces, each matched alone."""
    texts = []
    for path in sorted((root / TESTS).rglob("*")):
        if not path.is_file() or path.suffix not in (".mlir", ".test"):
            continue
        lines = path.read_text(encoding="utf-8",
                               errors="replace").splitlines()
        runs = run_lines(lines)
        verify = any("-verify-diagnostics" in r for r in runs)
        prefixes = set()
        for run in runs:
            for m in FILECHECK.finditer(run):
                if "%s" not in m.group(1).split():
                    continue  # checks written in another file
                named = PREFIXES.findall(m.group(1))
                for names in named:
                    prefixes.update(names.split(","))
                if not named:
                    prefixes.add("CHECK")
        for line in lines:
            m = EXPECTED.search(line)
            if m and verify:
                body = m.group(3)
                parts = re.split(r"\{\{.*?\}\}", body) if m.group(2) \
                    else [body]
                texts += [(m.group(1), normalize(p).strip()) for p in parts
                          if p.strip()]
                continue
            m = CHECK.match(line)
            if not m or m.group(1) not in prefixes or m.group(1) == "RUN":
                continue
            s = SEVERITY.search(m.group(3))
            if not s:
                continue
            parts = re.split(r"\{\{.*?\}\}|\[\[.*?\]\]", m.group(3)[s.end():])
            texts += [(s.group(1), normalize(p).strip()) for p in parts
                      if p.strip()]
    return texts


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
                # Text that ends inside a literal after a hole must quote
                # some of it: blank text there is no quote.
                ok = PART if i > need and lit.startswith(rest) and (
                    after_lit or rest.strip()) else NO
        memo[i, pos, after_lit] = ok
        return ok

    return go(0, 0, True)


def covers(site, text):
    """How much of `site`'s message the test text `text` quotes: NO, PART
    or WHOLE."""
    pieces = [Lit(normalize(p.text), p.required) if isinstance(p, Lit) else p
              for p in site.pieces]
    k = key_index(pieces)
    whole = pieces[k].text
    lead = whole[:len(whole) - len(whole.lstrip())]
    head = whole.strip()[:QUOTE]
    rest = whole[len(lead) + len(head):]
    after = ([Lit(rest, pieces[k].required)] if rest else []) + pieces[k + 1:]
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
    only those; one that quotes none whole covers each it quotes part of;
    of the messages of one emit call, one whose text this script could not
    follow only when the text quotes none of the others."""
    covered = set()
    for kind, text in texts:
        found = {NO: [], PART: [], WHOLE: []}
        for n, site in enumerate(sites):
            if site.kind == kind:
                found[covers(site, text)].append(n)
        hits = found[WHOLE] or found[PART]
        known = {(sites[n].path, sites[n].line) for n in hits
                 if not sites[n].unknown}
        covered.update(n for n in hits if not sites[n].unknown
                       or (sites[n].path, sites[n].line) not in known)
    return covered


# --------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(
        description="Checks that every diagnostic of the tile dialect, its "
        "passes and its lowerings is quoted by a test.")
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2])
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    root = args.root.resolve()

    sources = [Source(p, str(p.relative_to(root)), area)
               for area, folder, pattern in SOURCES
               for p in sorted((root / folder).glob(pattern))]
    evaluator = Evaluator(sources)
    sites, calls = [], {}
    for source in sources:
        for site in sites_of(source, evaluator):
            sites.append(site)
            calls.setdefault(site.area, set()).add((site.path, site.line))
    # One message per emit call and text, wherever the text comes from.
    unique = {}
    for site in sites:
        same = unique.setdefault((site.path, site.line, site.text), site)
        if same is not site:
            same.via = sorted(set(same.via) | set(site.via))
    sites = list(unique.values())
    texts = test_texts(root)

    hits = covered_sites(sites, texts)
    used = set()
    counts = {area: [0, 0, 0, 0] for area, _, _ in SOURCES}
    uncovered = []
    for n, site in enumerate(sites):
        hit = n in hits
        entry = next((e for e in ALLOWLIST if site.path.endswith(e[0])
                      and site.text.startswith(e[1])), None)
        count = counts[site.area]
        count[0] += 1
        if entry and not hit:
            used.add(entry)
            count[3] += 1
            if args.verbose:
                print(f"{site.where()}: allowlisted: {site.kind}: "
                      f"{site.text} ({entry[2]})")
        elif hit:
            count[1] += 1
            if args.verbose:
                print(f"{site.where()}: covered: {site.kind}: {site.text}")
        else:
            count[2] += 1
            uncovered.append(site)
    for site in uncovered:
        print(f"{site.where()}: {site.kind}: {site.text}")
    stale = [e for e in ALLOWLIST if e not in used]
    for e in stale:
        print(f"{__file__}: allowlist entry matches no uncovered message: "
              f"{e[0]}: {e[1]}")
    for area, _, _ in SOURCES:
        total, covered, missing, allowed = counts[area]
        print(f"{area}: {len(calls.get(area, ()))} emit calls, {total} "
              f"messages, {covered} covered, {missing} not ({allowed} "
              f"allowlisted)")
    total = [sum(c[k] for c in counts.values()) for k in range(4)]
    print(f"{total[0]} messages, {total[1]} covered, {total[2]} not"
          f" ({total[3]} allowlisted as unreachable from any input)")
    return 1 if uncovered or stale else 0


if __name__ == "__main__":
    sys.exit(main())
