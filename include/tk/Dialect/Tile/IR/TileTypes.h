//===- TileTypes.h - Types of the tile dialect ------------------*- C++ -*-===//
#ifndef TK_DIALECT_TILE_IR_TILETYPES_H
#define TK_DIALECT_TILE_IR_TILETYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Types.h"
#include "tk/Dialect/Tile/IR/TileAttrs.h"

#include "tk/Dialect/Tile/IR/TileTypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/Tile/IR/TileTypes.h.inc"

namespace tk::tile {
/// Register values beyond this size cannot fit any register file; shared
/// buffers beyond it cannot fit any shared memory. The caps also keep size
/// arithmetic far from overflow.
constexpr int64_t kMaxRegisterDim = 1024;
constexpr int64_t kMaxSharedDim = 16384;

/// Whether `type` may be the element type of a tile, vector or view:
/// bf16, f16, f32, f8E4M3FN, f8E5M2.
bool isTileElementType(mlir::Type type);

/// Bytes of one tile (one slot of a ring) of a shared tile or vector type.
int64_t getSharedTileBytes(mlir::Type type);

/// Builds the fragment map of a register type owned by `numWarps` warps (0:
/// not known). Fails with `why` when the type has no layout or its shape
/// does not fit the layout.
llvm::LogicalResult getFragmentMap(RegisterType type, unsigned numWarps,
                                   FragmentMap &map, std::string &why);

/// `T::getChecked(args...)` without emitting anything: the type, or null
/// with the verifier's message in `why`. For passes that build a type from
/// parameters they have not checked: `T::get` would assert (and without
/// assertions build an invalid type); this lets them report a located
/// diagnostic or leave the IR alone instead.
template <typename T, typename... Args>
T getCheckedType(mlir::MLIRContext *ctx, std::string &why, Args &&...args) {
  mlir::ScopedDiagnosticHandler capture(ctx, [&](mlir::Diagnostic &diag) {
    why = diag.str();
    return mlir::success();
  });
  return T::getChecked(
      [&] { return mlir::emitError(mlir::UnknownLoc::get(ctx)); },
      std::forward<Args>(args)...);
}

/// `type` with another element type and layout, or null with the reason
/// in `why` when that type is invalid (e.g. the layout does not fit).
RegisterType cloneWithChecked(RegisterType type, mlir::Type elementType,
                              mlir::Attribute layout, std::string &why);
} // namespace tk::tile

#endif // TK_DIALECT_TILE_IR_TILETYPES_H
