//===- TileTypes.cpp - Types of the tile dialect --------------------------===//
#include "tk/Dialect/Tile/IR/TileTypes.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tk::tile;

bool tk::tile::isTileElementType(Type type) {
  return type.isBF16() || type.isF16() || type.isF32() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

static int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

static LogicalResult
verifyElementType(function_ref<InFlightDiagnostic()> emitError, Type type) {
  if (!isTileElementType(type))
    return emitError() << "element type must be bf16, f16, f32, f8E4M3FN or "
                          "f8E5M2, got "
                       << type;
  return success();
}

static LogicalResult verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef what, ArrayRef<int64_t> shape,
                                 size_t minRank, size_t maxRank,
                                 bool allowDynamic, int64_t maxDim = 0) {
  if (shape.size() < minRank || shape.size() > maxRank) {
    auto diag = emitError() << what << " must have rank " << minRank;
    if (maxRank != minRank)
      diag << " to " << maxRank;
    return diag << ", got rank " << shape.size();
  }
  for (int64_t dim : shape)
    if (!(dim > 0 || (allowDynamic && ShapedType::isDynamic(dim))))
      return emitError() << what << " dimensions must be positive"
                         << (allowDynamic ? " or '?'" : "") << ", got " << dim;
  for (int64_t dim : shape)
    if (maxDim && dim > maxDim)
      return emitError() << what << " dimensions must be at most " << maxDim
                         << ", got " << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// Shared parsing and printing
//===----------------------------------------------------------------------===//

/// Parses `<` dims `x` element-type.
static ParseResult parseShapeAndType(AsmParser &parser,
                                     SmallVectorImpl<int64_t> &shape,
                                     Type &elementType, bool allowDynamic) {
  return failure(parser.parseLess() ||
                 parser.parseDimensionList(shape, allowDynamic,
                                           /*withTrailingX=*/true) ||
                 parser.parseType(elementType));
}

static void printShapeAndType(AsmPrinter &printer, ArrayRef<int64_t> shape,
                              Type elementType) {
  printer << "<";
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << "?";
    else
      printer << dim;
    printer << "x";
  }
  printer << elementType;
}

//===----------------------------------------------------------------------===//
// Register tiles and vectors
//===----------------------------------------------------------------------===//

/// `<` shape `x` type `,` scope (`,` layout)? `>`
template <typename T> static Type parseRegisterType(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  StringRef scopeName;
  Attribute layout;
  SMLoc loc = parser.getCurrentLocation();
  if (parseShapeAndType(parser, shape, elementType, /*allowDynamic=*/false) ||
      parser.parseComma())
    return {};
  SMLoc scopeLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&scopeName))
    return {};
  std::optional<Scope> scope = symbolizeScope(scopeName);
  if (!scope) {
    parser.emitError(scopeLoc, "expected scope 'warp', 'warpgroup' or "
                               "'block', got '")
        << scopeName << "'";
    return {};
  }
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return T::getChecked([&] { return parser.emitError(loc); },
                       parser.getContext(), shape, elementType, *scope, layout);
}

template <typename T>
static void printRegisterType(AsmPrinter &printer, T type) {
  printShapeAndType(printer, type.getShape(), type.getElementType());
  printer << ", " << stringifyScope(type.getScope());
  if (type.getLayout())
    printer << ", " << type.getLayout();
  printer << ">";
}

LogicalResult tk::tile::getFragmentMap(RegisterType type, unsigned numWarps,
                                       FragmentMap &map, std::string &why) {
  auto layout = dyn_cast_or_null<LayoutAttrInterface>(type.getLayout());
  if (!layout) {
    why = "the layout is open";
    return failure();
  }
  return layout.buildFragmentMap(type.getShape(), numWarps, map, why);
}

static LogicalResult
verifyRegisterType(function_ref<InFlightDiagnostic()> emitError, StringRef what,
                   bool isVector, ArrayRef<int64_t> shape, Type elementType,
                   Scope scope, Attribute layout) {
  if (failed(verifyShape(emitError, what, shape, isVector ? 1 : 2,
                         isVector ? 1 : 2, /*allowDynamic=*/false,
                         kMaxRegisterDim)) ||
      failed(verifyElementType(emitError, elementType)))
    return failure();
  if (!layout)
    return success();
  auto iface = dyn_cast<LayoutAttrInterface>(layout);
  if (!iface)
    return emitError() << what << " layout must be a tile layout attribute "
                       << "(#tile.row, #tile.col, #tile.mma_acc, #tile.mfma, "
                          "#tile.vec), got "
                       << layout;
  if (iface.isVectorLayout() != isVector)
    return emitError() << what << " cannot use "
                       << (isVector ? "tile" : "vector") << " layout "
                       << layout;
  FragmentMap map;
  std::string why;
  if (failed(iface.buildFragmentMap(shape, getScopeWarps(scope), map, why)))
    return emitError() << "layout " << layout << " does not fit this "
                       << stringifyScope(scope) << "-scope " << what << ": "
                       << why;
  return success();
}

#define TK_REGISTER_TYPE_IMPL(T, WHAT, IS_VECTOR)                              \
  Type T::parse(AsmParser &parser) { return parseRegisterType<T>(parser); }    \
  void T::print(AsmPrinter &printer) const {                                   \
    printRegisterType(printer, *this);                                         \
  }                                                                            \
  LogicalResult T::verify(function_ref<InFlightDiagnostic()> emitError,        \
                          ArrayRef<int64_t> shape, Type elementType,           \
                          Scope scope, Attribute layout) {                     \
    return verifyRegisterType(emitError, WHAT, IS_VECTOR, shape, elementType,  \
                              scope, layout);                                  \
  }                                                                            \
  RegisterType T::cloneWith(Type elementType, Attribute layout) const {        \
    return T::get(getShape(), elementType, getScope(), layout);                \
  }

TK_REGISTER_TYPE_IMPL(RegTileType, "register tile", false)
TK_REGISTER_TYPE_IMPL(RegVecType, "register vector", true)
#undef TK_REGISTER_TYPE_IMPL

RegisterType tk::tile::cloneWithChecked(RegisterType type, Type elementType,
                                        Attribute layout, std::string &why) {
  MLIRContext *ctx = type.getContext();
  if (isa<RegTileType>(type))
    return getCheckedType<RegTileType>(ctx, why, type.getShape(), elementType,
                                       type.getScope(), layout);
  return getCheckedType<RegVecType>(ctx, why, type.getShape(), elementType,
                                    type.getScope(), layout);
}

//===----------------------------------------------------------------------===//
// Shared tiles and vectors
//===----------------------------------------------------------------------===//

Type SharedTileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  SwizzleAttr swizzle;
  SMLoc loc = parser.getCurrentLocation();
  if (parseShapeAndType(parser, shape, elementType, /*allowDynamic=*/false))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseCustomAttributeWithFallback(swizzle))
    return {};
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType, swizzle);
}

void SharedTileType::print(AsmPrinter &printer) const {
  printShapeAndType(printer, getShape(), getElementType());
  if (getSwizzle())
    printer << ", " << Attribute(getSwizzle());
  printer << ">";
}

LogicalResult
SharedTileType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> shape, Type elementType,
                       SwizzleAttr swizzle) {
  if (failed(verifyShape(emitError, "shared tile", shape, 2, 3,
                         /*allowDynamic=*/false, kMaxSharedDim)) ||
      failed(verifyElementType(emitError, elementType)))
    return failure();
  if (!swizzle)
    return success();
  std::string why = swizzle.checkShape(shape[shape.size() - 2], shape.back(),
                                       elementBytes(elementType));
  if (!why.empty())
    return emitError() << "shared tile cannot use " << Attribute(swizzle)
                       << ": " << why;
  return success();
}

int64_t SharedTileType::getTileBytes() const {
  return getRows() * getCols() * elementBytes(getElementType());
}

int64_t tk::tile::getSharedTileBytes(Type type) {
  if (auto tile = dyn_cast<SharedTileType>(type))
    return tile.getTileBytes();
  return cast<SharedVecType>(type).getTileBytes();
}

Type SharedVecType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parseShapeAndType(parser, shape, elementType, /*allowDynamic=*/false) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType);
}

void SharedVecType::print(AsmPrinter &printer) const {
  printShapeAndType(printer, getShape(), getElementType());
  printer << ">";
}

LogicalResult
SharedVecType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> shape, Type elementType) {
  return failure(failed(verifyShape(emitError, "shared vector", shape, 1, 2,
                                    /*allowDynamic=*/false, kMaxSharedDim)) ||
                 failed(verifyElementType(emitError, elementType)));
}

int64_t SharedVecType::getTileBytes() const {
  return getLength() * elementBytes(getElementType());
}

//===----------------------------------------------------------------------===//
// Global views and semaphores
//===----------------------------------------------------------------------===//

Type GlobalType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  bool fragments = false;
  int64_t devices = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parseShapeAndType(parser, shape, elementType, /*allowDynamic=*/true))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("fragments"))) {
      fragments = true;
      continue;
    }
    if (parser.parseKeyword("devices", " or 'fragments'") ||
        parser.parseEqual() || parser.parseInteger(devices))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, elementType, fragments, devices);
}

void GlobalType::print(AsmPrinter &printer) const {
  printShapeAndType(printer, getShape(), getElementType());
  if (getFragments())
    printer << ", fragments";
  if (getDevices())
    printer << ", devices = " << getDevices();
  printer << ">";
}

LogicalResult GlobalType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 bool fragments, int64_t devices) {
  if (failed(verifyShape(emitError, "global view", shape, 1, 4,
                         /*allowDynamic=*/true)))
    return failure();
  // Peer access reaches the GPUs of one node: 8 at most.
  if (devices && (devices < 2 || devices > 8))
    return emitError() << "a multi-device view spans 2 to 8 devices, got "
                          "devices = "
                       << devices;
  if (devices && fragments)
    return emitError() << "a multi-device view cannot be in fragment order";
  // i32 views hold counters (tile.signal_add / tile.signal_wait).
  if (!isTileElementType(elementType) && !elementType.isSignlessInteger(32))
    return emitError() << "global view element type must be bf16, f16, f32, "
                          "f8E4M3FN, f8E5M2 or i32 (counters), got "
                       << elementType;
  if (!fragments)
    return success();
  if (!elementType.isF32())
    return emitError() << "a global view in fragment order needs f32 "
                          "elements, got "
                       << elementType;
  if (shape.size() < 2)
    return emitError() << "a global view in fragment order needs rows and "
                          "columns (rank 2 or more)";
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  if (!ShapedType::isDynamic(cols) && cols % 8)
    return emitError() << "a global view in fragment order needs columns in "
                          "groups of 8, got "
                       << cols;
  if (!ShapedType::isDynamic(rows) && rows % 64)
    return emitError() << "a global view in fragment order needs rows in "
                          "slabs of 64, got "
                       << rows;
  return success();
}

Type SemType::parse(AsmParser &parser) {
  unsigned count = 1;
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess())) {
    FailureOr<unsigned> parsed =
        parseUnsignedParameter(parser, "semaphore array size");
    if (failed(parsed) || parser.parseGreater())
      return {};
    count = *parsed;
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    count);
}

void SemType::print(AsmPrinter &printer) const {
  if (getCount() != 1)
    printer << "<" << getCount() << ">";
}

LogicalResult SemType::verify(function_ref<InFlightDiagnostic()> emitError,
                              unsigned count) {
  if (count == 0)
    return emitError() << "semaphore array must hold at least one semaphore";
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#include "tk/Dialect/Tile/IR/TileTypeInterfaces.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tk/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}
