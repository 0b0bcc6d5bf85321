//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
#ifndef TK_DIALECT_TILE_IR_TILEDIALECT_H
#define TK_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tk/Dialect/Tile/IR/TileDialect.h.inc"

#endif // TK_DIALECT_TILE_IR_TILEDIALECT_H
