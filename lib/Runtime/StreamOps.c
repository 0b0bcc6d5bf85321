/*===- StreamOps.c - CUDA stream operations in one call ------------------===*\
|*                                                                            *|
|* tkRunStreamOps (tk-c/StreamOps.h): a loop over the operations, each one   *|
|* driver call through the caller's entry points.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#include "tk-c/StreamOps.h"

/* The driver's signatures (CUDA 12 driver API) with its handle types as
   the integers and pointers they are. */
typedef int (*WaitValue32)(void *stream, uint64_t address, uint32_t value,
                           unsigned flags);
typedef int (*WriteValue32)(void *stream, uint64_t address, uint32_t value,
                            unsigned flags);
typedef int (*MemcpyDtoDAsync)(uint64_t destination, uint64_t source,
                               size_t size, void *stream);
typedef int (*MemsetD32Async)(uint64_t address, unsigned value, size_t words,
                              void *stream);
typedef int (*EventRecord)(void *event, void *stream);
typedef int (*StreamWaitEvent)(void *stream, void *event, unsigned flags);
typedef int (*LaunchKernel)(void *function, unsigned gridX, unsigned gridY,
                            unsigned gridZ, unsigned blockX, unsigned blockY,
                            unsigned blockZ, unsigned sharedBytes,
                            void *stream, void **params, void **extra);

/* CU_STREAM_WAIT_VALUE_GEQ, CU_STREAM_WRITE_VALUE_DEFAULT. */
enum { WAIT_GEQ = 0, WRITE_DEFAULT = 0 };

static void *asPointer(uint64_t handle) { return (void *)(uintptr_t)handle; }

static int runOne(const TkDriver *driver, const TkStreamOp *op,
                  uint32_t base) {
  void *stream = asPointer(op->stream);
  uint32_t value = op->relative ? op->value + base : op->value;
  switch (op->kind) {
  case TK_STREAM_WAIT_VALUE:
    if (!driver->waitValue32)
      return TK_STREAM_NO_ENTRY;
    return ((WaitValue32)driver->waitValue32)(stream, op->address, value,
                                              WAIT_GEQ);
  case TK_STREAM_WRITE_VALUE:
    if (!driver->writeValue32)
      return TK_STREAM_NO_ENTRY;
    return ((WriteValue32)driver->writeValue32)(stream, op->address, value,
                                                WRITE_DEFAULT);
  case TK_STREAM_COPY:
    if (!driver->memcpyDtoDAsync)
      return TK_STREAM_NO_ENTRY;
    return ((MemcpyDtoDAsync)driver->memcpyDtoDAsync)(op->address, op->source,
                                                      (size_t)op->size, stream);
  case TK_STREAM_ZERO:
    if (!driver->memsetD32Async)
      return TK_STREAM_NO_ENTRY;
    return ((MemsetD32Async)driver->memsetD32Async)(
        op->address, 0, (size_t)(op->size / 4), stream);
  case TK_STREAM_RECORD:
    if (!driver->eventRecord)
      return TK_STREAM_NO_ENTRY;
    return ((EventRecord)driver->eventRecord)(asPointer(op->address), stream);
  case TK_STREAM_WAIT_EVENT:
    if (!driver->streamWaitEvent)
      return TK_STREAM_NO_ENTRY;
    return ((StreamWaitEvent)driver->streamWaitEvent)(
        stream, asPointer(op->address), 0);
  case TK_STREAM_LAUNCH:
    if (!driver->launchKernel)
      return TK_STREAM_NO_ENTRY;
    return ((LaunchKernel)driver->launchKernel)(
        asPointer(op->address), op->grid, 1, 1, op->threads, 1, 1,
        op->sharedBytes, stream, (void **)asPointer(op->source), 0);
  default:
    return TK_STREAM_UNKNOWN_KIND;
  }
}

__attribute__((visibility("default"))) int
tkRunStreamOps(const TkDriver *driver, const TkStreamOp *ops, size_t count,
               uint32_t base, size_t *failed) {
  for (size_t i = 0; i < count; ++i) {
    int result = runOne(driver, &ops[i], base);
    if (result != 0) {
      if (failed)
        *failed = i;
      return result;
    }
  }
  return 0;
}
