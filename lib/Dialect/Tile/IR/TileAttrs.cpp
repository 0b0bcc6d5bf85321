//===- TileAttrs.cpp - Register layouts and shared swizzles ---------------===//
//
// Every register layout is defined by the FragmentMap it builds: an atom
// (the fragment of one MMA instruction), repeated over the tile in
// registers (columns first, then rows) and split across the owning warps.
//
//===----------------------------------------------------------------------===//
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/IR/TileTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace tk::tile;
using Index = FragmentMap::Index;

FailureOr<unsigned> tk::tile::parseUnsignedParameter(AsmParser &parser,
                                                     StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t value = 0;
  if (parser.parseInteger(value))
    return failure();
  // Read as 64 bits: parseInteger<unsigned> would take -1 as 4294967295.
  if (value < 0 || value > std::numeric_limits<uint32_t>::max()) {
    parser.emitError(loc)
        << what << " must be a non-negative integer that fits in 32 bits, got "
        << value;
    return failure();
  }
  return unsigned(value);
}

unsigned tk::tile::getScopeWarps(Scope scope) {
  switch (scope) {
  case Scope::warp:
    return 1;
  case Scope::warpgroup:
    return 4;
  case Scope::block:
    return 0;
  }
  llvm_unreachable("unknown scope");
}

namespace {
/// The fragment of one instruction: `rows` x `cols` elements held by the
/// registers and lanes of one warp. `regs` and `lanes` are its modes.
struct Atom {
  int64_t rows, cols;
  llvm::SmallVector<FragmentMode, 4> regs, lanes;
};

/// How the warps owning a tile split its rows.
enum class WarpSplit {
  bands,      // warp w holds rows [w R/W, (w+1) R/W): TK's row/col layouts
  interleaved // warp w holds atom-rows w, w+W, ...: the MMA accumulator
};
} // namespace

/// Repeats `atom` over a `shape` tile owned by `numWarps` warps.
static LogicalResult tileAtom(llvm::StringRef name, const Atom &atom,
                              WarpSplit split, ArrayRef<int64_t> shape,
                              unsigned numWarps, FragmentMap &map,
                              std::string &why) {
  if (shape.size() != 2) {
    why = "layout " + name.str() + " is for rank-2 tiles";
    return failure();
  }
  int64_t rows = shape[0], cols = shape[1];
  int64_t warps = numWarps ? numWarps : 1;
  if (cols % atom.cols != 0) {
    why = "columns (" + std::to_string(cols) + ") must be a multiple of " +
          std::to_string(atom.cols) + " for " + name.str();
    return failure();
  }
  if (rows % (atom.rows * warps) != 0) {
    why = "rows (" + std::to_string(rows) + ") must be a multiple of " +
          std::to_string(atom.rows * warps) + " for " + name.str() + " (" +
          std::to_string(atom.rows) + " per warp, " + std::to_string(warps) +
          " warp" + (warps == 1 ? "" : "s") + ")";
    return failure();
  }
  map = FragmentMap(rows, cols, /*isVector=*/false);
  for (const FragmentMode &mode : atom.regs)
    map.addMode(Index::reg, mode.size, mode.rowStride, mode.colStride);
  for (const FragmentMode &mode : atom.lanes)
    map.addMode(Index::lane, mode.size, mode.rowStride, mode.colStride);
  map.addMode(Index::reg, cols / atom.cols, 0, atom.cols);
  int64_t atomRowsPerWarp = rows / (atom.rows * warps);
  if (split == WarpSplit::bands) {
    map.addMode(Index::reg, atomRowsPerWarp, atom.rows, 0);
    map.addMode(Index::warp, warps, rows / warps, 0);
  } else {
    map.addMode(Index::reg, atomRowsPerWarp, atom.rows * warps, 0);
    map.addMode(Index::warp, warps, atom.rows, 0);
  }
  return success();
}

/// Repeats `atom` over a `shape` tile owned by an R x C grid of warps (warp
/// w at grid row w / C, column w % C). Rows are split over grid rows when
/// `splitRows`, else every grid row holds all of them (copies); likewise
/// columns over grid columns.
static LogicalResult tileAtomGrid(llvm::StringRef name, const Atom &atom,
                                  int64_t gridRows, int64_t gridCols,
                                  bool splitRows, bool splitCols,
                                  ArrayRef<int64_t> shape, unsigned numWarps,
                                  FragmentMap &map, std::string &why) {
  if (shape.size() != 2) {
    why = "layout " + name.str() + " is for rank-2 tiles";
    return failure();
  }
  if (numWarps && numWarps != gridRows * gridCols) {
    why = "layout " + name.str() + " needs " +
          std::to_string(gridRows * gridCols) + " waves, the value has " +
          std::to_string(numWarps);
    return failure();
  }
  int64_t rows = shape[0], cols = shape[1];
  int64_t rowParts = splitRows ? gridRows : 1;
  int64_t colParts = splitCols ? gridCols : 1;
  if (rows % (atom.rows * rowParts) != 0 ||
      cols % (atom.cols * colParts) != 0) {
    why = "a " + std::to_string(rows) + "x" + std::to_string(cols) +
          " tile does not split into " + std::to_string(rowParts) + "x" +
          std::to_string(colParts) + " wave parts of whole " +
          std::to_string(atom.rows) + "x" + std::to_string(atom.cols) +
          " atoms for " + name.str();
    return failure();
  }
  int64_t waveRowsHeld = rows / rowParts, waveColsHeld = cols / colParts;
  map = FragmentMap(rows, cols, /*isVector=*/false);
  for (const FragmentMode &mode : atom.regs)
    map.addMode(Index::reg, mode.size, mode.rowStride, mode.colStride);
  for (const FragmentMode &mode : atom.lanes)
    map.addMode(Index::lane, mode.size, mode.rowStride, mode.colStride);
  map.addMode(Index::reg, waveColsHeld / atom.cols, 0, atom.cols);
  map.addMode(Index::reg, waveRowsHeld / atom.rows, atom.rows, 0);
  map.addMode(Index::warp, gridCols, 0, splitCols ? waveColsHeld : 0);
  map.addMode(Index::warp, gridRows, splitRows ? waveRowsHeld : 0, 0);
  return success();
}

//===----------------------------------------------------------------------===//
// NVIDIA layouts
//===----------------------------------------------------------------------===//

// Lane l of an NVIDIA fragment sits at group l/4 (row), thread l%4 (column
// pair).
static const FragmentMode kLaneThread = {4, 0, 2}, kLaneGroup = {8, 1, 0};

unsigned RowLayoutAttr::getLanes() const { return 32; }
LogicalResult RowLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                              unsigned numWarps,
                                              FragmentMap &map,
                                              std::string &why) const {
  Atom atom{
      16, 16, {{2, 0, 1}, {2, 8, 0}, {2, 0, 8}}, {kLaneThread, kLaneGroup}};
  return tileAtom("#tile.row", atom, WarpSplit::bands, shape, numWarps, map,
                  why);
}

unsigned ColLayoutAttr::getLanes() const { return 32; }
LogicalResult ColLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                              unsigned numWarps,
                                              FragmentMap &map,
                                              std::string &why) const {
  Atom atom{16, 16, {{2, 1, 0}, {2, 0, 8}, {2, 8, 0}}, {{4, 2, 0}, {8, 0, 1}}};
  return tileAtom("#tile.col", atom, WarpSplit::bands, shape, numWarps, map,
                  why);
}

unsigned MmaAccLayoutAttr::getLanes() const { return 32; }
LogicalResult MmaAccLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                                 unsigned numWarps,
                                                 FragmentMap &map,
                                                 std::string &why) const {
  Atom atom{16, 8, {{2, 0, 1}, {2, 8, 0}}, {kLaneThread, kLaneGroup}};
  return tileAtom("#tile.mma_acc", atom, WarpSplit::interleaved, shape,
                  numWarps, map, why);
}

//===----------------------------------------------------------------------===//
// AMD MFMA layouts
//===----------------------------------------------------------------------===//

unsigned MfmaLayoutAttr::getLanes() const { return 64; }

LogicalResult MfmaLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                               unsigned numWarps,
                                               FragmentMap &map,
                                               std::string &why) const {
  int64_t m = getM(), n = getN(), k = getK();
  Atom atom;
  switch (getOperand()) {
  case MfmaOperand::acc:
    // Lane l holds column l % n; its registers run down 4 consecutive rows,
    // lane groups of n add 4 rows, further registers add 8 (32x32 only).
    atom = {m,
            n,
            {{4, 1, 0}, {m / (4 * (64 / n)), 4 * (64 / n), 0}},
            {{n, 0, 1}, {64 / n, 4, 0}}};
    break;
  case MfmaOperand::a: {
    int64_t perLane = m * k / 64;
    atom = {m, k, {{perLane, 0, 1}}, {{m, 1, 0}, {64 / m, 0, perLane}}};
    break;
  }
  case MfmaOperand::b: {
    int64_t perLane = n * k / 64;
    atom = {k, n, {{perLane, 1, 0}}, {{n, 0, 1}, {64 / n, perLane, 0}}};
    break;
  }
  }
  std::string name;
  llvm::raw_string_ostream(name) << Attribute(*this);
  if (getWaveRows())
    return tileAtomGrid(name, atom, getWaveRows(), getWaveCols(),
                        getOperand() != MfmaOperand::b,
                        getOperand() != MfmaOperand::a, shape, numWarps, map,
                        why);
  return tileAtom(name, atom, WarpSplit::bands, shape, numWarps, map, why);
}

LogicalResult
MfmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned m,
                       unsigned n, unsigned k, MfmaOperand, unsigned waveRows,
                       unsigned waveCols) {
  if ((waveRows == 0) != (waveCols == 0))
    return emitError() << "MFMA wave grid " << waveRows << "x" << waveCols
                       << " must have both sides positive";
  // In 64 bits: a 32-bit product of two large sides could wrap below 16.
  if (uint64_t(waveRows) * waveCols > 16)
    return emitError() << "MFMA wave grid " << waveRows << "x" << waveCols
                       << " has more than 16 waves (1024 threads)";
  bool known = (m == 32 && n == 32 && (k == 8 || k == 16)) ||
               (m == 16 && n == 16 && (k == 16 || k == 32));
  if (!known)
    return emitError() << "unsupported MFMA shape " << m << "x" << n << "x" << k
                       << "; expected 32x32x8, 32x32x16, 16x16x16 or 16x16x32";
  return success();
}

Attribute MfmaLayoutAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t, 3> dims;
  StringRef operand;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/false) ||
      parser.parseComma() || parser.parseKeyword(&operand))
    return {};
  SmallVector<int64_t, 2> grid = {0, 0};
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc gridLoc = parser.getCurrentLocation();
    grid.clear();
    if (parser.parseKeyword("waves") || parser.parseEqual() ||
        parser.parseDimensionList(grid, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return {};
    if (grid.size() != 2) {
      parser.emitError(gridLoc, "expected a wave grid RxC");
      return {};
    }
    // 0x0 is how the attribute stores "no grid": written out, it would
    // print back without one.
    if (grid[0] == 0 && grid[1] == 0) {
      parser.emitError(gridLoc, "MFMA wave grid 0x0 has no waves; leave out "
                                "'waves' to stack the waves in row bands");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  if (dims.size() != 3) {
    parser.emitError(loc, "expected an MxNxK instruction shape");
    return {};
  }
  // The attribute holds 32-bit sides; a larger number must not wrap into a
  // valid one (4294967328 would read as 32).
  for (int64_t value : llvm::concat<int64_t>(dims, grid)) {
    if (value > std::numeric_limits<uint32_t>::max()) {
      parser.emitError(loc, "MFMA shape or wave grid value ")
          << value << " does not fit in 32 bits";
      return {};
    }
  }
  std::optional<MfmaOperand> kind = symbolizeMfmaOperand(operand);
  if (!kind) {
    parser.emitError(loc, "expected MFMA operand 'a', 'b' or 'acc', got '")
        << operand << "'";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    dims[0], dims[1], dims[2], *kind, grid[0], grid[1]);
}

void MfmaLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<" << getM() << "x" << getN() << "x" << getK() << ", "
          << stringifyMfmaOperand(getOperand());
  if (getWaveRows())
    printer << ", waves = " << getWaveRows() << "x" << getWaveCols();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Copy staging
//===----------------------------------------------------------------------===//

unsigned ChunksLayoutAttr::getLanes() const { return getWarpSize(); }

LogicalResult ChunksLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                                 unsigned numWarps,
                                                 FragmentMap &map,
                                                 std::string &why) const {
  if (shape.size() != 2) {
    why = "#tile.chunks is for rank-2 tiles";
    return failure();
  }
  int64_t rows = shape[0], cols = shape[1], run = getRun();
  int64_t lanes = getWarpSize();
  if (cols % run) {
    why = "columns (" + std::to_string(cols) +
          ") must be a multiple of the run (" + std::to_string(run) + ")";
    return failure();
  }
  int64_t perRow = cols / run;
  int64_t warps = getWarps();
  if (numWarps && numWarps != warps) {
    why = "#tile.chunks is spread over " + std::to_string(warps) +
          " warps, the value over " + std::to_string(numWarps);
    return failure();
  }
  int64_t threads = lanes * warps;
  bool fits = perRow <= lanes ? lanes % perRow == 0 : perRow % lanes == 0;
  if ((rows * perRow) % threads || threads % perRow || !fits) {
    why = "a " + std::to_string(rows) + "x" + std::to_string(cols) +
          " tile in runs of " + std::to_string(run) +
          " does not spread evenly over " + std::to_string(threads) +
          " threads";
    return failure();
  }
  map = FragmentMap(rows, cols, /*isVector=*/false);
  map.addMode(FragmentMap::Index::reg, run, 0, 1);
  if (perRow <= lanes) {
    map.addMode(FragmentMap::Index::lane, perRow, 0, run);
    map.addMode(FragmentMap::Index::lane, lanes / perRow, 1, 0);
    map.addMode(FragmentMap::Index::warp, warps, lanes / perRow, 0);
  } else {
    int64_t warpsPerRow = perRow / lanes;
    map.addMode(FragmentMap::Index::lane, lanes, 0, run);
    map.addMode(FragmentMap::Index::warp, warpsPerRow, 0, lanes * run);
    map.addMode(FragmentMap::Index::warp, warps / warpsPerRow, 1, 0);
  }
  map.addMode(FragmentMap::Index::reg, rows * perRow / threads,
              threads / perRow, 0);
  return success();
}

LogicalResult
ChunksLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned lanes, unsigned warps, unsigned run) {
  if (lanes != 32 && lanes != 64)
    return emitError() << "#tile.chunks lanes must be 32 or 64, got " << lanes;
  if (warps == 0 || uint64_t(warps) * lanes > 1024)
    return emitError() << "#tile.chunks warps must be 1 to " << 1024 / lanes
                       << ", got " << warps;
  if (run == 0 || run > 16 || (run & (run - 1)))
    return emitError() << "#tile.chunks run must be 1, 2, 4, 8 or 16, got "
                       << run;
  return success();
}

//===----------------------------------------------------------------------===//
// Vector layouts
//===----------------------------------------------------------------------===//

unsigned VecLayoutAttr::getLanes() const { return getParent().getLanes(); }
bool VecLayoutAttr::isVectorLayout() const { return true; }

LogicalResult VecLayoutAttr::buildFragmentMap(ArrayRef<int64_t> shape,
                                              unsigned numWarps,
                                              FragmentMap &map,
                                              std::string &why) const {
  if (shape.size() != 1) {
    why = "#tile.vec layouts are for rank-1 vectors";
    return failure();
  }
  // Build the parent for a tile wide (or tall) enough for any atom, then keep
  // the axis the vector runs along.
  bool alongRows = getAxis() == Axis::row;
  int64_t other = 64 * (numWarps ? numWarps : 1);
  SmallVector<int64_t, 2> parentShape =
      alongRows ? SmallVector<int64_t, 2>{shape[0], 64}
                : SmallVector<int64_t, 2>{other, shape[0]};
  FragmentMap parentMap;
  if (failed(
          getParent().buildFragmentMap(parentShape, numWarps, parentMap, why)))
    return failure();
  map = parentMap.slice(alongRows);
  return success();
}

LogicalResult
VecLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, Axis,
                      LayoutAttrInterface parent) {
  if (parent.isVectorLayout())
    return emitError() << "#tile.vec parent must be a tile layout, got "
                       << Attribute(parent);
  return success();
}

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned bytes) {
  if (bytes != 0 && bytes != 32 && bytes != 64 && bytes != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << bytes;
  return success();
}

std::string SwizzleAttr::checkShape(int64_t rows, int64_t cols,
                                    int64_t elemBytes) const {
  unsigned bytes = getBytes();
  if (bytes == 0)
    return "";
  if ((cols * elemBytes) % bytes != 0)
    return "a row of " + std::to_string(cols * elemBytes) +
           " bytes is not a multiple of the " + std::to_string(bytes) +
           "-byte swizzle";
  if (rows % 8 != 0)
    return "rows (" + std::to_string(rows) +
           ") must be a multiple of 8 for a swizzled tile";
  return "";
}

int64_t SwizzleAttr::getByteOffset(int64_t row, int64_t col, int64_t rows,
                                   int64_t cols, int64_t elemBytes) const {
  int64_t bytes = getBytes();
  if (bytes == 0)
    return (row * cols + col) * elemBytes;
  int64_t width = bytes / elemBytes;
  int64_t offset =
      (col / width) * rows * bytes + row * bytes + (col % width) * elemBytes;
  int64_t line = (offset >> 7) & (bytes / 16 - 1);
  return offset ^ (line << 4);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#include "tk/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tk/Dialect/Tile/IR/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tk/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}
