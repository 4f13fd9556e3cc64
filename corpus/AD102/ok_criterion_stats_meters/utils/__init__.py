from .meters import *
