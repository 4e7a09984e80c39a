"""The pipeline: the declared passes each transform runs over a function's tree (``passes``,
``modes``), the drivers that assemble Jacobians and vmaps (``drivers``), the entry ``transform``
and the text of the generated module (``module``)."""
from .modes import MODES, PASSES, STRATEGIES, pipeline_of
from .module import module_source
from .transform import TransformCall, generated_function, loaded, prepare, specialize, transform

__all__ = ["PASSES", "STRATEGIES", "MODES", "pipeline_of", "module_source", "TransformCall", "generated_function",
           "loaded", "prepare", "specialize", "transform"]
