//===- FragmentMap.cpp - Which thread holds which tile element ------------===//
#include "tk/Dialect/Tile/IR/FragmentMap.h"

#include <string>
#include <vector>

using namespace tk::tile;

void FragmentMap::addMode(Index index, int64_t size, int64_t rowStride,
                          int64_t colStride) {
  if (size > 1)
    modesOf(index).push_back({size, rowStride, colStride});
}

llvm::SmallVector<FragmentMode, 4> &FragmentMap::modesOf(Index index) {
  switch (index) {
  case Index::reg:
    return regModes;
  case Index::lane:
    return laneModes;
  case Index::warp:
    return warpModes;
  }
  llvm_unreachable("unknown fragment index");
}

llvm::ArrayRef<FragmentMode> FragmentMap::modes(Index index) const {
  return const_cast<FragmentMap *>(this)->modesOf(index);
}

int64_t FragmentMap::count(Index index) const {
  int64_t n = 1;
  for (const FragmentMode &mode : modes(index))
    n *= mode.size;
  return n;
}

static void accumulate(llvm::ArrayRef<FragmentMode> modes, int64_t index,
                       int64_t &row, int64_t &col) {
  for (const FragmentMode &mode : modes) {
    int64_t digit = index % mode.size;
    index /= mode.size;
    row += digit * mode.rowStride;
    col += digit * mode.colStride;
  }
}

std::pair<int64_t, int64_t> FragmentMap::elementAt(FragmentSlot slot) const {
  int64_t row = 0, col = 0;
  accumulate(regModes, slot.reg, row, col);
  accumulate(laneModes, slot.lane, row, col);
  accumulate(warpModes, slot.warp, row, col);
  return {row, col};
}

/// Calls `fn(slot, row, col)` for every slot, warps slowest, registers fastest.
template <typename Fn> static void forEachSlot(const FragmentMap &map, Fn fn) {
  for (int64_t warp = 0; warp < map.numWarps(); ++warp)
    for (int64_t lane = 0; lane < map.numLanes(); ++lane)
      for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
        FragmentSlot slot{reg, lane, warp};
        auto [row, col] = map.elementAt(slot);
        if (!fn(slot, row, col))
          return;
      }
}

std::optional<FragmentSlot> FragmentMap::locate(int64_t row,
                                                int64_t col) const {
  std::optional<FragmentSlot> found;
  forEachSlot(*this, [&](FragmentSlot slot, int64_t r, int64_t c) {
    if (r == row && c == col)
      found = slot;
    return !found;
  });
  return found;
}

int64_t FragmentMap::replication() const {
  int64_t slots = numRegs() * numLanes() * numWarps();
  int64_t elements = rows * cols;
  return elements ? slots / elements : 0;
}

bool FragmentMap::isComplete(std::string &why) const {
  int64_t elements = rows * cols;
  int64_t slots = numRegs() * numLanes() * numWarps();
  if (elements == 0 || slots % elements != 0) {
    why = std::to_string(slots) + " slots cannot cover " +
          std::to_string(elements) + " elements evenly";
    return false;
  }
  std::vector<int64_t> seen(elements, 0);
  bool inside = true;
  forEachSlot(*this, [&](FragmentSlot slot, int64_t r, int64_t c) {
    if (r < 0 || r >= rows || c < 0 || c >= cols) {
      why = "register " + std::to_string(slot.reg) + " of lane " +
            std::to_string(slot.lane) + " in warp " +
            std::to_string(slot.warp) + " points outside the value";
      inside = false;
      return false;
    }
    ++seen[r * cols + c];
    return true;
  });
  if (!inside)
    return false;
  int64_t expected = slots / elements;
  for (int64_t i = 0; i < elements; ++i)
    if (seen[i] != expected) {
      why = "element (" + std::to_string(i / cols) + ", " +
            std::to_string(i % cols) + ") is held " + std::to_string(seen[i]) +
            " times, expected " + std::to_string(expected);
      return false;
    }
  return true;
}

FragmentMap FragmentMap::slice(bool alongRows) const {
  FragmentMap result(alongRows ? rows : cols, 1, /*isVector=*/true);
  auto stride = [&](const FragmentMode &mode) {
    return alongRows ? mode.rowStride : mode.colStride;
  };
  for (const FragmentMode &mode : regModes)
    if (stride(mode) != 0)
      result.addMode(Index::reg, mode.size, stride(mode), 0);
  for (const FragmentMode &mode : laneModes)
    result.addMode(Index::lane, mode.size, stride(mode), 0);
  for (const FragmentMode &mode : warpModes)
    result.addMode(Index::warp, mode.size, stride(mode), 0);
  return result;
}

llvm::SmallVector<FragmentMode, 4>
FragmentMap::coalescedModes(Index index) const {
  llvm::SmallVector<FragmentMode, 4> result;
  for (const FragmentMode &mode : modes(index)) {
    if (!result.empty()) {
      FragmentMode &last = result.back();
      if (mode.rowStride == last.rowStride * last.size &&
          mode.colStride == last.colStride * last.size) {
        last.size *= mode.size;
        continue;
      }
    }
    result.push_back(mode);
  }
  return result;
}

bool FragmentMap::samePlacement(const FragmentMap &other) const {
  if (rows != other.rows || cols != other.cols)
    return false;
  for (Index index : {Index::reg, Index::lane, Index::warp}) {
    auto a = coalescedModes(index), b = other.coalescedModes(index);
    if (a.size() != b.size())
      return false;
    for (auto [x, y] : llvm::zip(a, b))
      if (x.size != y.size || x.rowStride != y.rowStride ||
          x.colStride != y.colStride)
        return false;
  }
  return true;
}

static void printModes(llvm::raw_ostream &os, llvm::StringRef name,
                       llvm::ArrayRef<FragmentMode> modes, bool vector) {
  os << name << " [";
  llvm::interleave(
      modes, os,
      [&](const FragmentMode &mode) {
        os << mode.size << ":(" << mode.rowStride;
        if (!vector)
          os << "," << mode.colStride;
        os << ")";
      },
      " ");
  os << "]";
}

void FragmentMap::print(llvm::raw_ostream &os) const {
  printModes(os, "regs", regModes, vector);
  os << " ";
  printModes(os, "lanes", laneModes, vector);
  os << " ";
  printModes(os, "warps", warpModes, vector);
}
