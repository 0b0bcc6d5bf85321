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
// followed, because `array<!i: 1>` crashes the same way.
//
//===----------------------------------------------------------------------===//
#include "tk/Compiler.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace {

struct Token {
  enum Kind { Bare, TypeName, Other, Punct };
  Kind kind;
  llvm::StringRef text;
};

bool isBareStart(char c) { return llvm::isAlpha(c) || c == '_'; }
bool isBareBody(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}
bool isSuffixBody(char c) { return isBareBody(c) || c == '-'; }

/// The index just past the string literal starting at `pos` (a quote).
size_t skipString(llvm::StringRef text, size_t pos) {
  for (++pos; pos < text.size(); ++pos) {
    if (text[pos] == '\\')
      ++pos;
    else if (text[pos] == '"')
      return pos + 1;
  }
  return text.size();
}

std::vector<Token> tokenize(llvm::StringRef text) {
  std::vector<Token> tokens;
  size_t pos = 0;
  while (pos < text.size()) {
    char c = text[pos];
    size_t start = pos;
    if (llvm::isSpace(c)) {
      ++pos;
      continue;
    }
    if (text.substr(pos).starts_with("//")) {
      pos = text.find('\n', pos);
      if (pos == llvm::StringRef::npos)
        pos = text.size();
      continue;
    }
    Token::Kind kind = Token::Other;
    if (c == '"') {
      pos = skipString(text, pos);
    } else if (isBareStart(c)) {
      while (pos < text.size() && isBareBody(text[pos]))
        ++pos;
      kind = Token::Bare;
    } else if (llvm::StringRef("!#%@^").contains(c)) {
      ++pos;
      if (pos < text.size() && text[pos] == '"')
        pos = skipString(text, pos);
      else
        while (pos < text.size() && isSuffixBody(text[pos]))
          ++pos;
      if (c == '!')
        kind = Token::TypeName;
    } else if (llvm::isDigit(c)) {
      while (pos < text.size() && isBareBody(text[pos]))
        ++pos;
    } else {
      ++pos;
      kind = Token::Punct;
    }
    tokens.push_back({kind, text.slice(start, pos)});
  }
  return tokens;
}

bool is(const std::vector<Token> &tokens, size_t i, Token::Kind kind,
        llvm::StringRef text = {}) {
  return i < tokens.size() && tokens[i].kind == kind &&
         (text.empty() || tokens[i].text == text);
}

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

  std::vector<Token> tokens = tokenize(text);
  llvm::StringMap<llvm::StringRef> aliases;
  for (size_t i = 0; i + 2 < tokens.size(); ++i)
    if (is(tokens, i, Token::TypeName) &&
        is(tokens, i + 1, Token::Punct, "=") &&
        (is(tokens, i + 2, Token::Bare, "index") ||
         is(tokens, i + 2, Token::TypeName)))
      aliases[tokens[i].text] = tokens[i + 2].text;

  bool found = false;
  for (size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (!is(tokens, i, Token::Bare, "array") ||
        !is(tokens, i + 1, Token::Punct, "<"))
      continue;
    const Token &element = tokens[i + 2];
    bool index = (element.kind == Token::Bare && element.text == "index") ||
                 (element.kind == Token::TypeName &&
                  aliasIsIndex(aliases, element.text));
    if (!index)
      continue;
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(element.text.data()));
    Location loc = FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                       line, column);
    InFlightDiagnostic diag = emitError(loc)
                              << "expected integer or float type, got: '"
                              << element.text << "'";
    if (element.kind == Token::TypeName)
      diag << ", an alias of 'index'";
    diag << " (dense arrays hold integers or floats)";
    found = true;
  }
  return failure(found);
}

OwningOpRef<ModuleOp> tk::parseProgram(const llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context) {
  if (failed(checkSourceParses(sourceMgr, context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}
