import os
import sys

# the tests import the package from the repository (installed editable by `make test`)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
