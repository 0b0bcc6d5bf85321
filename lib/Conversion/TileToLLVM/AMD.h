//===- AMD.h - Small builders shared by the AMD patterns --------*- C++ -*-===//
#ifndef TK_LIB_CONVERSION_TILETOLLVM_AMD_H
#define TK_LIB_CONVERSION_TILETOLLVM_AMD_H

#include "Common.h"

namespace tk::lower::amd {

inline mlir::Value index(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
  return constIndex(b, loc, v);
}
inline mlir::Value add(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value y) {
  return mlir::arith::AddIOp::create(b, loc, x, y);
}
inline mlir::Value mul(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value y) {
  return mlir::arith::MulIOp::create(b, loc, x, y);
}
inline mlir::Value ult(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value y) {
  return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult, x,
                                     y);
}

/// `record` with the elements of `vector` as fields `first` onwards.
mlir::Value unpackInto(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value record, mlir::Value vector, int64_t first);

/// How a shared tile read as the B operand of `AB` MFMAs is stored when the
/// pass stores it transposed (N x K): the transposed shape, with the
/// tile's swizzle where it fits that shape (else unswizzled).
tile::SharedTileType transposedStorage(tile::SharedTileType tile);

/// 16 bytes of a swizzled LDS tile that start at element (row, col) (a
/// 16-byte-aligned run): read or written as `type`, with the two 8-byte
/// halves swapped back where the AMD swizzle flipped them.
mlir::Value readChunk(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                      tile::SharedTileType tile, int64_t rows, mlir::Value row,
                      mlir::Value col, mlir::Type type);
void writeChunk(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
                tile::SharedTileType tile, int64_t rows, mlir::Value row,
                mlir::Value col, mlir::Value value);

void populateMemoryPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateComputePatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);

} // namespace tk::lower::amd

#endif // TK_LIB_CONVERSION_TILETOLLVM_AMD_H
