#!/usr/bin/env python3
"""Checks tk_mlir's tensor-parallel kernels on every GPU of the node, one
process per GPU (on a machine with one GPU, a group of one process: the
cases that need another process to disagree with are left out):

- gemm_reduce_scatter against a float32 reference (each rank's a @ b in
  float32, summed over the ranks by NCCL, this rank's rows) and against
  NCCL's bf16 reduce-scatter of the bf16 products, random inputs, several
  shapes including ragged ones (rows per device not a multiple of the
  128-row tile, columns not a multiple of 256, a contraction not a
  multiple of 64), the same shapes again (the counters are used again),
  and five calls queued back to back at two shapes;
- all_gather_gemm against a float32 reference (NCCL's all-gather of the
  shards, then a float32 product), the same kinds of shapes (shards of
  rows not a multiple of 128, so TMA's bounds cut each shard's last tile),
  twice each (the handshake flags and counters are used again), with the
  copy engines moving the shards and with the kernel's own communicating
  blocks (communicate="blocks": grid-level roles, peer TMA loads); with
  fewer columns per device than all_gather_gemm's KERNEL_FIRST_COLUMNS
  and with more (the pushes queued before the kernel, and the kernel
  before the pushes): an `a` not 16-byte aligned (its rows go through the
  gathered buffer), five calls queued back to back, and six calls on one
  shard shape taking the two orders in turn; a call that fails on one
  device after its pushes may have been queued (the others complete, the
  next call is correct everywhere);
- both ops called on two streams in turn, nothing between the calls (the
  all-gather taking the two orders in turn, and in its communicating-blocks
  form); the all-gather's pushes on streams of their own, none of
  PyTorch's pooled ones;
- what may differ between the processes (gemm_reduce_scatter's share of
  the contraction, all_gather_gemm's columns of B), and, on a shape's
  first call, shapes that must agree but do not, or arguments one process
  refuses: ArgumentError on every process, then a correct call;
- a reduce-scatter launch refused on one device (an injected failure),
  retried there: every result right, and the next call's;
- both ops captured in a CUDA graph and replayed with new inputs, calls
  outside the graph between the replays; the communicating-blocks form
  refusing a capture;
- the ops as torch custom ops: torch.compile(fullgraph=True) of a
  tensor-parallel MLP calling both matches eager, opcheck on each, a call
  that wants a gradient raises on backward (forward only), one with a
  forward-mode AD tangent raises, and torch.vmap over each runs it per
  batch element;
- bad arguments raise ArgumentError naming the argument, also for a
  tensor an earlier call checked, transposed in place since.

usage: torchrun --nproc-per-node N tensor_parallel.py [--out DIR]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tk_mlir.multi_device  # noqa: E402,F401  (multicast off first)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from report import (  # noqa: E402
    compiles_once, finish, gathered, relative_error, scattered)
from tk_mlir import tracing  # noqa: E402
from tk_mlir.ops import tensor_parallel  # noqa: E402
from tk_mlir.ops.tensor_parallel import (  # noqa: E402
    KERNEL_FIRST_COLUMNS, all_gather_gemm, gemm_reduce_scatter)
from tk_mlir.runtime import ArgumentError  # noqa: E402

TOLERANCE = 2e-2  # bf16 output, partial sums added in bf16


def fit(n, world):
    """`n` less its remainder by 8 * world: a size that splits evenly over
    the devices into rows of 16-byte multiples (`n` itself at 2 and 4
    devices for the sizes below)."""
    return n - n % (8 * world)


def square(n, world):
    return (fit(n, world),) * 3


def shapes(world):
    """GEMM + reduce-scatter's (M, K, N): M rows in all, K the whole
    contraction (each rank holds K / world of it)."""
    return [square(4096, world), (world * 200, world * 136, 1000),
            (world * 1000, world * 520, 2304), (world * 64, world * 64, 256),
            square(8192, world)]


def gather_shapes(world):
    """All-gather + GEMM's (M, K, N): each rank holds M / world rows of A
    and N / world columns of B (rows of 16-byte multiples for TMA)."""
    return [square(4096, world), (world * 200, 136, world * 1000),
            (world * 1000, 520, world * 288), (world * 64, 64, world * 256),
            (world * 200, 520, world * MANY), square(8192, world)]


# all_gather_gemm's columns per device below and above KERNEL_FIRST_COLUMNS
# (ragged: not multiples of 256): the pushes first, the kernel first.
FEW, MANY = 288, KERNEL_FIRST_COLUMNS + 8


def mlp(x, w1, w2):
    """A tensor-parallel MLP: the column-parallel layer, relu, the
    row-parallel one (this rank's rows of x in, of the result out)."""
    h = all_gather_gemm(x, w1)
    return gemm_reduce_scatter(torch.relu(h), w2)


def torch_ops(row, world):
    """The ops as torch custom ops: torch.compile(fullgraph=True) of a
    function calling both (no graph break) matches its eager calls, and
    traces it once; compiled with mode="reduce-overhead" (a CUDA graph) it
    matches them over four replays with new inputs;
    torch.library.opcheck on each op; with a gradient wanted, a call goes
    through the op (its result the direct call's, up to the order of the
    bf16 sums) and its backward raises."""
    x = torch.randn(200, 136, device="cuda").bfloat16()
    w1 = torch.randn(136, 264, device="cuda").bfloat16()
    w2 = torch.randn(264, 512, device="cuda").bfloat16()
    eager = mlp(x, w1, w2)
    try:
        got = torch.compile(mlp, fullgraph=True)(x, w1, w2)
        # (Within the ops' tolerance: the reduce-scatter's bf16 sums may
        # differ in rounding from call to call.)
        ok, detail = (got.shape == eager.shape and
                      relative_error(got, eager) <= TOLERANCE,
                      f"relative difference {relative_error(got, eager):.2e}")
    except Exception as error:
        ok, detail = False, f"{type(error).__name__}: {error}"
    row(f"torch.compile(fullgraph=True) of both ops matches eager "
        f"world={world}", ok, detail)
    # Traced before any direct call has filled the lookups the ops' routing
    # reads, called again: one compiled frame, no recompilation.
    tracing._cached = None
    row(f"torch.compile traces the ops once world={world}",
        *compiles_once(mlp, x, w1, w2))
    # mode="reduce-overhead": the compiled function's CUDA graph (its
    # warm-up calls make the shapes' state outside the capture), replayed
    # with new inputs in place.
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    try:
        graphed = torch.compile(mlp, mode="reduce-overhead", fullgraph=True)
        worst = 0.0
        for _ in range(4):
            x.copy_(torch.randn_like(x))
            got = graphed(x, w1, w2).clone()
            worst = max(worst, relative_error(got, mlp(x, w1, w2)))
        # (Inductor counts the graphs it declined to capture.)
        skipped = counters["inductor"]["cudagraph_skips"]
        ok = worst <= TOLERANCE and skipped == 0
        detail = (f"relative difference {worst:.2e}, graphs not captured: "
                  f"{skipped}")
    except Exception as error:
        ok, detail = False, f"{type(error).__name__}: {error}"
    row(f"torch.compile(mode='reduce-overhead') replays the ops "
        f"world={world}", ok, detail)
    name = dist.group.WORLD.group_name
    a = torch.randn(world * 96, 128, device="cuda").bfloat16()
    # (opcheck's AOT test compares two calls' outputs exactly; the
    # reduce-scatter's bf16 sums may differ in rounding from call to call,
    # so its traced form is checked by the torch.compile case above.)
    every = ("test_schema", "test_autograd_registration", "test_faketensor",
             "test_aot_dispatch_dynamic")
    for case, op, op_args, tests in (
            ("gemm_reduce_scatter", torch.ops.tk_mlir.gemm_reduce_scatter,
             (a, w2[:128], name), every[:3]),
            ("all_gather_gemm", torch.ops.tk_mlir.all_gather_gemm,
             (x, w1, name, "copy_engines"), every)):
        try:
            result = torch.library.opcheck(op.default, op_args,
                                           test_utils=tests)
            ok = all(v == "SUCCESS" for v in result.values())
            detail = result
        except Exception as error:   # opcheck raises on the first failure
            ok, detail = False, f"{type(error).__name__}: {error}"
        row(f"opcheck {case} world={world}", ok, detail)
    # Forward-mode AD: a tangent raises on every process alike, before
    # anything is queued.
    import torch.autograd.forward_ad as fwad
    for case, call in (
            ("gemm_reduce_scatter", lambda t: gemm_reduce_scatter(t, w2[:128])),
            ("all_gather_gemm", lambda t: all_gather_gemm(t, w1[:128]))):
        with fwad.dual_level():
            try:
                call(fwad.make_dual(a, torch.randn_like(a)))
                ok, detail = False, "no error"
            except NotImplementedError as error:
                ok = "no forward-mode AD formula" in str(error)
                detail = str(error)
        row(f"{case} with a forward-mode tangent raises world={world}", ok,
            detail)
    # torch.vmap: functorch's tensors take the op, which runs once per
    # batch element (a collective each, on every process alike).
    stacked = torch.stack([a, torch.randn_like(a)])
    for case, call, reference in (
            ("gemm_reduce_scatter",
             lambda t: gemm_reduce_scatter(t, w2[:128]),
             lambda t: scattered(t, w2[:128])),
            ("all_gather_gemm", lambda t: all_gather_gemm(t, w1[:128]),
             lambda t: gathered(t, w1[:128]))):
        try:
            got = torch.vmap(call)(stacked)
            worst = max(relative_error(got[i], reference(stacked[i]))
                        for i in range(2))
            ok, detail = (worst <= TOLERANCE,
                          f"largest relative error {worst:.2e}")
        except Exception as error:
            ok, detail = False, f"{type(error).__name__}: {error}"
        row(f"torch.vmap of {case} over two inputs world={world}", ok,
            detail)
    for case, call, direct in (
            ("gemm_reduce_scatter",
             lambda w: gemm_reduce_scatter(a, w[:128]), w2),
            ("all_gather_gemm", lambda w: all_gather_gemm(x, w), w1)):
        want = call(direct)
        out = call(direct.clone().requires_grad_())
        try:
            out.float().sum().backward()
            raised = False
        except NotImplementedError as error:
            raised = "forward only" in str(error)
        # (The reduce-scatter's bf16 sums may differ in order, and so in
        # rounding, from call to call.)
        error = relative_error(out.detach(), want)
        row(f"{case} with a gradient wanted: the op's result, and its "
            f"backward raises", raised and error <= TOLERANCE,
            f"raised: {raised}, relative difference {error:.2e}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(rank)
    torch.manual_seed(1 + rank)
    rows = []

    def row(case, ok, detail=""):
        flag = torch.tensor(int(bool(ok)), device="cuda")
        dist.all_reduce(flag, op=dist.ReduceOp.MIN)   # every rank passed
        ok = bool(flag.item())
        rows.append({"case": case, "ok": ok, "detail": str(detail)})
        if rank == 0:
            print(f"{case}: {'ok' if ok else 'FAILED'} {detail}", flush=True)

    for again in (False, True):
        for M, K, N in shapes(world):
            a = torch.randn(M, K // world, device="cuda").bfloat16()
            b = torch.randn(K // world, N, device="cuda").bfloat16()
            got = gemm_reduce_scatter(a, b)
            want = scattered(a, b)
            nccl = torch.empty(M // world, N, device="cuda",
                               dtype=torch.bfloat16)
            dist.reduce_scatter_tensor(nccl, (a @ b).contiguous())
            error = relative_error(got, want)
            error_nccl = relative_error(nccl, want)
            error = torch.tensor(error, device="cuda")
            dist.all_reduce(error, op=dist.ReduceOp.MAX)
            row(f"gemm_reduce_scatter M={M} K={K} N={N} world={world}"
                f"{' (again)' if again else ''}",
                got.shape == (M // world, N) and error.item() <= TOLERANCE,
                f"relative error {error.item():.2e} (NCCL's bf16 "
                f"reduce-scatter {error_nccl:.2e})")

    # Calls queued back to back, nothing between them: a device may start
    # the next call while a peer is still in this one (the end barrier and
    # the counters' running totals keep them apart).
    for M, K, N in (square(4096, world), (world * 1000, world * 520, 2304)):
        b = torch.randn(K // world, N, device="cuda").bfloat16()
        inputs = [torch.randn(M, K // world, device="cuda").bfloat16()
                  for _ in range(5)]
        outputs = [gemm_reduce_scatter(a, b) for a in inputs]
        worst = 0.0
        for a, got in zip(inputs, outputs):
            worst = max(worst, relative_error(got, scattered(a, b)))
        worst = torch.tensor(worst, device="cuda")
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        row(f"gemm_reduce_scatter M={M} K={K} N={N} world={world}, five "
            f"calls back to back", worst.item() <= TOLERANCE,
            f"largest relative error {worst.item():.2e}")

    # The same for all_gather_gemm (each `a` at its own address), in each
    # order and with the orders taken in turn on one shard shape, and both
    # ops called on two streams in turn with nothing between the calls: a
    # call on another stream than the last one waits for what the last one
    # left to do with the shared buffers.
    def gathered_in_turn(inputs, bs, streams=(None,),
                         communicate="copy_engines"):
        """The largest error of all_gather_gemm's calls on `inputs` and
        `bs`, queued back to back on `streams` in turn (None: the current
        one)."""
        torch.cuda.synchronize()
        outputs = []
        for i, (a, b) in enumerate(zip(inputs, bs)):
            with torch.cuda.stream(streams[i % len(streams)]):
                outputs.append(all_gather_gemm(a, b, communicate=communicate))
        torch.cuda.synchronize()
        worst = 0.0
        for a, b, got in zip(inputs, bs, outputs):
            worst = max(worst, relative_error(got, gathered(a, b)))
        worst = torch.tensor(worst, device="cuda")
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        return worst.item()

    M, K = world * 1000, 520
    b_of = {n: torch.randn(K, n, device="cuda").bfloat16()
            for n in (FEW, MANY)}
    inputs = [torch.randn(M // world, K, device="cuda").bfloat16()
              for _ in range(6)]
    for n in (MANY, FEW):
        worst = gathered_in_turn(inputs[:5], [b_of[n]] * 5)
        row(f"all_gather_gemm M={M} K={K} N={world * n} world={world}, "
            f"five calls back to back", worst <= TOLERANCE,
            f"largest relative error {worst:.2e}")
    worst = gathered_in_turn(inputs, [b_of[FEW], b_of[MANY]] * 3)
    row(f"all_gather_gemm M={M} K={K} N={world * FEW} and {world * MANY} "
        f"in turn world={world}, six calls back to back",
        worst <= TOLERANCE, f"largest relative error {worst:.2e}")
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    N, K_rs = world * FEW, world * 136
    a_rs = [torch.randn(M, K_rs // world, device="cuda").bfloat16()
            for _ in range(4)]
    b_rs = torch.randn(K_rs // world, N, device="cuda").bfloat16()
    b_ag = [b_of[FEW], b_of[MANY]] * 2
    torch.cuda.synchronize()
    got_ag, got_rs = [], []
    for i in range(4):
        with torch.cuda.stream(streams[i % 2]):
            got_ag.append(all_gather_gemm(inputs[i], b_ag[i]))
            got_rs.append(gemm_reduce_scatter(a_rs[i], b_rs))
    torch.cuda.synchronize()
    worst = 0.0
    for i in range(4):
        worst = max(worst,
                    relative_error(got_ag[i], gathered(inputs[i], b_ag[i])),
                    relative_error(got_rs[i], scattered(a_rs[i], b_rs)))
    worst = torch.tensor(worst, device="cuda")
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    row(f"both ops M={M} K={K} N={N} world={world} (the all-gather's N "
        f"{world * FEW} and {world * MANY} in turn), four calls each on two "
        f"streams in turn", worst.item() <= TOLERANCE,
        f"largest relative error {worst.item():.2e}")
    # The pushes' streams are none of PyTorch's pooled streams (which it
    # hands out in turn, so one may be a caller's or a graph's capture
    # stream): each of the 32 per device, taken twice over, differs.
    pooled = {torch.cuda.Stream().cuda_stream for _ in range(64)}
    pushes = {g.stream.cuda_stream
              for g in tensor_parallel._gathers.values()}
    row(f"all_gather_gemm world={world}: the pushes' {len(pushes)} streams "
        f"are not among PyTorch's {len(pooled)} pooled ones",
        pushes and not pushes & pooled)
    # The same for the communicating-blocks form: a call on the other
    # stream overwrites this device's rows of the gathered A only after
    # the last call's kernel (and the peers' pulls) are done with them.
    worst = gathered_in_turn(inputs[:4], [b_of[FEW]] * 4, streams, "blocks")
    row(f"all_gather_gemm M={M} K={K} N={world * FEW} world={world} "
        f"communicate=blocks, four calls on two streams in turn",
        worst <= TOLERANCE, f"largest relative error {worst:.2e}")

    for communicate in ("copy_engines", "blocks"):
        for again in (False, True):
            for M, K, N in gather_shapes(world):
                a = torch.randn(M // world, K, device="cuda").bfloat16()
                b = torch.randn(K, N // world, device="cuda").bfloat16()
                got = all_gather_gemm(a, b, communicate=communicate)
                error = torch.tensor(relative_error(got, gathered(a, b)),
                                     device="cuda")
                dist.all_reduce(error, op=dist.ReduceOp.MAX)
                by = "" if communicate == "copy_engines" else \
                    f" communicate={communicate}"
                row(f"all_gather_gemm M={M} K={K} N={N} world={world}{by}"
                    f"{' (again)' if again else ''}",
                    got.shape == (M, N // world) and
                    error.item() <= TOLERANCE,
                    f"relative error {error.item():.2e}")

    # A call that fails on one device after its pushes may have been
    # queued (its launch cannot be prepared there): that device raises,
    # the peers' calls complete correctly, and the next call is correct on
    # every device, in each order.
    M, K = world * 1000, 520
    failing, prepared_by = world - 1, tensor_parallel.load_compiled

    def refuse(*args):
        raise RuntimeError("no kernel here (the check's injected failure)")
    for n in (FEW, MANY):
        b = torch.randn(K, n, device="cuda").bfloat16()  # a new launch
        ok = True
        for i, refused in ((0, rank == failing), (1, False)):
            if refused:
                tensor_parallel.load_compiled = refuse
            try:
                got, error = all_gather_gemm(inputs[i], b), None
            except RuntimeError as e:
                got, error = None, e
            finally:
                tensor_parallel.load_compiled = prepared_by
            want = gathered(inputs[i], b)
            if refused:
                ok = ok and error is not None and "injected" in str(error)
            else:
                ok = ok and error is None and relative_error(
                    got, want) <= TOLERANCE
        row(f"all_gather_gemm M={M} K={K} N={world * n} world={world}, a "
            f"failure on device {failing} after its pushes, then a call", ok)

    # A reduce-scatter launch refused on one device (the driver's launch
    # injected to fail once there): the peers' kernels wait for it, and
    # that device's retry of the same call completes them; every result is
    # right, and so is the next call.
    from tk_mlir import cuda_driver

    def refused_then_retried(M, K, N):
        a = torch.randn(M, K // world, device="cuda").bfloat16()
        b = torch.randn(K // world, N, device="cuda").bfloat16()
        want = scattered(a, b)
        gemm_reduce_scatter(a, b)   # (prepared: the injection hits the launch)
        launch_by_driver = cuda_driver.launch

        def refuse_launch(*args):
            raise RuntimeError("launch refused (the check's injected "
                               "failure)")
        if rank == failing:
            cuda_driver.launch = refuse_launch
        try:
            got, error = gemm_reduce_scatter(a, b), None
        except RuntimeError as e:
            got, error = None, e
        finally:
            cuda_driver.launch = launch_by_driver
        ok = (error is not None and "injected" in str(error)
              if rank == failing else error is None)
        if rank == failing:
            got = gemm_reduce_scatter(a, b)   # the retry
        worst = max(relative_error(got, want),
                    relative_error(gemm_reduce_scatter(a, b), want))
        row(f"gemm_reduce_scatter M={M} K={K} N={N} world={world}, a "
            f"launch refused on device {failing}, retried there, then a "
            f"call", ok and worst <= TOLERANCE,
            f"largest relative error {worst:.2e}")
    refused_then_retried(world * 200, world * 136, 1000)

    # Captured in a CUDA graph after a first call of the shape, and
    # replayed with new inputs, calls outside the graph between the
    # replays: every call queues the same operations with the same values,
    # so each replay is right, and so is each call beside it. The
    # communicating-blocks form refuses a capture on every device.
    def captured(op, make, reference, case):
        static = make()
        op(*static)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out = op(*static)
        worst = 0.0
        for _ in range(3):
            fresh = make()
            for into, value in zip(static, fresh):
                into.copy_(value)
            graph.replay()
            beside = make()
            got_beside = op(*beside)
            worst = max(worst, relative_error(out, reference(*fresh)),
                        relative_error(got_beside, reference(*beside)))
        graph.replay()   # the last inputs again
        worst = max(worst, relative_error(out, reference(*fresh)))
        torch.cuda.synchronize()
        worst = torch.tensor(worst, device="cuda")
        dist.all_reduce(worst, op=dist.ReduceOp.MAX)
        row(f"{case} world={world}, captured in a CUDA graph: four replays, "
            f"calls outside the graph between them", worst.item() <= TOLERANCE,
            f"largest relative error {worst.item():.2e}")

    for m, k, n in (square(4096, world), (world * 200, world * 136, 1000)):
        captured(gemm_reduce_scatter,
                 lambda: (torch.randn(m, k // world, device="cuda").bfloat16(),
                          torch.randn(k // world, n, device="cuda").bfloat16()),
                 scattered, f"gemm_reduce_scatter M={m} K={k} N={n}")
    for n in (FEW, MANY):
        captured(all_gather_gemm,
                 lambda: (torch.randn(1000, 520, device="cuda").bfloat16(),
                          torch.randn(520, n, device="cuda").bfloat16()),
                 gathered,
                 f"all_gather_gemm M={world * 1000} K=520 N={world * n}")
    # (A shard shape no later case uses: a process that finds a shape's
    # state while its peers make it would wait for them.)
    shard = torch.randn(24, 72, device="cuda").bfloat16()
    columns = torch.randn(72, 256, device="cuda").bfloat16()
    all_gather_gemm(shard, columns, communicate="blocks")
    torch.cuda.synchronize()
    try:
        with torch.cuda.graph(torch.cuda.CUDAGraph()):
            all_gather_gemm(shard, columns, communicate="blocks")
        row("ArgumentError on every device: all_gather_gemm("
            "communicate='blocks') captured", False, "no error")
    except ArgumentError as error:
        row("ArgumentError on every device: all_gather_gemm("
            "communicate='blocks') captured",
            "cannot be captured" in str(error), error)
    worst = gathered_in_turn([shard], [columns], communicate="blocks")
    row(f"all_gather_gemm M={world * 24} K=72 N={world * 256} world={world} "
        f"communicate=blocks, after the refused capture", worst <= TOLERANCE,
        f"relative error {worst:.2e}")

    # An `a` whose address is not 16-byte aligned (a matrix cut out of a
    # bigger buffer): the own shard goes through the gathered buffer, in
    # each order.
    a = torch.randn(M // world * K + 1, device="cuda").bfloat16()[1:]
    a = a.view(M // world, K)
    for n in (FEW, MANY):
        worst = gathered_in_turn([a], [b_of[n]])
        row(f"all_gather_gemm M={M} K={K} N={world * n} world={world}, a "
            f"not 16-byte aligned", worst <= TOLERANCE,
            f"relative error {worst:.2e}")

    # What may differ between the processes: gemm_reduce_scatter's share
    # of the contraction (each device's products are its own), and
    # all_gather_gemm's columns of B (on each side of KERNEL_FIRST_COLUMNS,
    # so that the devices queue their pushes and kernels in both orders).
    M, N = world * 136, 520
    a = torch.randn(M, 64 * (rank + 1), device="cuda").bfloat16()
    b = torch.randn(64 * (rank + 1), N, device="cuda").bfloat16()
    got = gemm_reduce_scatter(a, b)
    error = relative_error(got, scattered(a, b))
    row(f"gemm_reduce_scatter M={M} N={N} world={world}, each device its "
        f"own share of the contraction (64 x (rank + 1))",
        error <= TOLERANCE, f"relative error {error:.2e}")
    a = torch.randn(M // world, 520, device="cuda").bfloat16()
    worst = gathered_in_turn(
        [a], [torch.randn(520, FEW if rank % 2 else MANY,
                          device="cuda").bfloat16()])
    row(f"all_gather_gemm M={M} K=520 world={world}, {FEW} and {MANY} "
        f"columns of B on alternate devices", worst <= TOLERANCE,
        f"relative error {worst:.2e}")

    # Shapes that must agree but do not, on a shape's first call: every
    # process raises (none waits for the others or writes past their
    # buffers), and the group's next calls are unaffected. (A group of one
    # process has no other to disagree with: only the last case, a
    # refusal of the process's own, applies.)
    last = rank == world - 1
    disagreements = (
            ("gemm_reduce_scatter: a of other rows on the last device",
             lambda: gemm_reduce_scatter(
                 torch.randn(world * (96 if last else 32), 64,
                             device="cuda").bfloat16(),
                 torch.randn(64, 264, device="cuda").bfloat16()),
             "argument 'a': the processes of the group pass different "
             "rows"),
            ("gemm_reduce_scatter: b of other columns on the last device",
             lambda: gemm_reduce_scatter(
                 torch.randn(world * 32, 64, device="cuda").bfloat16(),
                 torch.randn(64, 272 if last else 264,
                             device="cuda").bfloat16()),
             "argument 'b': the processes of the group pass different "
             "columns"),
            ("all_gather_gemm: a of other columns on the last device",
             lambda: all_gather_gemm(
                 torch.randn(40, 80 if last else 72,
                             device="cuda").bfloat16(),
                 torch.randn(80 if last else 72, 256,
                             device="cuda").bfloat16()),
             "argument 'a': the processes of the group pass different "
             "columns"),
            ("all_gather_gemm(communicate='blocks'): a of other rows on "
             "the last device",
             lambda: all_gather_gemm(
                 torch.randn(48 if last else 40, 64,
                             device="cuda").bfloat16(),
                 torch.randn(64, 256, device="cuda").bfloat16(),
                 communicate="blocks"),
             "argument 'a': the processes of the group pass different "
             "rows"),
            # Refused by the last device's own checks: the others learn why.
            ("gemm_reduce_scatter: rows that do not split on the last device",
             lambda: gemm_reduce_scatter(
                 torch.randn(world * 32 + last, 64, device="cuda").bfloat16(),
                 torch.randn(64, 280, device="cuda").bfloat16()),
             "do not split evenly over"),
            ("all_gather_gemm: b of the wrong rows on the last device",
             lambda: all_gather_gemm(
                 torch.randn(40, 64, device="cuda").bfloat16(),
                 torch.randn(64 - 8 * last, 264, device="cuda").bfloat16()),
             "argument 'b': has"))
    for case, call, message in disagreements[-1 if world == 1 else 0:]:
        try:
            call()
            row(f"ArgumentError on every device: {case}", False, "no error")
        except ArgumentError as error:
            row(f"ArgumentError on every device: {case}",
                message in str(error), error)
    worst = gathered_in_turn([a], [torch.randn(520, FEW,
                                               device="cuda").bfloat16()])
    row(f"all_gather_gemm M={M} K=520 N={world * FEW} world={world}, after "
        f"the refused calls", worst <= TOLERANCE,
        f"relative error {worst:.2e}")

    torch_ops(row, world)

    a = torch.randn(world * 64, 64, device="cuda").bfloat16()
    b = torch.randn(64, 256, device="cuda").bfloat16()
    # Tensors that a call checked, then transposed in place: the ops skip
    # the checks only for tensors of a signature they checked.
    c, d = a.clone(), a[:64].clone()
    gemm_reduce_scatter(c, b)
    all_gather_gemm(d, b)
    c.t_()
    d.t_()
    refusals = (
            ("a transposed in place after a call",
             lambda: gemm_reduce_scatter(c, b),
             "argument 'a': expected a contiguous matrix"),
            ("all_gather_gemm: a transposed in place after a call",
             lambda: all_gather_gemm(d, b),
             "argument 'a': expected a contiguous matrix"),
            ("a in float32", lambda: gemm_reduce_scatter(a.float(), b),
             "argument 'a': expected dtype bfloat16"),
            ("b of the wrong rows", lambda: gemm_reduce_scatter(a, b[:32]),
             "argument 'b': has 32 rows, but 'a' has 64 columns"),
            ("a transposed", lambda: gemm_reduce_scatter(a.t(), b.t()),
             "argument 'a': expected a contiguous matrix"),
            ("all_gather_gemm: b of the wrong rows",
             lambda: all_gather_gemm(a, b[:32]),
             "argument 'b': has 32 rows, but 'a' has 64 columns"),
            ("all_gather_gemm: an unknown communicate",
             lambda: all_gather_gemm(a, b, communicate="nvlink"),
             "argument 'communicate': expected 'copy_engines' or 'blocks'"),
            # (Any number of rows splits over one device.)
            ("rows that do not split", lambda: gemm_reduce_scatter(
                a[:world * 64 - 1], b), "do not split evenly"))
    for case, call, message in refusals[:-1 if world == 1 else None]:
        try:
            call()
            row(f"ArgumentError: {case}", False, "no error")
        except ArgumentError as error:
            row(f"ArgumentError: {case}", message in str(error), error)
    status = 1 if any(not r["ok"] for r in rows) else 0
    if rank == 0:
        status = finish(args.out, f"tensor-parallel-check-{world}.json",
                        {"world": world, "check": rows})
    dist.destroy_process_group()
    return status


if __name__ == "__main__":
    sys.exit(main())
