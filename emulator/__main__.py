import sys

from emulator.cli import main

sys.exit(main())
