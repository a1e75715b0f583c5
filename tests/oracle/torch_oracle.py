"""Proves a Python test program's expectations with real PyTorch.

Usage: python3 torch_oracle.py FILE.py

The file's top-level statements (and the body of its
`if __name__ == "__main__":`) run one at a time, so that a statement that
raises does not hide the ones after it. Then:

- every `#~ error` line (but those about a result type, which PyTorch
  does not check) must be on the traceback of a statement that
  raised, and every statement that raised must have an `#~ error` line on
  its traceback: PyTorch fails exactly where tensorfit says;
- every `#~ shape NAME: Tensor[...]` on a top-level line with concrete
  dimensions must be NAME's shape after that statement;
- every `#~ hole: N` line runs with its `...` replaced by N (on a
  `Lazy*` layer's line, with the layer made concrete with N, as the quick
  fix does), so the value tensorfit proposes is one PyTorch accepts.

Exit status 0 when all hold, 1 with one line per problem otherwise.
"""

import ast
import os
import re
import sys
import traceback

EXPECTATION = re.compile(r"#~(.*)$")
# The forms of EXPECTATIONS.md; anything else is a typo the oracle would
# otherwise skip without proving it.
KNOWN_FORM = re.compile(
    r"(error|warning)(:.*)?$|hint:|shape \S+:|hole:|always-(true|false)$|annotate \S+:|no-static \S+$"
)


def expectations(lines):
    found = []
    for number, line in enumerate(lines, start=1):
        match = EXPECTATION.search(line)
        if not match:
            continue
        for part in match.group(1).split(" ; "):
            part = part.strip()
            if part:
                found.append((number, part))
    return found


def fill_holes(lines, expected):
    """Replaces the `...` argument of each `#~ hole: N` line by N."""
    filled = list(lines)
    for number, text in expected:
        match = re.fullmatch(r"hole:\s*(-?\d+)", text)
        if not match:
            continue
        line = filled[number - 1]
        code, _, comment = line.partition("#~")
        value = match.group(1)
        lazy = re.search(r"Lazy(\w+)\(\s*(\)?)", code)
        if "..." in code:
            code = code.replace("...", value, 1)
        elif lazy:
            separator = "" if lazy.group(2) else ", "
            concrete = f"{lazy.group(1)}({value}{separator}{lazy.group(2)}"
            code = code[: lazy.start()] + concrete + code[lazy.end() :]
        else:
            raise SystemExit(f"line {number}: a hole expectation on a line without `...`")
        filled[number - 1] = code + "#~" + comment
    return filled


def statements(module):
    for statement in module.body:
        if (
            isinstance(statement, ast.If)
            and isinstance(statement.test, ast.Compare)
            and ast.unparse(statement.test).replace("'", '"') == '__name__ == "__main__"'
        ):
            yield from statement.body
        else:
            yield statement


def shape_of(text):
    match = re.fullmatch(r"Tensor\[([0-9,\s]*)\]", text.strip())
    if not match:
        return None
    inside = match.group(1).strip()
    return [int(d) for d in inside.split(",")] if inside else []


def stub_jaxtyping():
    """Makes `from jaxtyping import Float` work where jaxtyping is not
    installed: without a runtime checker its annotations change nothing,
    so a stub whose names subscript to themselves is faithful."""
    try:
        import jaxtyping  # noqa: F401
        return
    except ImportError:
        pass
    import types

    class Annotation:
        def __class_getitem__(cls, item):
            return cls

    module = types.ModuleType("jaxtyping")
    module.__getattr__ = lambda name: Annotation
    sys.modules["jaxtyping"] = module


def main(path):
    stub_jaxtyping()
    # As `python3 path` would: the file's directory first on the import
    # path, so that it imports the workspace files beside it.
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    expected = expectations(lines)
    for number, text in expected:
        if not KNOWN_FORM.match(text):
            print(f"{path}: line {number}: `#~ {text}` is not an expectation (EXPECTATIONS.md)")
            return 1
    source = "\n".join(fill_holes(lines, expected)) + "\n"
    module = ast.parse(source, filename=path)
    namespace = {"__name__": "__main__", "__file__": path}
    raised = []
    problems = []
    shapes = [(n, t) for n, t in expected if t.startswith("shape ")]
    for statement in statements(module):
        code = compile(ast.Module(body=[statement], type_ignores=[]), path, "exec")
        try:
            exec(code, namespace)
        except Exception as error:  # noqa: BLE001 - any failure is a finding
            frames = traceback.extract_tb(error.__traceback__)
            on_file = {f.lineno for f in frames if f.filename == path}
            raised.append((statement.lineno, on_file, f"{type(error).__name__}: {error}"))
            continue
        for number, text in shapes:
            if not statement.lineno <= number <= statement.end_lineno:
                continue
            name, _, shape = text[len("shape "):].partition(":")
            want = shape_of(shape)
            if want is None:
                continue
            value = namespace.get(name.strip())
            got = list(getattr(value, "shape", [])) if value is not None else None
            if got != want:
                problems.append(f"line {number}: `{name.strip()}` has shape {got} in PyTorch, not {want}")
    # A result that contradicts its annotation is tensorfit's error, not
    # PyTorch's: annotations are not checked at run time.
    error_lines = [
        n
        for n, t in expected
        if (t == "error" or t.startswith("error:")) and "result type" not in t
    ]
    for number in error_lines:
        if not any(number in lines_ for _, lines_, _ in raised):
            problems.append(f"line {number}: an error is expected, but PyTorch raised nothing there")
    for start, lines_, message in raised:
        if not any(n in lines_ for n in error_lines):
            problems.append(f"line {start}: PyTorch raised `{message}`, which no `#~ error` expects")
    for problem in problems:
        print(f"{path}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
