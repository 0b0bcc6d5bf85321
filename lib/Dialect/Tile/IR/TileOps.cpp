//===- TileOps.cpp - Generated op definitions and format helpers ----------===//
#include "tk/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tk::tile;

/// `T` when both operands of a binary op have type T, `T, f32` when the right
/// one is a scalar.
static ParseResult parseBinaryTypes(OpAsmParser &parser, Type &lhs, Type &rhs) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhs);
  rhs = lhs;
  return success();
}

static void printBinaryTypes(OpAsmPrinter &p, Operation *, Type lhs, Type rhs) {
  p << lhs;
  if (rhs != lhs)
    p << ", " << rhs;
}

#define GET_OP_CLASSES
#include "tk/Dialect/Tile/IR/TileOps.cpp.inc"
