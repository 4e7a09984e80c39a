"""Stable, readable names for generated variables: ``bx`` adjoints, ``_t3`` temporaries."""
import re

#: a temporary the frontend makes for a value the program has no name for (``_t12``)
TEMPORARY = re.compile(r"_t\d+")
#: the loop indices of element loops (``transforms/element_loops``): ``_e0``, ``_e1``, ... by axis
ELEMENT_INDEX = "_e"
#: one such index
ELEMENT_INDEX_NAME = re.compile(re.escape(ELEMENT_INDEX) + r"\d+")
#: the names element loops take before their loops: views of operands and of the destination, elements
#: read once, a new array for a result that overlaps its operands, a reduction the loop reads
ELEMENT_LOCALS = ("_a", "_out", "_s", "_new", "_r")
#: a line of generated code that belongs to an element loop (or is an ``else:``)
ELEMENT_LINE = re.compile(r"\b" + ELEMENT_INDEX + r"\d+\b|\brt\.conform\(|\brt\.parallel_pays\(|_parallel\d+\(|"
                          r"^\s*else:\s*$|^\s*(?:" + "|".join(ELEMENT_LOCALS) + r")\d+ = ")

#: the functions ``transforms/outline_loops`` makes of element loops: ``<function>_loops<k>``
OUTLINED_LOOPS = "_loops"
#: the generated module itself, through which the long function calls them (a call of a global function
#: would be a dynamic address in code compiled at -O0, which keeps it out of Numba's disk cache)
OUTLINED_MODULE = "_this_module"
#: the name of such a function, and a call of it (or its definition) in generated code
OUTLINED_NAME = re.compile(r"\w+" + OUTLINED_LOOPS + r"\d+")
OUTLINED_CALL = re.compile(r"\b\w+" + OUTLINED_LOOPS + r"\d+\(")
#: the functions ``transforms/parallel_loops`` makes of element loops run on every core:
#: ``<function>_parallel<k>``, compiled with Numba's parallel loops (the function calling them is not)
PARALLEL_LOOPS = "_parallel"
PARALLEL_NAME = re.compile(r"\w+" + PARALLEL_LOOPS + r"\d+")
#: a call in generated code that runs BLAS (a product, a factorization), which has threads of its own
BLAS_CALL = re.compile(r"np\.(dot|matmul|vdot|inner|tensordot|linalg\.)| @ ")
#: a parallel loop of a driver (vmap, Jacobian) over examples or directions: its ``numba.prange`` runs in
#: the function itself (element loops' parallel copies run in functions of their own, above)
DRIVER_PARALLEL_LOOP = re.compile(r"for (?!" + ELEMENT_INDEX + r"\d+ )\w+ in numba\.prange\(")


class Namer:
    """Hands out names that collide neither with each other nor with the user's names.

    Names are deterministic (counters per prefix), so generated code is the same on every run.
    """

    def __init__(self, taken=()):
        self.taken = set(taken)
        self.counters = {}

    def reserve(self, names):
        self.taken.update(names)

    def fresh(self, base="_t"):
        if not base.startswith("_") and base not in self.taken:
            self.taken.add(base)
            return base
        # a user's name keeps its digits (the next 'step2' is 'step2_1', never 'step1', which may be another
        # function of theirs); generated names count on from their stem ('_t3' -> '_t4')
        stem = base + "_" if not base.startswith("_") and base[-1:].isdigit() else re.sub(r"\d+$", "", base) or "_t"
        n = self.counters.get(stem, 0)
        while True:
            n += 1
            candidate = f"{stem}{n}"
            if candidate not in self.taken:
                self.counters[stem] = n
                self.taken.add(candidate)
                return candidate

    def exact_or_fresh(self, base):
        if base not in self.taken:
            self.taken.add(base)
            return base
        return self.fresh(base + "_")
