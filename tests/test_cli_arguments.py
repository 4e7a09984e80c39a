"""Bad arguments to the ``transpyle`` command are one clear message, never a traceback: kinds that
do not parse name the bad part and show the grammar; --argnums, --in-axes and the number of kinds
are checked against the function's signature, as the Python API checks them. ``compile -o`` refuses
devices, pipes and folders before doing any work, and a write that fails (full disk, read-only
folder) is one line with the path and the reason, leaving the previous module as it was.
Run in-process (``cli.main``) with the numpy backend.
"""
import errno
import os
import sys
import uuid

import pytest

from transpyle import cli
from transpyle.base import atomic_files

MODEL = '''\
import numpy as np


def g(x):
    return np.sum(x * x)


def h(x, y):
    return np.sum(x * y)
'''


@pytest.fixture
def model(tmp_path):
    path = tmp_path / f"model_{uuid.uuid4().hex[:8]}.py"
    path.write_text(MODEL)
    return path


def run(capsys, *argv):
    try:
        code = cli.main([str(a) for a in argv])
    except SystemExit as exc:                       # argparse's usage errors, or a message
        code = exc.code
        if isinstance(code, str):                   # what the interpreter prints on exiting
            sys.stderr.write(code + "\n")
            code = 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def one_message(err):
    """The message lines: one ``transpyle:`` line, and at most a hint."""
    lines = err.strip().splitlines()
    assert len(lines) <= 2 and lines[0].startswith("transpyle:"), err
    assert len(lines) == 1 or lines[1].strip().startswith("hint:"), err
    return lines[0]


@pytest.mark.parametrize("kinds, bad", [("garbage", "'garbage' is not a number type"),
                                        ("f8[::1]", "'[::1]' is not one ':' per axis"),
                                        ("S5[:]", "'S5' is not a number type"),
                                        ("f8[:", "unbalanced brackets"),
                                        ("{'a': 'nope'}", "'nope' is not a number type"),
                                        ("{'a': ", "unbalanced")])
def test_unknown_kinds_name_the_bad_part_and_show_the_grammar(model, capsys, kinds, bad):
    code, _, err = run(capsys, "show", f"{model}:g", "--kinds", kinds)
    assert code == 1
    assert bad in one_message(err)
    assert "f8[:]" in err                          # the grammar, by example


@pytest.mark.parametrize("argv, message", [
    (["--argnums", "3"], "argnums 3 is out of range for 'g', which takes 1 positional arguments"),
    (["--argnums", "-2"], "argnums -2 is out of range"),
    (["--kinds", "f8[:],f8"], "2 argument kinds given for 'g', which takes 1"),
    (["--mode", "vmap", "--in-axes", "0,None"], "in_axes has 2 entries but 'g' takes 1"),
])
def test_arguments_are_checked_against_the_signature(model, capsys, argv, message):
    code, out, err = run(capsys, "show", f"{model}:g", *argv)
    assert code == 1 and out == ""
    assert message in one_message(err)


@pytest.mark.parametrize("option, value", [("--argnums", "x"), ("--argnums", ","), ("--in-axes", "zero")])
def test_malformed_numbers_are_usage_errors(model, capsys, option, value):
    code, _, err = run(capsys, "show", f"{model}:g", option, value)
    assert code == 2 and f"argument {option}" in err


def test_good_arguments_still_print_the_source(model, capsys):
    code, out, _ = run(capsys, "show", f"{model}:h", "--argnums", "0,1", "--kinds", "f8[:],f8[:]")
    assert code == 0 and "def " in out
    code, out, _ = run(capsys, "show", f"{model}:h", "--mode", "vmap", "--in-axes", "0,None", "--kinds",
                       "f8[:, :],f8[:]")
    assert code == 0 and "def " in out


def test_a_file_that_does_not_import_is_one_line(tmp_path, capsys):
    broken = tmp_path / f"broken_{uuid.uuid4().hex[:8]}.py"
    broken.write_text("def g(x:\n")
    code, _, err = run(capsys, "show", f"{broken}:g")
    assert code == 1 and "syntax error" in one_message(err)


def compile_to(capsys, model, output, *extra):
    return run(capsys, "compile", model, "--function", "g", "--backend", "numpy", "-o", output, *extra)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("target", ["fifo", "folder", "/dev/full", "/dev/zero", "missing/mod.py"])
def test_compile_refuses_devices_pipes_and_folders(model, tmp_path, capsys, target):
    if target == "fifo":
        target = tmp_path / "pipe"
        os.mkfifo(target)
    elif target == "folder":
        target = tmp_path
    elif target == "missing/mod.py":
        target = tmp_path / "missing" / "mod.py"
    elif not os.path.exists(target):
        pytest.skip(f"no {target} here")
    for extra in ((), ("--check",)):
        code, _, err = compile_to(capsys, model, target, *extra)
        assert code == 1
        assert f"cannot write the module to {target}" in one_message(err)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failed_write_keeps_the_old_module(model, tmp_path, capsys, monkeypatch, code):
    output = tmp_path / "model_ad.py"
    assert compile_to(capsys, model, output)[0] == 0
    good = output.read_text()
    model.write_text(MODEL.replace("x * x", "x * x * x"))      # a new module, written part way

    def fail_part_way(fd, data, state={"n": 0}):
        state["n"] += 1
        if state["n"] > 1:
            raise OSError(code, os.strerror(code))
        return os.write(fd, bytes(data[:100]))
    monkeypatch.setattr(atomic_files, "_write", fail_part_way)
    status, out, err = compile_to(capsys, model, output)
    assert status == 1 and out == ""
    assert one_message(err) == f"transpyle: cannot write {output}: {os.strerror(code)}"
    assert output.read_text() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([model.name, "model_ad.py"])


def test_compile_checks_arguments_too(model, tmp_path, capsys):
    code, _, err = compile_to(capsys, model, tmp_path / "out.py", "--argnums", "3")
    assert code == 1 and "out of range" in one_message(err)
    code, _, err = compile_to(capsys, model, tmp_path / "out.py", "--kinds", "garbage")
    assert code == 1 and "'garbage' is not a number type" in one_message(err)
    assert not (tmp_path / "out.py").exists()


def test_an_unchanged_module_is_not_rewritten(model, tmp_path, capsys):
    output = tmp_path / "model_ad.py"
    assert compile_to(capsys, model, output)[0] == 0
    stamp = output.stat().st_mtime_ns
    code, out, _ = compile_to(capsys, model, output)
    assert code == 0 and out.startswith("unchanged:") and output.stat().st_mtime_ns == stamp


def test_a_module_made_read_only_is_kept(model, tmp_path, capsys):
    output = tmp_path / "model_ad.py"
    output.write_text("# kept\n")
    output.chmod(0o444)
    if os.access(output, os.W_OK):
        pytest.skip("this process may write anywhere (root)")
    code, _, err = compile_to(capsys, model, output)
    assert code == 1 and one_message(err) == f"transpyle: cannot write {output}: the file is read-only"
    assert output.read_text() == "# kept\n"
