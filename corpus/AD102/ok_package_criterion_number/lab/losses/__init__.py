from .ranked import RankedCriterion  # noqa: F401
