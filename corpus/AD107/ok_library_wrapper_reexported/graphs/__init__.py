from .models import *  # noqa: F401,F403
