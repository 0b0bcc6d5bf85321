//===- Manifest.cpp - Files and the JSON manifest both emitters write -----===//
#include "Manifest.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::json::Value toJson(Attribute attr) {
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getInt();
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<DenseI32ArrayAttr>(attr))
    return llvm::json::Array(a.asArrayRef());
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute e : a)
      array.push_back(toJson(e));
    return array;
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute e : d)
      object[e.getName().getValue()] = toJson(e.getValue());
    return object;
  }
  return nullptr;
}

LogicalResult tk::writeFile(Operation *op, StringRef path, StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return op->emitError("cannot write '") << path << "': " << ec.message();
  os << contents;
  return success();
}

LogicalResult tk::writeManifest(Operation *op, StringRef path,
                                DictionaryAttr abi, llvm::json::Object fields,
                                llvm::StringMap<llvm::json::Object> extras) {
  fields["format"] = "tk-mlir-manifest-1";
  llvm::json::Object kernels;
  for (NamedAttribute kernel : abi) {
    llvm::json::Value desc = toJson(kernel.getValue());
    auto it = extras.find(kernel.getName().getValue());
    if (it != extras.end())
      for (auto &entry : it->second)
        (*desc.getAsObject())[entry.first] = std::move(entry.second);
    kernels[kernel.getName().getValue()] = std::move(desc);
  }
  fields["kernels"] = std::move(kernels);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(fields))) << "\n";
  return writeFile(op, path, text);
}
