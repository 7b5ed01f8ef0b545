# SPDX-License-Identifier: Apache-2.0
import sys

from p4reduce.cli import main

sys.exit(main())
