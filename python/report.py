"""What the GPU check and benchmark scripts share: the error measure and
the closing step."""
import json
import os

import torch


def relative_error(got, want):
    """The largest |got - want| over the largest |want| (float64)."""
    return ((got.double() - want.double()).abs().max() /
            want.double().abs().max().clamp_min(1e-30)).item()


def finish(out, name, result):
    """Writes `result` (a dict with a "check" list of rows, each with "ok";
    the device is added) to out/name, prints the pass/fail line and returns
    the exit status (1 when any row is not ok)."""
    result.setdefault("device", torch.cuda.get_device_name())
    rows = result.get("check", [])
    failed = [r for r in rows if not r["ok"]]
    with open(os.path.join(out, name), "w") as f:
        json.dump(result, f, indent=2)
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
