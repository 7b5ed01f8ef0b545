"""`python -m controller install|counters|reset ...`"""
import sys

from controller.cli import main

sys.exit(main())
