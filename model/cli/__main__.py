import sys

from pinchpoint.cli import main

sys.exit(main())
