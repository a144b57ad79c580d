import sys

from exchange.cli import main

sys.exit(main())
