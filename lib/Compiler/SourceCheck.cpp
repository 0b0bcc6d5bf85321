//===- SourceCheck.cpp - Reject what the MLIR 22 parser crashes on -------===//
//
// MLIR 22.1's parser accepts `index` as the element type of a dense array
// (`array<index: 1>`) and then asks that type for its bit width, which
// crashes (a segmentation fault in release builds, an assertion with
// assertions on). Upstream rejects it with "expected integer or float type"
// in later releases. tk-opt, tk-compile and the C API read programs written
// by hand and by other compilers, so they scan the text first and report
// the construct as later MLIR does, with its location, instead of crashing.
//
// The scan tokenizes only as far as it needs to: comments and string
// literals are skipped (text inside them is never a dense array), bare
// identifiers are told apart from `!`/`#`/`%`/`@`/`^`-prefixed names (so
// `!foo.array<index>` is a dialect type, not a dense array), and type
// aliases that name `index` (`!i = index`, also through other aliases) are
// followed, because `array<!i: 1>` crashes the same way. It reads the text
// once, holding three tokens and the aliases, so it costs little next to
// the parse.
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

struct Token {
  enum Kind { None, Bare, TypeName, Other, Punct };
  Kind kind = None;
  llvm::StringRef text;

  bool is(Kind k, llvm::StringRef t = {}) const {
    return kind == k && (t.empty() || text == t);
  }
};

bool isBareStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isBareBody(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}
bool isSuffixBody(char c) { return isBareBody(c) || c == '-'; }

/// Reads the text token by token, holding nothing but its position: a
/// program of any size is scanned in constant memory.
class Lexer {
public:
  explicit Lexer(llvm::StringRef text) : text(text) {}

  /// The next token; kind None at the end.
  Token next() {
    while (pos < text.size()) {
      char c = text[pos];
      size_t start = pos;
      // (MLIR's lexer skips a NUL inside the buffer as whitespace.)
      if (llvm::isSpace(c) || c == '\0') {
        ++pos;
        continue;
      }
      if (text.substr(pos).starts_with("//")) {
        pos = std::min(text.find('\n', pos), text.size());
        continue;
      }
      Token::Kind kind = Token::Other;
      if (c == '"') {
        skipString();
      } else if (isBareStart(c)) {
        skipWhile(isBareBody);
        kind = Token::Bare;
      } else if (llvm::StringRef("!#%@^").contains(c)) {
        ++pos;
        if (pos < text.size() && text[pos] == '"')
          skipString();
        else
          skipWhile(isSuffixBody);
        if (c == '!')
          kind = Token::TypeName;
      } else if (llvm::isDigit(c)) {
        skipWhile(isBareBody);
      } else {
        ++pos;
        kind = Token::Punct;
      }
      return {kind, text.slice(start, pos)};
    }
    return {};
  }

private:
  void skipWhile(bool (*body)(char)) {
    while (pos < text.size() && body(text[pos]))
      ++pos;
  }
  /// Moves past the string literal at `pos` (a quote).
  void skipString() {
    for (++pos; pos < text.size(); ++pos) {
      if (text[pos] == '\\') {
        ++pos;
      } else if (text[pos] == '"') {
        ++pos;
        return;
      }
    }
  }

  llvm::StringRef text;
  size_t pos = 0;
};

/// Whether the type alias `name` (with its `!`) stands for `index`.
bool aliasIsIndex(const llvm::StringMap<llvm::StringRef> &aliases,
                  llvm::StringRef name) {
  // An alias chain longer than the number of aliases is a cycle.
  for (size_t step = 0; step <= aliases.size(); ++step) {
    auto it = aliases.find(name);
    if (it == aliases.end())
      return false;
    if (it->second == "index")
      return true;
    name = it->second;
  }
  return false;
}

} // namespace

LogicalResult tk::checkSourceParses(const llvm::SourceMgr &sourceMgr,
                                    MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  // Bytecode is not text; its reader does not go through this parser path.
  if (text.starts_with("ML\xefR"))
    return success();

  // A window of three tokens: `!a = index` (or `!a = !b`) defines an alias
  // (before its uses, as MLIR requires); `array < index` (or `array < !a`)
  // is a dense array of index elements.
  llvm::StringMap<llvm::StringRef> aliases;
  Lexer lexer(text);
  Token first, second, third = lexer.next();
  bool found = false;
  while (third.kind != Token::None) {
    if (first.is(Token::TypeName) && second.is(Token::Punct, "=") &&
        (third.is(Token::Bare, "index") || third.is(Token::TypeName)))
      aliases[first.text] = third.text;
    bool index =
        third.is(Token::Bare, "index") ||
        (third.is(Token::TypeName) && aliasIsIndex(aliases, third.text));
    if (first.is(Token::Bare, "array") && second.is(Token::Punct, "<") &&
        index) {
      auto [line, column] = sourceMgr.getLineAndColumn(
          llvm::SMLoc::getFromPointer(third.text.data()));
      Location loc = FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                         line, column);
      InFlightDiagnostic diag = emitError(loc)
                                << "expected integer or float type, got: '"
                                << third.text << "'";
      if (third.kind == Token::TypeName)
        diag << ", an alias of 'index'";
      diag << " (dense arrays hold integers or floats)";
      found = true;
    }
    first = second;
    second = third;
    third = lexer.next();
  }
  return failure(found);
}

OwningOpRef<ModuleOp> tk::parseProgram(const llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context,
                                       llvm::StringRef target) {
  if (failed(checkSourceParses(sourceMgr, context)))
    return nullptr;
  // Verified after the target is set: the verifiers check layouts, warp
  // sizes and budgets against the module's chip.
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(context, /*verifyAfterParse=*/false));
  if (!module)
    return nullptr;
  StringRef name = tile::TileDialect::getTargetAttrName();
  if (!target.empty() && lookupTarget(target) && !(*module)->hasAttr(name))
    (*module)->setAttr(name, StringAttr::get(context, target));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}
