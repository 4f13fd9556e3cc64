"""The project's one place for imports: the other modules take torch from here."""
import math  # noqa: F401

import torch  # noqa: F401
import torch.nn as nn  # noqa: F401
