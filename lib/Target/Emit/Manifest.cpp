//===- Manifest.cpp - What both emitters share ----------------------------===//
#include "Manifest.h"
#include "tk/Target/Emit.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

static llvm::json::Value toJson(Attribute attr) {
  if (auto s = dyn_cast<StringAttr>(attr))
    return s.getValue().str();
  if (auto flag = dyn_cast<BoolAttr>(attr))
    return flag.getValue();
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
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

FailureOr<tk::Emission> tk::findLowered(ModuleOp module, StringRef missing) {
  Emission emission;
  emission.gpuModule = module.lookupSymbol<gpu::GPUModuleOp>("tk_kernels");
  emission.abi = module->getAttrOfType<DictionaryAttr>("tile.abi");
  if (!emission.gpuModule || !emission.abi)
    return module.emitError(missing);
  if (!emission.abi.empty())
    emission.name = emission.abi.begin()->getName().getValue().str();
  return emission;
}

FailureOr<std::string> tk::emitAssembly(const Emission &emission,
                                        Attribute target, StringRef failure) {
  gpu::GPUModuleOp gpuModule = emission.gpuModule;
  gpuModule.setTargetsAttr(ArrayAttr::get(gpuModule.getContext(), {target}));
  gpu::TargetOptions options({}, {}, {}, {}, gpu::CompilationTarget::Assembly);
  std::optional<SmallVector<char, 0>> text =
      cast<gpu::TargetAttrInterface>(target).serializeToObject(gpuModule,
                                                               options);
  if (!text)
    return gpuModule.emitError(failure);
  return StringRef(text->data(), text->size()).rtrim('\0').str();
}

static LogicalResult writeFile(Operation *op, StringRef path,
                               StringRef contents) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return op->emitError("cannot write '") << path << "': " << ec.message();
  os << contents;
  return success();
}

LogicalResult tk::CompiledKernels::writeTo(Operation *op, StringRef dir) const {
  if (name.empty())
    return success();
  // The artifacts are several files (binary, assembly, manifest): `dir`
  // names the folder they go to; standard output cannot hold them.
  if (dir.empty() || dir == "-")
    return op->emitError("'out' must name a folder for the binary, "
                         "assembly and manifest, got '")
           << dir << "'";
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return op->emitError("cannot create '") << dir << "': " << ec.message();
  auto path = [&](StringRef ext) {
    SmallString<256> p(dir);
    llvm::sys::path::append(p, name + ext);
    return std::string(p);
  };
  if (failed(writeFile(op, path(assemblyExtension), assembly)))
    return failure();
  if (!binary.empty() && failed(writeFile(op, path(binaryExtension), binary)))
    return failure();
  return writeFile(op, path(".json"), manifest);
}

std::string tk::renderManifest(DictionaryAttr abi, llvm::json::Object fields,
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
  return text;
}
