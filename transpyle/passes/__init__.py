"""The passes, one per module, each exposing ``run(tree, ctx) -> tree``; see ``pipeline``."""
