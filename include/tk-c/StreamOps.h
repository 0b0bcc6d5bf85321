/*===- tk-c/StreamOps.h - CUDA stream operations in one call -----*- C -*-===*\
|*                                                                            *|
|* Queues a fixed list of CUDA stream operations (waits and writes of 32-bit *|
|* words, copies, zeroing, event records and waits, kernel launches) with    *|
|* one call, for a launcher that queues the same list again and again:       *|
|* through Python each driver call costs a few microseconds of host time,    *|
|* which a multi-GPU call timed alone waits for (tk_mlir's tensor-parallel   *|
|* ops queue about fifteen per call). Built as the shared library            *|
|* libTKStreamOps, which links nothing: it calls the driver through the      *|
|* entry points its caller gives (TkDriver), so it loads and is tested       *|
|* without CUDA. The caller makes the device's context current.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef TK_C_STREAMOPS_H
#define TK_C_STREAMOPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an operation does, and which TkStreamOp fields it reads. */
typedef enum TkStreamOpKind {
  /* Later work on `stream` waits until the word at `address` reaches the
     value, as a signed difference (cuStreamWaitValue32, GEQ). */
  TK_STREAM_WAIT_VALUE = 0,
  /* Writes the value to the word at `address` after the stream's earlier
     work and a memory fence (cuStreamWriteValue32). */
  TK_STREAM_WRITE_VALUE = 1,
  /* Copies `size` bytes from `source` to `address` (cuMemcpyDtoDAsync). */
  TK_STREAM_COPY = 2,
  /* Zeroes `size` bytes at `address`: a multiple of 4 at a 4-byte aligned
     address (cuMemsetD32Async). */
  TK_STREAM_ZERO = 3,
  /* Records the event `address` (a CUevent) on `stream` (cuEventRecord). */
  TK_STREAM_RECORD = 4,
  /* Later work on `stream` waits for the event `address`
     (cuStreamWaitEvent). */
  TK_STREAM_WAIT_EVENT = 5,
  /* Launches the function `address` (a CUfunction) on `grid` blocks of
     `threads` threads with `sharedBytes` of dynamic shared memory and the
     parameter array at `source` (void **) (cuLaunchKernel). */
  TK_STREAM_LAUNCH = 6
} TkStreamOpKind;

/* One operation. Handles and addresses are 64-bit integers, as the driver
   API's are. */
typedef struct TkStreamOp {
  uint32_t kind;     /* TkStreamOpKind */
  uint32_t value;    /* WAIT_VALUE, WRITE_VALUE: the value, plus ... */
  uint32_t relative; /* ... the call's `base` when not 0 (mod 2^32) */
  uint32_t grid;     /* LAUNCH */
  uint32_t threads;
  uint32_t sharedBytes;
  uint64_t stream; /* CUstream */
  uint64_t address;
  uint64_t source;
  uint64_t size;
} TkStreamOp;

/* The driver entry points the operations call, with the CUDA 12 driver
   API's signatures (what cuGetProcAddress gives for version 12000):
   cuStreamWaitValue32, cuStreamWriteValue32, cuMemcpyDtoDAsync,
   cuMemsetD32Async, cuEventRecord, cuStreamWaitEvent, cuLaunchKernel. */
typedef struct TkDriver {
  void *waitValue32;
  void *writeValue32;
  void *memcpyDtoDAsync;
  void *memsetD32Async;
  void *eventRecord;
  void *streamWaitEvent;
  void *launchKernel;
} TkDriver;

/* tkRunStreamOps's results other than a CUresult: an operation of no known
   kind, an operation whose driver entry point is null. */
#define TK_STREAM_UNKNOWN_KIND (-1)
#define TK_STREAM_NO_ENTRY (-2)

/* Queues `ops[0 .. count)` in order, `base` added to the values of the
   relative waits and writes. Returns 0, or the first failure (the
   driver's CUresult, TK_STREAM_UNKNOWN_KIND or TK_STREAM_NO_ENTRY) with its
   index in `*failed` when `failed` is not null: the operations before it
   are queued, none after it. */
int tkRunStreamOps(const TkDriver *driver, const TkStreamOp *ops, size_t count,
                   uint32_t base, size_t *failed);

#ifdef __cplusplus
}
#endif

#endif /* TK_C_STREAMOPS_H */
