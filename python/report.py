"""What the GPU check and benchmark scripts share: the error measure, the
tensor-parallel layers' float32 references, the compile-once check
and the closing step."""
import json
import os

import torch


def relative_error(got, want):
    """The largest |got - want| over the largest |want| (float64)."""
    return ((got.double() - want.double()).abs().max() /
            want.double().abs().max().clamp_min(1e-30)).item()


def scattered(a, b):
    """This rank's rows of the sum over the ranks of a @ b, in float32
    (collective)."""
    import torch.distributed as dist
    full = a.float() @ b.float()
    dist.all_reduce(full)
    rows = full.shape[0] // dist.get_world_size()
    return full[dist.get_rank() * rows:(dist.get_rank() + 1) * rows]


def gathered(a, b):
    """The ranks' `a` gathered by NCCL, times b, in float32 (collective)."""
    import torch.distributed as dist
    full = torch.empty(dist.get_world_size() * a.shape[0], a.shape[1],
                       device="cuda", dtype=a.dtype)
    dist.all_gather_into_tensor(full, a)
    return full.float() @ b.float()


def compiles_once(fn, *args):
    """Whether torch.compile(fn, fullgraph=True), traced afresh, compiles
    one frame for two calls of fn(*args) (no recompilation): (ok,
    detail)."""
    from torch._dynamo.testing import CompileCounter
    torch._dynamo.reset()
    counter = CompileCounter()
    try:
        compiled = torch.compile(fn, backend=counter, fullgraph=True)
        for _ in range(2):
            compiled(*args)
        return counter.frame_count == 1, f"{counter.frame_count} frames"
    except Exception as error:
        return False, f"{type(error).__name__}: {error}"


def finish(out, name, result):
    """Writes `result` (a dict with a "check" list of rows, each with "ok";
    the device is added) to out/name, making the folder `out`; prints the
    pass/fail line and returns the exit status (1 when any row is not
    ok)."""
    result.setdefault("device", torch.cuda.get_device_name())
    rows = result.get("check", [])
    failed = [r for r in rows if not r["ok"]]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "w") as f:
        json.dump(result, f, indent=2)
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
