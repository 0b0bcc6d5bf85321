//===- FragmentMap.h - Which thread holds which tile element ----*- C++ -*-===//
//
// One mechanism for every register layout: a FragmentMap says which
// (register, lane, warp) holds each element of a register tile or vector.
//
// Each hardware index (register, lane, warp) is split mixed-radix into
// modes; mode i of an index has a size and a (row, col) stride, and the
// element an index triple holds is the sum of digit * stride over all
// modes (first mode fastest). A stride of (0, 0) replicates: the lanes or
// warps of that mode hold copies. NVIDIA mma/wgmma fragments, TK's row and
// column layouts and AMD MFMA fragments are all of this form, so
// elementwise ops, reductions, broadcasts and layout conversions are
// lowered once against it.
//
//===----------------------------------------------------------------------===//
#ifndef TK_DIALECT_TILE_IR_FRAGMENTMAP_H
#define TK_DIALECT_TILE_IR_FRAGMENTMAP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <optional>

namespace tk::tile {

struct FragmentMode {
  int64_t size;
  int64_t rowStride;
  int64_t colStride;
};

/// Where one element lives.
struct FragmentSlot {
  int64_t reg;
  int64_t lane;
  int64_t warp;
};

class FragmentMap {
public:
  enum class Index { reg, lane, warp };

  FragmentMap() = default;
  /// A map for a `rows` x `cols` value (cols = 1 for vectors).
  FragmentMap(int64_t rows, int64_t cols, bool isVector)
      : rows(rows), cols(cols), vector(isVector) {}

  /// Appends a mode to an index (the new mode is slower than earlier ones).
  /// Modes of size 1 are dropped.
  void addMode(Index index, int64_t size, int64_t rowStride, int64_t colStride);

  llvm::ArrayRef<FragmentMode> modes(Index index) const;
  int64_t getRows() const { return rows; }
  int64_t getCols() const { return cols; }
  bool isVector() const { return vector; }
  int64_t numRegs() const { return count(Index::reg); }
  int64_t numLanes() const { return count(Index::lane); }
  int64_t numWarps() const { return count(Index::warp); }

  /// The (row, col) element held by register `reg` of lane `lane` in warp
  /// `warp`.
  std::pair<int64_t, int64_t> elementAt(FragmentSlot slot) const;

  /// The lowest (warp, lane, reg) holding element (row, col), or nullopt
  /// when no thread does.
  std::optional<FragmentSlot> locate(int64_t row, int64_t col) const;

  /// How many threads hold each element (1 unless some mode replicates).
  int64_t replication() const;

  /// Whether every element is held, by exactly `replication()` slots, and no
  /// slot points outside the value. Sets `why` when not.
  bool isComplete(std::string &why) const;

  /// The map of the vector with one element per row (`alongRows`) or column
  /// of this tile: modes that only move along the other axis are dropped
  /// from registers and become replication in lanes and warps.
  FragmentMap slice(bool alongRows) const;

  /// The modes of `index` with neighbours merged where the second continues
  /// the first (size a:(r,c) then b:(a r, a c) is one mode ab:(r,c)), so two
  /// maps that place every element alike compare equal.
  llvm::SmallVector<FragmentMode, 4> coalescedModes(Index index) const;

  /// Whether both maps put every element in the same (reg, lane, warp).
  bool samePlacement(const FragmentMap &other) const;

  /// Prints the modes, e.g. `regs [2:(0,1) 2:(8,0)] lanes [...] warps [...]`.
  void print(llvm::raw_ostream &os) const;

private:
  int64_t count(Index index) const;
  llvm::SmallVector<FragmentMode, 4> &modesOf(Index index);

  int64_t rows = 0, cols = 0;
  bool vector = false;
  llvm::SmallVector<FragmentMode, 4> regModes, laneModes, warpModes;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const FragmentMap &map) {
  map.print(os);
  return os;
}

} // namespace tk::tile

#endif // TK_DIALECT_TILE_IR_FRAGMENTMAP_H
