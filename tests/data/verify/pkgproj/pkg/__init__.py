"""A package run as `python -m pkg.train`: its modules import each other relatively."""
