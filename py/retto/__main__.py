from retto.cli import main

raise SystemExit(main())
