"""scripts/gpu_checks.sh run, with stand-ins for python3, torchrun and
nvidia-smi on PATH: which checks it runs for one GPU and for several, that
each gets --out (anywhere in the arguments, relative to the caller), that
a failing check shows with its result line and makes the run fail, that
naming checks runs only those (once each), that a name it cannot run
stops it before any check runs, the summary it writes as JSON, and its
usage errors."""
import json
import os
import stat
import subprocess

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gpu_checks.sh")

# Each stand-in records its arguments; the cross_warp check fails, the
# carried_walk check is killed.
STAND_IN = """#!/bin/sh
echo "$0 $*" >> "$CALLS"
case "$*" in
  *cross_warp.py*) echo "3 passed, 1 failed"; exit 1 ;;
  *carried_walk.py*) kill -9 $$ ;;
esac
echo "5 passed, 0 failed"
"""
NVIDIA_SMI = """#!/bin/sh
case "$*" in *--query-gpu=driver_version*) echo 580.159.04; exit 0 ;; esac
i=0
while [ $i -lt "$GPUS" ]; do echo "GPU $i: NVIDIA H200 (UUID: x)"; \
i=$((i + 1)); done
"""


def run(tmp_path, gpus, *args, cwd=ROOT):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("python3", STAND_IN), ("torchrun", STAND_IN),
                       ("nvidia-smi", NVIDIA_SMI)):
        path = bin_dir / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    calls = tmp_path / "calls"
    if calls.exists():
        calls.unlink()
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
               CALLS=str(calls), GPUS=str(gpus))
    command = [SCRIPT, "run", *args]
    if not any(arg.startswith("--out") for arg in args):
        command[2:2] = ["--out", str(tmp_path / "out")]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True,
                          text=True)
    lines = calls.read_text().splitlines() if calls.exists() else []
    return done, lines


def test_one_gpu_runs_the_single_gpu_checks(tmp_path):
    done, calls = run(tmp_path, 1)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(calls) == 13
    assert all(f"--out {tmp_path / 'out'}" in call for call in calls)
    assert not any("devices.py" in call or
                   "tensor_parallel_timeout" in call for call in calls)
    # The tensor-parallel ops in a group of one process.
    torchrun = [call for call in calls if "torchrun" in call.split()[0]]
    assert len(torchrun) == 1
    assert "--nproc-per-node 1" in torchrun[0]
    assert "tensor_parallel.py" in torchrun[0]
    failed = [line for line in done.stdout.splitlines()
              if line.startswith("cross_warp")]
    assert len(failed) == 1
    assert "FAILED (exit 1)" in failed[0] and "3 passed, 1 failed" in failed[0]
    killed = [line for line in done.stdout.splitlines()
              if line.startswith("carried_walk")]
    assert "KILLED (signal 9)" in killed[0] and "no result line" in killed[0]
    assert "13 checks, 2 not ok (1 GPUs" in done.stdout
    assert (tmp_path / "out" / "logs" / "cross_warp.log").read_text() == \
        "3 passed, 1 failed\n"


def test_summary_json_records_every_check(tmp_path):
    done, calls = run(tmp_path, 1, "tile_walk", "cross_warp", "carried_walk")
    summary = json.loads((tmp_path / "out" / "gpu-checks.json").read_text())
    assert summary["device"] == "NVIDIA H200" and summary["gpus"] == 1
    assert summary["driver"] == "580.159.04"
    assert summary["command"] == "scripts/gpu_checks.sh run"
    assert isinstance(summary["total_seconds"], int)
    by_name = {c["check"]: c for c in summary["checks"]}
    assert list(by_name) == ["cross_warp", "carried_walk", "tile_walk"]
    assert (by_name["tile_walk"]["status"], by_name["tile_walk"]["passed"],
            by_name["tile_walk"]["failed"]) == ("ok", 5, 0)
    assert (by_name["cross_warp"]["status"], by_name["cross_warp"]["passed"],
            by_name["cross_warp"]["failed"]) == ("FAILED (exit 1)", 3, 1)
    assert by_name["carried_walk"]["status"] == "KILLED (signal 9)"
    assert by_name["carried_walk"]["passed"] is None


def test_several_gpus_add_the_multi_gpu_checks(tmp_path):
    done, calls = run(tmp_path, 4)
    assert len(calls) == 16
    assert sum("devices.py" in call for call in calls) == 1
    torchrun = [call for call in calls if "torchrun" in call.split()[0]]
    assert len(torchrun) == 3
    assert all("--nproc-per-node 4" in call for call in torchrun)
    assert sum("--op gemm_reduce_scatter" in c for c in torchrun) == 1
    assert sum("--op all_gather_gemm" in c for c in torchrun) == 1


def test_named_checks_only(tmp_path):
    done, calls = run(tmp_path, 1, "tile_walk", "ssd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(calls) == 2
    assert "tile_walk.py" in calls[0] and "ssd.py" in calls[1]
    assert "2 checks, 0 not ok" in done.stdout


def test_unknown_or_unavailable_check_stops_before_any_runs(tmp_path):
    done, calls = run(tmp_path, 1, "tile_walk", "tensor_parallel_timeout_rs")
    assert done.returncode == 1
    assert "one this machine cannot run (1 GPUs): " \
        "tensor_parallel_timeout_rs" in done.stderr
    assert calls == []


def test_out_anywhere_relative_to_the_caller_and_names_once(tmp_path):
    done, calls = run(tmp_path, 1, "ssd", "--out=elsewhere", "ssd",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(calls) == 1
    assert calls[0].endswith(f"--out {tmp_path / 'elsewhere'}")
    assert (tmp_path / "elsewhere" / "logs" / "ssd.log").exists()


@pytest.mark.parametrize("args", [(), ("nonsense",), ("run", "--out"),
                                  ("run", "--verbose")])
def test_usage(tmp_path, args):
    done = subprocess.run([SCRIPT, *args], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "usage:" in done.stderr
