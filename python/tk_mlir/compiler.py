"""tk_mlir.compile: a tile program in, a compiled kernel out, in-process.

The compiler is tk-mlir's C API library (libTKCAPI, include/tk-c/Compiler.h)
loaded with ctypes; results are cached on disk under a key of the source,
the target, the options and the compiler's version, so a program compiles
once per machine. The library is looked up in $TK_MLIR_LIBRARY, next to this
package (an installed wheel), then in the checkout's build/lib.
"""
import ctypes
import glob
import hashlib
import json
import os
import shutil
import tempfile

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.normpath(os.path.join(_PACKAGE, "..", ".."))
TARGETS = ("sm_90a", "gfx942", "gfx950")
# Part of every cache key next to the compiler's version: raised when what
# the cache holds changes, so that entries written before are not read.
CACHE_FORMAT = "2"


class CompileError(RuntimeError):
    """The program did not compile; `diagnostics` holds the compiler's
    located messages."""

    def __init__(self, message, diagnostics=""):
        super().__init__(message + (":\n" + diagnostics.rstrip()
                                    if diagnostics else ""))
        self.diagnostics = diagnostics


class _StringRef(ctypes.Structure):
    # A pointer, not c_char_p: ctypes would turn c_char_p into bytes cut at
    # the first NUL, and binaries (cubin, HSACO) have many.
    _fields_ = [("data", ctypes.POINTER(ctypes.c_char)),
                ("length", ctypes.c_size_t)]


class _Compiled(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


# TkArtifact (tk-c/Compiler.h).
_NAME, _TARGET, _ASSEMBLY, _ASSEMBLY_EXT, _BINARY, _BINARY_EXT, _MANIFEST, \
    _DIAGNOSTICS = range(8)
_library = None


def library_path():
    """Where the C API library is: $TK_MLIR_LIBRARY, the package's copy,
    the checkout's build/lib."""
    if os.environ.get("TK_MLIR_LIBRARY"):
        return os.environ["TK_MLIR_LIBRARY"]
    for folder in (_PACKAGE, os.path.join(_CHECKOUT, "build", "lib")):
        # The checkout has libTKCAPI.so; a wheel only the versioned file.
        found = sorted(glob.glob(os.path.join(folder, "libTKCAPI.so*")))
        if found:
            return found[0]
    raise CompileError("tk-mlir's compiler library (libTKCAPI.so) was not "
                       "found: set TK_MLIR_LIBRARY, install the package "
                       "(pip install .) or build it (scripts/build.sh "
                       "TKCAPI)")


def _lib():
    global _library
    if _library is None:
        path = library_path()
        try:
            lib = ctypes.CDLL(path)
        except OSError as error:
            raise CompileError(f"cannot load {path}: {error}") from error
        lib.tkVersion.restype = _StringRef
        lib.tkCompileSource.restype = _Compiled
        lib.tkCompileSource.argtypes = [_StringRef] * 4
        lib.tkCompiledSucceeded.restype = ctypes.c_bool
        lib.tkCompiledSucceeded.argtypes = [_Compiled]
        lib.tkCompiledGet.restype = _StringRef
        lib.tkCompiledGet.argtypes = [_Compiled, ctypes.c_int]
        lib.tkCompiledDestroy.argtypes = [_Compiled]
        _library = lib
    return _library


def _ref(data):
    """A TkStringRef of `data` (bytes, which must outlive the call)."""
    return _StringRef(ctypes.cast(ctypes.c_char_p(data),
                                  ctypes.POINTER(ctypes.c_char)), len(data))


def _bytes(ref):
    return ctypes.string_at(ref.data, ref.length) if ref.length else b""


def compiler_version():
    """The version of the compiler library that compile() uses."""
    return _bytes(_lib().tkVersion()).decode()


def options_string(options="", **flags):
    """`options` (the pipeline flag's syntax, "stages=3 bind=12=true") plus
    `flags` as name=value (underscores become dashes; bools true/false;
    lists and tuples comma-joined), in a stable order."""
    parts = [options.strip()] if options and options.strip() else []
    for key in sorted(flags):
        value = flags[key]
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append(f"{key.replace('_', '-')}={value}")
    return " ".join(parts)


def cache_dir():
    """$TK_MLIR_CACHE, else ~/.cache/tk_mlir (or $XDG_CACHE_HOME's)."""
    if os.environ.get("TK_MLIR_CACHE"):
        return os.environ["TK_MLIR_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tk_mlir")


class Compiled:
    """A compiled program's files in the cache: `directory`, `name` (the
    first kernel's), `manifest_path`, `manifest` (dict), `assembly` (text),
    `binary` (bytes or None); `from_cache` is True when this call found the files already compiled
    (and compiled nothing), False when it compiled them."""

    def __init__(self, directory, from_cache):
        self.directory = directory
        self.from_cache = from_cache
        with open(os.path.join(directory, "compiled.json")) as f:
            info = json.load(f)
        self.name = info["name"]
        self.target = info["target"]
        self.manifest_path = os.path.join(directory, self.name + ".json")
        with open(self.manifest_path) as f:
            self.manifest = json.load(f)
        with open(os.path.join(directory, self.name + info["assembly"])) as f:
            self.assembly = f.read()
        binary = os.path.join(directory, self.name + info["binary"])
        self.binary = None
        if info["has_binary"]:
            with open(binary, "rb") as f:
                self.binary = f.read()

    def load(self, names=None):
        """The kernel, ready to launch (runtime.Kernel; needs the GPU)."""
        from .runtime import Kernel
        return Kernel(self.manifest_path, names=names)


def _source(program):
    """(text, name) of `program`: a path to a .mlir file, or the text."""
    if isinstance(program, os.PathLike) or (
            isinstance(program, str) and "\n" not in program
            and program.rstrip().endswith(".mlir")):
        path = os.fspath(program)
        with open(path) as f:
            return f.read(), path
    if not isinstance(program, str):
        raise TypeError(f"program must be a path or MLIR source text, got "
                        f"{type(program).__name__}")
    return program, "<program>"


def compile(program, target="sm_90a", options="", cache=True, **flags):
    """Compiles `program` (a path to a .mlir file, or the source text) for
    `target` ("sm_90a", "gfx942", "gfx950") with the target pipeline's
    options (`options` in the flag's syntax and/or keyword flags, e.g.
    stages=3, cubin=False, bind=["12=true"]). Returns Compiled, from the
    cache when the same source, target, options and compiler version were
    compiled before (cache=False compiles anyway). Raises CompileError with
    the compiler's located diagnostics."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    text, name = _source(program)
    opts = options_string(options, **flags)
    version = compiler_version()
    key = hashlib.sha256("\0".join(
        (CACHE_FORMAT, version, target, opts, text)).encode()).hexdigest()[:32]
    directory = os.path.join(cache_dir(), key)
    if cache and os.path.exists(os.path.join(directory, "compiled.json")):
        return Compiled(directory, from_cache=True)

    lib = _lib()
    arguments = [s.encode() for s in (text, name, target, opts)]
    result = lib.tkCompileSource(*(_ref(a) for a in arguments))
    try:
        diagnostics = _bytes(lib.tkCompiledGet(result, _DIAGNOSTICS)).decode(
            errors="replace")
        if not lib.tkCompiledSucceeded(result):
            raise CompileError(f"{name} did not compile for {target}",
                               diagnostics)
        get = {part: _bytes(lib.tkCompiledGet(result, part))
               for part in (_NAME, _TARGET, _ASSEMBLY, _ASSEMBLY_EXT,
                            _BINARY, _BINARY_EXT, _MANIFEST)}
    finally:
        lib.tkCompiledDestroy(result)
    kernel = get[_NAME].decode()
    if not kernel:
        raise CompileError(f"{name} has no tile.kernel")
    os.makedirs(cache_dir(), exist_ok=True)
    staging = tempfile.mkdtemp(dir=cache_dir(), prefix=".staging-")
    try:
        files = {get[_ASSEMBLY_EXT].decode(): get[_ASSEMBLY],
                 ".json": get[_MANIFEST]}
        if get[_BINARY]:
            files[get[_BINARY_EXT].decode()] = get[_BINARY]
        for ext, data in files.items():
            with open(os.path.join(staging, kernel + ext), "wb") as f:
                f.write(data)
        with open(os.path.join(staging, "compiled.json"), "w") as f:
            json.dump({"name": kernel, "target": get[_TARGET].decode(),
                       "assembly": get[_ASSEMBLY_EXT].decode(),
                       "binary": get[_BINARY_EXT].decode(),
                       "has_binary": bool(get[_BINARY]), "options": opts,
                       "source": name, "compiler": version,
                       "diagnostics": diagnostics}, f, indent=1)
        if os.path.exists(directory):   # compile-anyway, or a racing process
            shutil.rmtree(directory, ignore_errors=True)
        try:
            os.rename(staging, directory)
        except OSError:   # another process put the same result there
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Compiled(directory, from_cache=False)
