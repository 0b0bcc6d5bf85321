//===- Passes.h - Passes of the tile dialect --------------------*- C++ -*-===//
#ifndef TK_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TK_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "tk/Dialect/Tile/IR/TileOps.h"

namespace tk::tile {

#define GEN_PASS_DECL
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tk::tile

#endif // TK_DIALECT_TILE_TRANSFORMS_PASSES_H
