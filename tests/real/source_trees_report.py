"""Checks every Python file of source trees nobody here wrote: a report of
the files with an error or a warning, never a failure.

Usage: source_trees_report.py --tensorfit BIN TREE...

Each TREE is a project's checkout (a clone, or the files of a snapshot).
Every `*.py` under it is checked with the tree's root and the file's own
directory as search paths, as the project itself would import them. The
code runs in its authors' hands, so every error or warning is a false
alarm to look into (docs/real-code.md lists what earlier runs found). Not
part of `scripts/test.sh`: the trees come from the network.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timm_report import check  # noqa: E402


def python_files(tree):
    for directory, subdirectories, files in os.walk(tree):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tensorfit", required=True)
    parser.add_argument("trees", nargs="+")
    args = parser.parse_args()
    binary = os.path.abspath(args.tensorfit)
    flagged = 0
    times = []
    for tree in args.trees:
        root = os.path.abspath(tree)
        count = 0
        for path in python_files(root):
            search = [root, os.path.dirname(path)]
            errors, warnings, first, seconds = check(binary, path, search)
            times.append(seconds)
            count += 1
            if errors or warnings or errors is None:
                flagged += 1
                where = os.path.relpath(path, os.path.dirname(root))
                print(f"{where}: {errors} errors, {warnings} warnings: {first}")
        print(f"{os.path.basename(root)}: {count} files")
    if times:
        times.sort()
        print(
            f"{len(times)} files, {flagged} with an error or warning; "
            f"{sum(times):.1f} s in all, median {statistics.median(times) * 1000:.0f} ms, "
            f"slowest {times[-1]:.1f} s"
        )


if __name__ == "__main__":
    main()
