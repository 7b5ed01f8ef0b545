import sys

from p4reduce.cli import main

sys.exit(main())
