#!/usr/bin/env python3
"""Finds calls whose arguments create IR in an order C++ leaves open.

C++ does not fix the order in which a call's arguments are evaluated, so
`add(b, loc, mul(b, loc, x, y), mul(b, loc, z, w))` creates its two
multiplications in one order under clang and the other under GCC: the IR,
and the PTX after it, then depend on the host compiler. A call is flagged
when two or more of its arguments each contain a call that creates ops
(an `Op::create(...)`, or a helper that does: one of CREATORS, or a
function or named lambda defined in the sources beside the files checked
whose body creates ops). The fix is to name the values first, one
statement each.

usage: check_eval_order.py FILE...        (exit status 1 when any call is
       check_eval_order.py --tree DIR     flagged, each printed as
                                          FILE:LINE: text; --tree checks
                                          every .cpp under DIR)
"""
import pathlib
import re
import sys

# Helpers that build ops (lib/Conversion/TileToLLVM/Common.h and friends);
# `X::create(` is matched separately.
CREATORS = {
    "add", "sub", "mul", "ult", "ule", "slt", "sle", "eq", "ne", "cmp",
    "sel", "select", "index", "constIndex", "constI32", "constI64", "constF32",
    "toI32", "toI64", "toIndex", "offsetPtr", "threadIndex", "laneId",
    "warpId", "shuffleIdx", "shuffleXor", "andI", "orI", "xorI", "shl",
    "shr", "divU", "remU", "minU", "maxU", "kernelParam", "bufferLoad",
    "bufferResource", "readChunk", "swizzledOffset", "extract", "insert",
}
CREATE = re.compile(r"\b[A-Z]\w*(?:::\w+)*::create\s*\(")
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


def strip(text):
    """Comments and string/char literals blanked, lengths kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (j + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# The head of a lambda up to its body's opening brace: captures, optional
# parameters, `mutable` and a trailing return type.
LAMBDA = re.compile(r"\[[^\[\]]*\]\s*(?:\((?:[^()]|\([^()]*\))*\)\s*)?"
                    r"(?:mutable\s*)?(?:->\s*[^{};()]*)?\{")


def without_lambda_bodies(arg):
    """`arg` with the bodies of the lambdas it contains blanked: a lambda
    passed as an argument runs when the callee calls it (an scf.if's region
    builders, say), not while the arguments are evaluated. A lambda called
    on the spot (`[&] { ... }()`) keeps its body."""
    out = list(arg)
    for m in LAMBDA.finditer(arg):
        depth, i = 0, m.end() - 1
        while i < len(arg):
            depth += {"{": 1, "}": -1}.get(arg[i], 0)
            if depth == 0:
                break
            i += 1
        if arg[i + 1:].lstrip().startswith("("):
            continue
        for j in range(m.end(), min(i, len(arg))):
            out[j] = " "
    return "".join(out)


def creates(arg, creators):
    arg = without_lambda_bodies(arg)
    if CREATE.search(arg):
        return True
    return any(m.group(1) in creators for m in CALL.finditer(arg))


# `name = [...](...) {` (a named lambda) and `name(...) ... {` (a function
# definition), each up to its body's opening brace.
NAMED_LAMBDA = re.compile(r"\bauto\s+([A-Za-z_]\w*)\s*=\s*" + LAMBDA.pattern)
FUNCTION_TAIL = re.compile(r"\s*(?:const\s*)?(?:override\s*)?(?:noexcept\s*)?"
                           r"(?:->\s*[\w:<>, *&]+\s*)?\{")
NOT_FUNCTIONS = {"if", "for", "while", "switch", "catch", "return", "sizeof",
                 "decltype", "alignof", "static_assert"}


def _close(text, i):
    """Index of the bracket closing the one at `i`, or -1."""
    pair = {"(": ")", "{": "}"}[text[i]]
    depth = 0
    for j in range(i, len(text)):
        if text[j] == text[i]:
            depth += 1
        elif text[j] == pair:
            depth -= 1
            if depth == 0:
                return j
    return -1


def definitions(text):
    """(name, body) of the named lambdas and functions defined in `text`."""
    for m in NAMED_LAMBDA.finditer(text):
        end = _close(text, m.end() - 1)
        yield m.group(1), text[m.end():end]
    for m in CALL.finditer(text):
        name, before = m.group(1), text[:m.start()].rstrip()
        # A call inside an expression or a constructor's member initializer.
        if name in NOT_FUNCTIONS or before.endswith(
                ("=", "(", ",", "?", "!", "&&", "||", "return")) or (
                before.endswith(":") and not before.endswith("::")):
            continue
        close = _close(text, m.end() - 1)
        tail = FUNCTION_TAIL.match(text, close + 1) if close > 0 else None
        if tail:
            end = _close(text, tail.end() - 1)
            yield name, text[tail.end():end]


def helpers(paths):
    """CREATORS and the functions and named lambdas that create ops, taken
    from every C++ source in the folders of `paths` (so a file checked alone
    knows the helpers its neighbours define), to a fixed point."""
    bodies = {}
    folders = {pathlib.Path(p).parent for p in paths}
    for folder in folders:
        for source in sorted(folder.glob("*.[ch]*")):
            if source.suffix in (".cpp", ".h", ".hpp", ".cc"):
                text = strip(source.read_text(encoding="utf-8"))
                for name, body in definitions(text):
                    bodies.setdefault(name, []).append(body)
    creators = set(CREATORS)
    grown = True
    while grown:
        grown = False
        for name, texts in bodies.items():
            if name not in creators and any(
                    creates(body, creators) for body in texts):
                creators.add(name)
                grown = True
    return creators


def calls(text):
    """(start, [argument texts]) of every parenthesised argument list.

    Commas inside braces do not separate arguments: the clauses of a braced
    initializer list (`push_back({f(), g()})`, `ValueRange{f(), g()}`) are
    evaluated in the order written, so such a list is one argument however
    many of its clauses create ops; a lambda's body is one too.
    """
    stack = []  # ("(", start, cuts) or ("{", start, None)
    for i, ch in enumerate(text):
        if ch in "({":
            stack.append((ch, i, [i + 1] if ch == "(" else None))
        elif ch == "," and stack and stack[-1][0] == "(":
            cuts = stack[-1][2]
            if not _in_template(text, cuts[-1], i):
                cuts.append(i + 1)
        elif ch in ")}":
            opening = "(" if ch == ")" else "{"
            while stack and stack[-1][0] != opening:
                stack.pop()
            if not stack:
                continue
            _, start, cuts = stack.pop()
            if cuts is not None:
                bounds = cuts + [i + 1]
                yield start, [text[a:b - 1]
                              for a, b in zip(bounds, bounds[1:])]


def _in_template(text, a, b):
    seg = text[a:b]
    return seg.count("<") > seg.count(">") and "<<" not in seg


def check(path, creators):
    raw = open(path, encoding="utf-8").read()
    text = strip(raw)
    found = []
    for start, args in calls(text):
        if len(args) < 2:
            continue
        if sum(1 for a in args if creates(a, creators)) >= 2:
            line = text.count("\n", 0, start) + 1
            found.append((line, raw.splitlines()[line - 1].strip()))
    return sorted(set(found))


def main(args):
    paths = []
    while args:
        if args[0] == "--tree" and len(args) > 1:
            tree = pathlib.Path(args[1])
            paths += sorted(str(p) for p in tree.rglob("*.cpp"))
            args = args[2:]
        else:
            paths.append(args[0])
            args = args[1:]
    creators = helpers(paths)
    bad = 0
    for path in paths:
        for line, src in check(path, creators):
            print(f"{path}:{line}: {src}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
