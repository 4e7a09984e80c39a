"""code_size: how long generated code is, as the compile-time rules count it.

Generated code of more than ``LONG_FUNCTION_STATEMENTS`` statements is compiled at LLVM -O0
(``backends/compile_time``): at higher levels the broadcasting loops of many array expressions took
minutes to optimize. Element loops (``transforms/element_loops``) are plain loops over numbers, cheap to
optimize, so their lines are not counted; in a function that is long anyway they become functions of
their own, optimized while the long function is not (``transforms/outline_loops``).
"""
from .naming import ELEMENT_LINE

#: generated code of more than this many statements is compiled at -O0
LONG_FUNCTION_STATEMENTS = 250


def statements(text):
    """The number of statements in generated code: lines that are neither comments nor blank, element
    loops left out."""
    return sum(1 for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", '"""'))
               and not ELEMENT_LINE.search(line))
