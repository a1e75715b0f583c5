#!/usr/bin/env python3
"""timm's model files checked by tensorfit: a report, never a failure.

Issue 24 asks, beside torchvision's suite, how many of timm's model files
(`pip download timm`, nothing of it kept in this repository) check with
no error. This script downloads the newest timm wheel from PyPI (or takes
one given with --wheel), unpacks it in a temporary directory and runs
`tensorfit check --format json` on each `timm/models/*.py`, with timm's
own package and the installed packages (torch) as search paths. It
prints each file that gets an error or a warning, with the first message,
and the count of clean files. Every such error is a false alarm to look
into (timm's models run in PyTorch), so the report is read, but the exit
status is 0 whatever it finds, and when PyPI cannot be reached.

Usage: timm_report.py --tensorfit BIN [--wheel PATH] [--json OUT]
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile

PER_FILE_TIMEOUT = 120


def download(directory):
    """The newest timm wheel, downloaded into `directory`; None offline."""
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "timm", "--no-deps",
             "--only-binary", ":all:", "-d", directory, "-q"],
            check=True, timeout=300, capture_output=True,
        )
    except (subprocess.SubprocessError, OSError) as e:
        print(f"timm report: no wheel ({e})")
        return None
    wheels = glob.glob(os.path.join(directory, "timm-*.whl"))
    return wheels[0] if wheels else None


def site_packages():
    """The installed packages' directory of the python3 running this."""
    import torch

    return os.path.dirname(os.path.dirname(torch.__file__))


def check(binary, path, search_paths):
    """(errors, warnings, first message, seconds) of one file."""
    command = [binary, "check", "--format", "json"]
    for directory in search_paths:
        command += ["--python-path", directory]
    started = time.monotonic()
    try:
        run = subprocess.run(command + [path], capture_output=True, text=True,
                             timeout=PER_FILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, None, f"no answer in {PER_FILE_TIMEOUT} s", PER_FILE_TIMEOUT
    seconds = time.monotonic() - started
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        return None, None, f"no report (exit {run.returncode})", seconds
    found = [d for f in report["files"] for d in f["diagnostics"]]
    errors = [d for d in found if d["severity"] == "error"]
    warnings = [d for d in found if d["severity"] == "warning"]
    first = (errors + warnings)[0]["message"] if errors or warnings else ""
    return len(errors), len(warnings), first, seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tensorfit", required=True)
    parser.add_argument("--wheel")
    parser.add_argument("--json")
    args = parser.parse_args()
    binary = os.path.abspath(args.tensorfit)
    with tempfile.TemporaryDirectory(prefix="tensorfit-timm-") as scratch:
        wheel = args.wheel or download(scratch)
        if wheel is None:
            return 0
        unpacked = os.path.join(scratch, "site")
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(unpacked)
        files = sorted(glob.glob(os.path.join(unpacked, "timm", "models", "*.py")))
        search_paths = [unpacked, site_packages()]
        results = {}
        for path in files:
            name = os.path.basename(path)
            errors, warnings, first, seconds = check(binary, path, search_paths)
            results[name] = {
                "errors": errors, "warnings": warnings,
                "first": first, "seconds": round(seconds, 2),
            }
            if errors != 0 or warnings != 0:
                print(f"{name:32} {errors} errors, {warnings} warnings: {first[:160]}",
                      flush=True)
        clean = sum(1 for r in results.values() if r["errors"] == 0 and r["warnings"] == 0)
        total_seconds = sum(r["seconds"] for r in results.values())
        print(f"timm report ({os.path.basename(wheel)}): {clean} of {len(results)} "
              f"model files check with no error or warning, in {total_seconds:.0f} s")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"wheel": os.path.basename(wheel), "files": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
