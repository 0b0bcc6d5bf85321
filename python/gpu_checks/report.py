"""The closing step shared by the GPU check scripts."""
import json
import os

import torch


def finish(out, name, rows):
    """Writes {device, check: rows} to out/name, prints the pass/fail line
    and returns the exit status (1 when any row is not ok)."""
    failed = [r for r in rows if not r["ok"]]
    with open(os.path.join(out, name), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "check": rows},
                  f, indent=2)
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
