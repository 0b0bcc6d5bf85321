"""The closing step shared by the GPU check and benchmark scripts."""
import json
import os

import torch


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
